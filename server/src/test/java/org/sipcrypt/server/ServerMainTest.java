package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.Setting;
import org.sipcrypt.server.config.ListenerConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.transport.Transport;

class ServerMainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final AtomicReference<ServerConfig> launched = new AtomicReference<>();

    private int run(String... args) {
        return ServerMain.run(new PrintWriter(out), new PrintWriter(err), (config, source, e) -> {
            launched.set(config);
            return 0;
        }, args);
    }

    /** Runs with {@code args}, which must be refused: exit code 2 and nothing launched; returns standard error so far. */
    private String refused(String... args) {
        launched.set(null);
        assertEquals(2, run(args));
        assertNull(launched.get(), "nothing launched");
        return err.toString();
    }

    @Test
    @Timeout(10)
    void badOptionValueExitsWithTwoAndNamesTheKey() {
        assertTrue(refused("--tcp-idle-timeout", "5x").startsWith("sipcrypt: tcp.idleTimeout: \"5x\" is not a duration"),
                err.toString());
    }

    @Test
    @Timeout(10)
    void unknownOptionExitsWithTwo() {
        assertTrue(refused("--tcp-idel-timeout", "5m").startsWith("sipcrypt: Unknown option"), err.toString());
    }

    @Test
    @Timeout(10)
    void singleValuedOptionGivenTwiceExitsWithTwo() {
        refused("--mode", "proxy", "--mode", "redirect");
    }

    @Test
    @Timeout(10)
    void missingConfigFileExitsWithTwo(@TempDir Path dir) {
        Path missing = dir.resolve("missing.yaml");
        assertTrue(refused("--config", missing.toString()).contains(missing.toString()), err.toString());
    }

    @Test
    @Timeout(10)
    void helpListsEveryOptionOfTheSettingsTable() {
        assertEquals(0, run("--help"));
        String help = out.toString();
        assertTrue(help.contains("--tcp-idle-timeout=DURATION"), help);
        assertTrue(help.contains("--config=FILE"), help);
        assertTrue(help.contains("--version"), help);
        for (Setting s : ConfigLoader.settings()) {
            assertTrue(help.contains(s.option() + (s.flag() ? "[=" : "=")), s.option());
        }
        assertTrue(help.contains("(default: 5m)"), help);
        assertNull(launched.get());
    }

    @Test
    @Timeout(10)
    void optionsAndFileReachTheConfigurationByKey(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("s.yaml"), "tcp: {idleTimeout: 5m, maxConnections: 77}\n");
        int code = run("--config", file.toString(), "--tcp-idle-timeout", "7m",
                "--listen", "udp:127.0.0.1:0", "--listen", "tcp:127.0.0.1:0", "--domain", "example.com");
        assertEquals(0, code, err.toString());
        ServerConfig c = launched.get();
        assertEquals(Duration.ofMinutes(7), c.tcpIdleTimeout());
        assertEquals(77, c.tcpMaxConnections());
        assertEquals(List.of(new ListenerConfig(Transport.UDP, "127.0.0.1", 0),
                new ListenerConfig(Transport.TCP, "127.0.0.1", 0)), c.listeners());
        assertEquals(List.of("example.com"), c.domains());
    }

    @Test
    @Timeout(10)
    void authFlagNeedsNoValueAndDefaultsToEveryMethodQopAndTheUriCheckWithBothAlgorithms() {
        assertEquals(0, run("--auth", "--realm", "example.org"));
        var auth = launched.get().auth();
        assertTrue(auth.enabled());
        assertEquals(java.util.List.of("*"), auth.methods());
        assertTrue(auth.challenges("MESSAGE") && auth.challenges("FOO") && !auth.challenges("ACK")
                && !auth.challenges("CANCEL"));
        assertFalse(auth.legacyNoQop());
        assertFalse(auth.labSkipUriCheck());
        assertEquals(java.util.List.of(), auth.trustedPeers());
        assertEquals(java.util.List.of(org.sipcrypt.server.config.DigestAlgorithm.SHA_256,
                org.sipcrypt.server.config.DigestAlgorithm.MD5), auth.algorithms());
        assertEquals("example.org", launched.get().effectiveRealm());
    }

    @Test
    @Timeout(10)
    void authIsOffByDefaultAndTheRealmIsTheFirstListenerHost() {
        assertEquals(0, run("--listen", "udp:127.0.0.2:5060"));
        assertEquals(false, launched.get().auth().enabled());
        assertEquals("127.0.0.2", launched.get().effectiveRealm());
    }

    @Test
    @Timeout(10)
    void authListsTakeCommaSeparatedValues() {
        assertEquals(0, run("--auth=true", "--auth-methods", "register,INVITE,MESSAGE", "--auth-algorithms", "md5"));
        assertEquals(java.util.List.of("REGISTER", "INVITE", "MESSAGE"), launched.get().auth().methods());
        assertEquals(java.util.List.of(org.sipcrypt.server.config.DigestAlgorithm.MD5), launched.get().auth().algorithms());
    }

    @Test
    @Timeout(10)
    void trustedPeersAndTheLabUriSwitchHaveOptionsNamedAfterTheirKeys() throws Exception {
        assertEquals(0, run("--auth", "--auth-trusted-peers", "192.0.2.0/24,::1", "--auth-lab-skip-uri-check", "true"));
        var auth = launched.get().auth();
        assertEquals("[192.0.2.0/24, 0:0:0:0:0:0:0:1/128]", auth.trustedPeers().toString());
        assertTrue(auth.trusted(java.net.InetAddress.getByName("192.0.2.77")));
        assertFalse(auth.trusted(java.net.InetAddress.getByName("192.0.3.1")));
        assertTrue(auth.labSkipUriCheck());
        assertTrue(refused("--auth-trusted-peers", "peer.example.com").contains("auth.trustedPeers[0]"),
                err.toString());
    }

    @Test
    @Timeout(10)
    void ackCannotBeChallengedAndUnknownAlgorithmsAreRefused() {
        assertTrue(refused("--auth", "--auth-methods", "INVITE,ACK").contains("auth.methods[1]"), err.toString());
        assertTrue(refused("--auth-algorithms", "sha-512").contains("unknown digest algorithm \"sha-512\""),
                err.toString());
        assertTrue(refused("--auth-nonce-secret", "short").contains("auth.nonceSecret"), err.toString());
    }

    @Test
    @Timeout(10)
    void usersAndCertsAreSubcommandsOfTheServerJar() {
        assertEquals(0, run("users", "--help"));
        assertTrue(out.toString().contains("generate"), out.toString());
        assertEquals(0, run("certs", "--help"));
        assertTrue(out.toString().contains("--key-type"), out.toString());
    }
}
