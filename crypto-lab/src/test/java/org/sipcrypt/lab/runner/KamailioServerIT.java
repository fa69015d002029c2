package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.scenario.LoadProfile;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * Kamailio (Debian's package, which CI installs) as the server under test: the chain over UDP and
 * TLS-AES at a low rate through a configuration the lab writes, every call completed, its CPU
 * measured over all of its processes, and the ciphers it cannot run said and left out; and TLS 1.3
 * with X25519 and an ECDSA certificate, checked with {@code openssl s_client} as well; and the
 * fixed-rate point of {@code --peak-fraction} at half the peak Kamailio's ramp found.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KamailioServerIT {

    @TempDir
    Path dir;

    @Test
    void theChainRunsThroughKamailioOverUdpAndTlsAes() throws Exception {
        Scenario s = ScenarioFiles.load("chain");
        s = s.withRepeat(1).withLoad(s.load().withRate(20).withTimes(Duration.ofSeconds(3), Duration.ofSeconds(1)));
        List<String> said = new ArrayList<>();
        Study study = new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, line -> {
            System.out.println(line);
            said.add(line);
        }, Duration.ofSeconds(1), CpuPinning.OFF, ServerUnderTest.KAMAILIO)).compare(List.of("udp", "aes", "3des"), true,
                false);
        assertEquals("chain-kamailio", study.scenario());
        assertEquals(List.of("udp", "aes"), study.ciphers(), "3DES is left out: OpenSSL 3 has no such suite");
        assertTrue(said.stream().anyMatch(l -> l.contains("3des on kamailio: not run: Debian's Kamailio uses OpenSSL 3")),
                said.toString());
        assertEquals(List.of("udp", "aes"), study.fixed().stream().map(PointRun::cipher).toList());
        for (PointRun p : study.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertEquals(60, p.uac().completed(), p.uac().text());
            assertTrue(p.server().cpuMicrosPerCall() > 0, "Kamailio's CPU measured: " + p.server());
            assertEquals(-1, p.server().heapAfterGcBytes(), "no JVM heap to read");
        }
        // the UAS of the aes point listens on TLS only, with that one suite: its calls went through
        // Kamailio's TLS on both legs
    }

    /**
     * {@code compare --peak-fraction 0.5} on Kamailio: a ramp of one 1 s step first (30/s, which UDP
     * passes), then the fixed-rate point at half the peak it found rounded down to tens (15/s: 10/s),
     * and the progress line says so.
     */
    @Test
    void atHalfItsPeakKamailiosFixedPointRunsAtHalfWhatItsRampFound() throws Exception {
        Scenario s = ScenarioFiles.load("chain");
        LoadProfile l = s.load().withTimes(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .withRamp(new LoadProfile.Ramp(30, 30, Duration.ofSeconds(1), 30, 0, Duration.ofSeconds(30)));
        s = s.withRepeat(1).withLoad(l);
        List<String> said = new ArrayList<>();
        Study study = new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, line -> {
            System.out.println(line);
            said.add(line);
        }, Duration.ofSeconds(1), CpuPinning.OFF, ServerUnderTest.KAMAILIO)).compare(List.of("udp"), true, false,
                new PeakFraction(0.5));
        assertEquals("chain-kamailio", study.scenario());
        assertEquals(0.5, study.peakFraction());
        assertEquals(1, study.peaks().size(), said.toString());
        PeakSearch ramp = study.peaks().get(0);
        // a generator behind its schedule on a busy machine (saturated) depends on the machine, not the
        // code: then the step did not pass and no fixed-rate point runs, and the progress line says so
        boolean saturated = "saturated generator".equals(ramp.stoppedBy());
        assertEquals(saturated ? 0 : 30, ramp.peakRate(), "Kamailio passed 30/s: " + ramp + "\n" + said);
        assertEquals(saturated ? List.of() : List.of(10.0), study.fixed().stream().map(PointRun::rate).toList(),
                said.toString());
        assertTrue(said.contains(saturated ? "chain udp: no fixed-rate point: 0/s, 0.5 × its peak of 0/s is under 10/s"
                : "chain udp: fixed-rate points at 10/s, 0.5 × its peak of 30/s"), said.toString());
    }

    /**
     * The OpenSSL names the lab gives Kamailio are OpenSSL's own for those suites (with the legacy
     * provider, as SEED runs), and the 3DES and RC4 suites the refusals speak of are not there.
     */
    @Test
    void opensslNamesEachSuiteAsTheLabDoesAndHasNo3desOrRc4() throws Exception {
        Path conf = dir.resolve("legacy.cnf");
        Files.writeString(conf, KamailioTls.of("seed", Handshake.DEFAULT).opensslCnf(), StandardCharsets.UTF_8);
        ProcessBuilder pb = new ProcessBuilder("openssl", "ciphers", "-stdname", "ALL:@SECLEVEL=0")
                .redirectErrorStream(true);
        pb.environment().put("OPENSSL_CONF", conf.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        Map<String, String> named = new HashMap<>();
        for (String line : out.lines().toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 2 && f[1].equals("-")) {
                named.put(f[0], f[2]);
            }
        }
        KamailioTls.OPENSSL_SUITES.forEach((rfc, name) -> assertEquals(name, named.get(rfc), rfc));
        // and no suite of the lab's providers that OpenSSL has is missing from the table
        for (CipherSuiteProvider provider : CipherSuiteRegistry.load().providers()) {
            for (CipherSuiteId id : provider.suites()) {
                assertEquals(named.containsKey(id.name()), KamailioTls.OPENSSL_SUITES.containsKey(id.name()), id.name());
                if (provider.name().equals("3des") || provider.name().equals("rc4")) {
                    assertFalse(named.containsKey(id.name()), id.name());
                }
            }
        }
    }

    /**
     * TLS 1.3 on X25519 with ECDSA P-256 certificates: every call goes through Kamailio's TLS on
     * both legs, where the lab's generator and UAS offer nothing else (bc: that version, suite and
     * group alone). Then {@code openssl s_client} against a Kamailio the lab configures the same way
     * sees that version, suite, group and key, and is refused TLS 1.2, P-256 and another suite; and a
     * TLS 1.2 Kamailio with {@code --resumption session-id} resumes an s_client session by its ID.
     */
    @Test
    void tls13OnX25519WithAnEcdsaCertificateRunsThroughKamailio() throws Exception {
        Handshake h = Handshake.parse("1.3", "ecdhe-x25519", "ecdsa-p256", "none");
        Scenario s = ScenarioFiles.load("chain");
        s = s.withRepeat(1).withLoad(s.load().withRate(20).withTimes(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        Study study = new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, System.out::println,
                Duration.ofSeconds(1), CpuPinning.OFF, ServerUnderTest.KAMAILIO, false, Duration.ZERO, h))
                .compare(List.of("aes"), true, false);
        assertEquals(List.of("aes"), study.fixed().stream().map(PointRun::cipher).toList());
        for (PointRun p : study.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertEquals(40, p.uac().completed(), p.uac().text());
        }
        assertEquals("1.3", study.environment().tlsVersion());
        assertEquals("ecdhe-x25519", study.environment().keyExchange());
        assertEquals("ecdsa-p256", study.environment().certificate());

        Path certs = dir.resolve("certs-ecdsa-p256");
        InetSocketAddress noUas = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        try (KamailioServer k = KamailioServer.start(s, "aes", h, dir.resolve("peer-1.3"), certs, noUas,
                CpuPinning.OFF)) {
            String connect = "127.0.0.1:" + k.address().getPort();
            String out = OpenSslClient.run(certs, "", null, "-connect", connect, "-CAfile", "ca.pem",
                    "-verify_return_error", "-tls1_3", "-groups", "X25519");
            assertTrue(out.contains("New, TLSv1.3, Cipher is TLS_AES_128_GCM_SHA256"), out);
            assertTrue(out.contains("Server Temp Key: X25519"), out);
            assertTrue(out.contains("Peer signature type: ECDSA") && out.contains("Server public key is 256 bit"), out);
            for (List<String> other : List.of(List.of("-tls1_2", "-groups", "X25519"),
                    List.of("-tls1_3", "-groups", "P-256"),
                    List.of("-tls1_3", "-groups", "X25519", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"))) {
                List<String> args = new ArrayList<>(List.of("-connect", connect, "-CAfile", "ca.pem"));
                args.addAll(other);
                String refused = OpenSslClient.run(certs, "", null, args.toArray(String[]::new));
                assertTrue(refused.contains("Cipher is (NONE)") && refused.contains("alert"), other + ": " + refused);
            }
        }

        // one TCP worker: Kamailio's session cache is per process, and this one holds every session
        CpuPinning one = CpuPinning.plan("0");
        assertEquals(1, KamailioServer.workers(one));
        Handshake resuming = Handshake.parse("1.2", "ecdhe-p256", "ecdsa-p256", "session-id");
        try (KamailioServer k = KamailioServer.start(ScenarioFiles.load("outbound"), "aes", resuming,
                dir.resolve("peer-1.2"), certs, noUas, one)) {
            List<String> args = List.of("-connect", "127.0.0.1:" + k.address().getPort(), "-CAfile", "ca.pem",
                    "-verify_return_error", "-tls1_2", "-groups", "P-256", "-cipher", "ECDHE-ECDSA-AES128-SHA",
                    "-no_ticket");
            List<String> first = new ArrayList<>(args);
            first.addAll(List.of("-sess_out", dir.resolve("session").toString()));
            String out = OpenSslClient.run(certs, "", null, first.toArray(String[]::new));
            assertTrue(out.contains("New, ") && out.contains("Cipher is ECDHE-ECDSA-AES128-SHA"), out);
            List<String> again = new ArrayList<>(args);
            again.addAll(List.of("-sess_in", dir.resolve("session").toString()));
            out = OpenSslClient.run(certs, "", null, again.toArray(String[]::new));
            assertTrue(out.contains("Reused, ") && out.contains("Cipher is ECDHE-ECDSA-AES128-SHA"), out);
        }
    }

    /**
     * With {@code --resumption ticket} Kamailio (one TCP worker) resumes an s_client session from
     * its RFC 5077 ticket under TLS 1.2, and with {@code psk} from its TLS 1.3 ticket; the TLS 1.3
     * client reads the tickets while it waits for the answer to its OPTIONS.
     */
    @Test
    void kamailioResumesByTls12TicketAndTls13Psk() throws Exception {
        Path certs = dir.resolve("certs-tickets");
        assertEquals(0, new picocli.CommandLine(new org.sipcrypt.server.cli.CertsCommand())
                .execute("--out", certs.toString()));
        InetSocketAddress noUas = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        CpuPinning one = CpuPinning.plan("0");
        for (String mode : List.of("ticket", "psk")) {
            Handshake h = Handshake.parse(mode.equals("psk") ? "1.3" : "1.2", "ecdhe-x25519", "rsa2048", mode);
            try (KamailioServer k = KamailioServer.start(ScenarioFiles.load("outbound"), "aes", h,
                    dir.resolve("tickets-" + mode), certs, noUas, one)) {
                int port = k.address().getPort();
                String options = "OPTIONS sip:127.0.0.1:" + port + ";transport=tls SIP/2.0\r\n"
                        + "Via: SIP/2.0/TLS 127.0.0.1:5999;branch=z9hG4bK-" + mode + "\r\n"
                        + "Max-Forwards: 70\r\nFrom: <sip:tester@127.0.0.1>;tag=t1\r\nTo: <sip:127.0.0.1:" + port
                        + ">\r\nCall-ID: tickets-" + mode + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
                List<String> args = new ArrayList<>(List.of("-connect", "127.0.0.1:" + port, "-CAfile", "ca.pem",
                        "-verify_return_error", "-groups", "X25519"));
                args.addAll(mode.equals("psk") ? List.of("-tls1_3")
                        : List.of("-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA"));
                Path session = dir.resolve("session-" + mode);
                List<String> first = new ArrayList<>(args);
                first.addAll(List.of("-sess_out", session.toString()));
                String out = OpenSslClient.run(certs, options, "SIP/2.0 ", first.toArray(String[]::new));
                assertTrue(out.contains("New, "), out);
                if (mode.equals("ticket")) {
                    assertTrue(out.contains("TLS session ticket:"), "an RFC 5077 ticket came: " + out);
                }
                List<String> again = new ArrayList<>(args);
                again.addAll(List.of("-sess_in", session.toString()));
                out = OpenSslClient.run(certs, options, "SIP/2.0 ", again.toArray(String[]::new));
                assertTrue(out.contains("Reused, "), mode + " resumed: " + out);
            }
        }
    }
}
