package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.LabMain;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * What the lab gives Kamailio for each handshake it can run: the tls module's {@code tls.cfg}, the
 * OpenSSL configuration of its process and its session cache; and what it refuses, saying why.
 * {@code KamailioServerIT} runs a combination against the real Kamailio.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KamailioServerTest {

    @TempDir
    Path dir;

    private static List<String> lines(String text) {
        return text.lines().map(String::strip).toList();
    }

    @ParameterizedTest(name = "{4} under TLS {0}, {1}, {2}: {3}")
    @CsvSource({
        "1.2, rsa,          rsa2048,    AES128-SHA,                     aes",
        "1.2, rsa,          rsa3072,    CAMELLIA128-SHA,                camellia",
        "1.2, ecdhe-p256,   rsa2048,    ECDHE-RSA-AES128-SHA,           aes",
        "1.2, ecdhe-x25519, rsa3072,    ECDHE-RSA-CHACHA20-POLY1305,    chacha20",
        "1.2, ecdhe-p256,   ecdsa-p256, ECDHE-ECDSA-AES128-SHA,         aes",
        "1.2, ecdhe-p256,   ecdsa-p256, ECDHE-ECDSA-CHACHA20-POLY1305,  chacha20",
        "1.2, ecdhe-p256,   ecdsa-p256, ECDHE-ECDSA-CAMELLIA128-SHA256, camellia",
    })
    void tls12NamesTheSuiteInTheCipherListAndTheGroupInOpenssl(String version, String kx, String cert, String suite,
                                                              String cipher) {
        Handshake h = Handshake.parse(version, kx, cert, null);
        KamailioTls tls = KamailioTls.of(cipher, h);
        Path certs = dir.resolve("certs-" + cert);
        List<String> cfg = lines(tls.tlsCfg(certs));
        assertEquals(List.of("method = TLSv1.2", "method = TLSv1.2"),
                cfg.stream().filter(l -> l.startsWith("method")).toList(), "server and client profiles");
        assertEquals(List.of("cipher_list = " + suite, "cipher_list = " + suite),
                cfg.stream().filter(l -> l.startsWith("cipher_list")).toList());
        assertTrue(cfg.contains("certificate = " + certs.resolve("server.pem")), cfg.toString());
        assertTrue(cfg.contains("private_key = " + certs.resolve("server-key.pem")), cfg.toString());
        List<String> openssl = lines(tls.opensslCnf());
        assertEquals(h.group() == null ? List.of() : List.of("Groups = " + h.group().openSslName()),
                openssl.stream().filter(l -> l.startsWith("Groups")).toList());
        assertFalse(openssl.stream().anyMatch(l -> l.startsWith("Protocol") || l.startsWith("Ciphersuites")),
                "TLS 1.2 is the tls module's own method: " + openssl);
        assertEquals(List.of(), tls.moduleParameters(), "no session cache unless asked");
    }

    @ParameterizedTest(name = "{3} under TLS 1.3, {0}, {1}")
    @CsvSource({
        "ecdhe-x25519, ecdsa-p256, X25519, aes,      TLS_AES_128_GCM_SHA256",
        "ecdhe-p256,   rsa2048,    P-256,  aes,      TLS_AES_128_GCM_SHA256",
        "ecdhe-x25519, rsa3072,    X25519, chacha20, TLS_CHACHA20_POLY1305_SHA256",
        "ecdhe-p256,   ecdsa-p256, P-256,  chacha20, TLS_CHACHA20_POLY1305_SHA256",
    })
    void tls13IsHeldByOpensslToTheVersionTheSuiteAndTheGroupWithoutTickets(String kx, String cert, String group,
                                                                          String cipher, String suite) {
        KamailioTls tls = KamailioTls.of(cipher, Handshake.parse("1.3", kx, cert, "none"));
        List<String> cfg = lines(tls.tlsCfg(dir));
        // Kamailio 5.6's tls module has no TLSv1.3 method; TLSv1.2+ reaches it
        assertEquals(List.of("method = TLSv1.2+", "method = TLSv1.2+"),
                cfg.stream().filter(l -> l.startsWith("method")).toList());
        assertFalse(cfg.stream().anyMatch(l -> l.startsWith("cipher_list")), cfg.toString());
        String openssl = tls.opensslCnf();
        assertTrue(lines(openssl).containsAll(List.of("ssl_conf = ssl_sect", "system_default = system_default_sect",
                "Groups = " + group, "Protocol = -ALL, TLSv1.3", "Ciphersuites = " + suite, "NumTickets = 0")),
                openssl);
        assertFalse(openssl.contains("legacy"), openssl);
    }

    @Test
    void seedLoadsOpensslsLegacyProviderAtSecurityLevelZero() {
        KamailioTls tls = KamailioTls.of("seed", Handshake.DEFAULT);
        assertTrue(lines(tls.tlsCfg(dir)).contains("cipher_list = SEED-SHA:@SECLEVEL=0"), tls.tlsCfg(dir));
        List<String> openssl = lines(tls.opensslCnf());
        assertTrue(openssl.containsAll(List.of("providers = provider_sect", "legacy = legacy_sect", "activate = 1")),
                openssl.toString());
        assertFalse(openssl.contains("ssl_conf = ssl_sect"), "nothing for libssl: " + openssl);
    }

    @Test
    void sessionIdTurnsOnTheSessionCacheAndCloseNotify() throws Exception {
        Scenario s = ScenarioFiles.load("outbound");
        Handshake h = Handshake.parse("1.2", "ecdhe-p256", "rsa2048", "session-id");
        String cfg = KamailioServer.config(s, "aes", KamailioTls.of("aes", h), Transport.TLS, Transport.TLS, 5061,
                new InetSocketAddress("127.0.0.1", 5090), dir, 1);
        assertTrue(cfg.contains("modparam(\"tls\", \"session_cache\", 1)\n"), cfg);
        assertTrue(cfg.contains("modparam(\"tls\", \"send_close_notify\", 1)\n"), cfg);
        assertTrue(cfg.contains("modparam(\"tls\", \"config\", \"" + dir.resolve("tls.cfg").toAbsolutePath() + "\")"),
                cfg);
        String none = KamailioServer.config(s, "aes", KamailioTls.of("aes",
                Handshake.parse("1.2", "ecdhe-p256", "rsa2048", "none")),
                Transport.TLS, Transport.TLS, 5061, new InetSocketAddress("127.0.0.1", 5090), dir, 1);
        assertFalse(none.contains("session_cache"), none);
        String udp = KamailioServer.config(s, "udp", null, Transport.UDP, Transport.UDP, 5060,
                new InetSocketAddress("127.0.0.1", 5090), dir, 1);
        assertFalse(udp.contains("tls"), udp);
    }

    @Test
    void ticketAndPskKeepOpensslsTicketsAndSendCloseNotify() throws Exception {
        Scenario s = ScenarioFiles.load("outbound");
        for (String mode : List.of("ticket", "psk")) {
            Handshake h = Handshake.parse(mode.equals("psk") ? "1.3" : "1.2", "ecdhe-x25519", "rsa2048", mode);
            KamailioTls tls = KamailioTls.of("aes", h);
            String cfg = KamailioServer.config(s, "aes", tls, Transport.TLS, Transport.TLS, 5061,
                    new InetSocketAddress("127.0.0.1", 5090), dir, 1);
            assertTrue(cfg.contains("modparam(\"tls\", \"send_close_notify\", 1)\n"), cfg);
            assertFalse(cfg.contains("session_cache"), "tickets need no session cache: " + cfg);
            assertFalse(lines(tls.opensslCnf()).contains("NumTickets = 0"), tls.opensslCnf());
        }
        KamailioTls noPsk = KamailioTls.of("aes", Handshake.parse("1.3", "ecdhe-x25519", "rsa2048", "none"));
        assertTrue(lines(noPsk.opensslCnf()).contains("NumTickets = 0"), noPsk.opensslCnf());
    }

    @Test
    void theHybridIsRefusedForWantOfMlKemInOpenssl30() throws Exception {
        Handshake h = Handshake.parse("1.3", "x25519mlkem768", "rsa2048", null);
        String why = KamailioServer.refusal(h);
        assertNotNull(why);
        assertTrue(why.contains("x25519mlkem768") && why.contains("OpenSSL 3.0") && why.contains("ML-KEM"), why);
        assertEquals(why, KamailioServer.unsupported(ScenarioFiles.load("chain"), "aes", h));
        assertEquals(null, KamailioServer.unsupported(ScenarioFiles.load("chain"), "udp", h), "no TLS leg, no handshake");
        for (String other : List.of("ecdhe-p256", "ecdhe-x25519")) {
            assertNull(KamailioServer.refusal(Handshake.parse("1.3", other, "ecdsa-p256", "none")), other);
        }
        assertNull(KamailioServer.refusal(Handshake.parse("1.2", "ecdhe-p256", "rsa3072", "session-id")));
    }

    @Test
    void aComparisonOfTheHybridOnKamailioIsRefusedBeforeAnyStudyStarts() throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        assertEquals(2, cl.execute("compare", "--scenario", "chain", "--ciphers", "aes", "--sut", "sipcrypt,kamailio",
                "--tls-version", "1.3", "--kx", "x25519mlkem768", "--out", dir.resolve("out").toString(), "--db",
                "jdbc:h2:" + dir.resolve("db"), "--pin", "off"));
        assertTrue(out.toString().contains("--sut kamailio: --kx x25519mlkem768: Debian's Kamailio 5.6 runs on"
                + " OpenSSL 3.0"), out.toString());
        assertFalse(out.toString().contains("chain aes"), "the sipcrypt study did not start: " + out);
        List<String> said = new ArrayList<>();
        ScenarioRunner runner = new ScenarioRunner(ScenarioFiles.load("chain"), new ScenarioRunner.Options(dir, null,
                said::add, Duration.ofSeconds(1), CpuPinning.OFF, ServerUnderTest.KAMAILIO, false, Duration.ZERO,
                Handshake.parse("1.3", "x25519mlkem768", "rsa2048", null)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> runner.compare(List.of("aes"), true, false));
        assertTrue(e.getMessage().startsWith("--sut kamailio: --kx x25519mlkem768"), e.getMessage());
    }

    @Test
    void whatKamailioCannotRunIsSaid() throws Exception {
        Handshake ecdsa = Handshake.parse("1.2", "ecdhe-p256", "ecdsa-p256", null);
        assertNull(KamailioServer.unsupported(ScenarioFiles.load("chain"), "camellia", Handshake.DEFAULT));
        assertNull(KamailioServer.unsupported(ScenarioFiles.load("chain"), "camellia", ecdsa));
        assertNull(KamailioServer.unsupported(ScenarioFiles.load("outbound"), "aes", Handshake.DEFAULT));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("chain"), "rc4", Handshake.DEFAULT)
                .contains("OpenSSL 3, which has no RC4 TLS suites"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("chain"), "3des", ecdsa)
                .contains("OpenSSL 3, which has no 3DES TLS suites"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("chain"), "seed",
                Handshake.parse("1.3", "ecdhe-x25519", "rsa2048", null)).contains("no suite for TLS 1.3"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("chain"), "TLS_DHE_RSA_WITH_AES_128_CBC_SHA",
                Handshake.DEFAULT).contains("no OpenSSL suite is known for TLS_DHE_RSA_WITH_AES_128_CBC_SHA"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("local"), "aes", Handshake.DEFAULT)
                .contains("connection per call"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("register"), "udp", Handshake.DEFAULT)
                .contains("call scenarios only"));
        assertFalse(KamailioServer.unsupported(ScenarioFiles.load("chain-auth"), "udp", Handshake.DEFAULT).isEmpty());
    }

    @Test
    void kamailiosSharedMemoryIsAsLargeAsTheLabServersHeap() {
        String xmx = Scenario.LAB_SERVER_JVM.stream().filter(o -> o.startsWith("-Xmx")).findFirst().orElseThrow();
        assertEquals("-Xmx1g", xmx, "the lab's sipcrypt heap changed: give Kamailio's -m the same");
        assertEquals(1024, KamailioServer.SHARED_MEMORY_MB);
    }

    @Test
    void kamailiosPortsLieBelowTheEphemeralRangeWhereTimeWaitHoldsClientPorts() throws Exception {
        Random random = new Random(42);
        int[] linux = {32768, 60999};
        for (int i = 0; i < 10_000; i++) {
            int p = KamailioServer.candidatePort(linux, random);
            assertTrue(p >= 10_000 && p + 1 < 32768, "port " + p + " and the next below 32768, from 10000");
        }
        assertEquals(0, KamailioServer.candidatePort(new int[] {10_500, 60999}, random),
                "a range starting near 10000 leaves too few ports below it: the kernel picks");
        Path range = dir.resolve("ip_local_port_range");
        Files.writeString(range, "20000\t50000\n");
        assertEquals(List.of(20000, 50000), asList(KamailioServer.ephemeralPorts(range)));
        Files.writeString(range, "not a range\n");
        assertEquals(List.of(32768, 60999), asList(KamailioServer.ephemeralPorts(range)), "Linux's default");
        assertEquals(List.of(32768, 60999), asList(KamailioServer.ephemeralPorts(dir.resolve("absent"))));
    }

    private static List<Integer> asList(int[] a) {
        return Arrays.stream(a).boxed().toList();
    }
}
