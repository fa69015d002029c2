package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.sipcrypt.server.config.ConfigLoader.Setting;
import org.sipcrypt.server.config.ListenerConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.transport.Transport;

class ServerMainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final AtomicReference<ServerConfig> launched = new AtomicReference<>();

    private int run(String... args) {
        return ServerMain.run(new PrintWriter(out), new PrintWriter(err), (config, e) -> {
            launched.set(config);
            return 0;
        }, args);
    }

    @Test
    @Timeout(10)
    void badOptionValueExitsWithTwoAndNamesTheKey() {
        assertEquals(2, run("--tcp-idle-timeout", "5x"));
        assertTrue(err.toString().startsWith("sipcrypt: tcp.idleTimeout: \"5x\" is not a duration"), err.toString());
        assertNull(launched.get());
    }

    @Test
    @Timeout(10)
    void unknownOptionExitsWithTwo() {
        assertEquals(2, run("--tcp-idel-timeout", "5m"));
        assertTrue(err.toString().startsWith("sipcrypt: Unknown option"), err.toString());
        assertNull(launched.get());
    }

    @Test
    @Timeout(10)
    void singleValuedOptionGivenTwiceExitsWithTwo() {
        assertEquals(2, run("--mode", "proxy", "--mode", "redirect"));
        assertNull(launched.get());
    }

    @Test
    @Timeout(10)
    void missingConfigFileExitsWithTwo(@TempDir Path dir) {
        Path missing = dir.resolve("missing.yaml");
        assertEquals(2, run("--config", missing.toString()));
        assertTrue(err.toString().contains(missing.toString()), err.toString());
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
            assertTrue(help.contains(s.option() + "="), s.option());
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
}
