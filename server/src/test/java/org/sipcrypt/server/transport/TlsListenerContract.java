package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.RevokingCa;
import org.sipcrypt.server.testing.TestOcspResponder;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * What the tls listener does on either TLS engine, against peers nobody here wrote: Debian's
 * {@code openssl s_client} and the JDK's own {@code SSLSocket}; session resumption with reuse on
 * and off; client certificates; and bad input (bytes that are not TLS, a truncated record, only
 * unknown suites offered, renegotiation, a handshake never finished). Each engine's test class
 * names its engine: {@code BcTlsListenerIT}, {@code JsseTlsListenerIT}, {@code OpenSslTlsListenerIT}.
 */
@Timeout(90)
abstract class TlsListenerContract {

    @TempDir
    Path dir;

    Path certs;

    /** {@code bc}, {@code jsse} or {@code openssl}. */
    abstract String engine();

    /**
     * The TLS 1.3 suite {@code openssl s_client}'s default offer lands on: the server's first
     * ({@code TLS_AES_128_GCM_SHA256}) where the engine follows the server's order on TLS 1.3.
     */
    String defaultTls13Suite() {
        return "TLS_AES_128_GCM_SHA256";
    }

    @BeforeEach
    void makeCertificates() {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
    }

    TestServer start(String... extra) throws Exception {
        List<String> s = new ArrayList<>(List.of("listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.engine", engine()));
        s.addAll(List.of(extra));
        return TestServer.start(dir.resolve("data"), s.toArray(new String[0]));
    }

    static String options(int port, String callId) {
        return "OPTIONS sip:127.0.0.1:" + port + ";transport=tls SIP/2.0\r\n"
                + "Via: SIP/2.0/TLS 127.0.0.1:5999;branch=z9hG4bK-" + callId + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:tester@127.0.0.1>;tag=t1\r\n"
                + "To: <sip:127.0.0.1:" + port + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** Runs {@code openssl s_client} in the certificates directory; see {@link OpenSslClient}. */
    String openssl(String input, String until, String... args) throws Exception {
        return OpenSslClient.run(certs, input, until, args);
    }

    @Test
    void opensslForcedToAes128ShaGetsOptionsAnswered() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String out = openssl(options(port, "tls-openssl-1"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-cipher", "AES128-SHA", "-CAfile", "ca.pem", "-verify_return_error", "-brief");
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
            assertTrue(out.contains("AES128-SHA"), "negotiated suite: " + out);
            assertTrue(out.contains("Via: SIP/2.0/TLS"), out);
        }
    }

    @Test
    void defaultOpensslClientLandsOnAForwardSecretSuite() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String any = openssl(options(port, "tls-default-1"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-CAfile", "ca.pem", "-verify_return_error", "-brief");
            assertTrue(any.contains("SIP/2.0 200 OK"), any);
            assertTrue(any.contains("Ciphersuite: " + defaultTls13Suite()), "TLS 1.3 by default: " + any);

            String v12 = openssl(options(port, "tls-default-2"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-verify_return_error", "-brief");
            assertTrue(v12.contains("SIP/2.0 200 OK"), v12);
            assertTrue(v12.contains("Ciphersuite: ECDHE-RSA-AES128-GCM-SHA256"),
                    "OpenSSL's default TLS 1.2 offer gets ECDHE, not the RSA key exchange: " + v12);
        }
    }

    @Test
    void jdkClientWithTls13GetsOptionsAnswered() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String got = jdkOptions(TestPki.sslContext(certs, null, null), port, "tls-jdk-1");
            assertTrue(got.startsWith("TLSv1.3 TLS_AES_") && got.contains("\nSIP/2.0 200 OK"), got);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", "full") >= 1,
                    Duration.ofSeconds(5), () -> "handshake counted");
            assertEquals(server.server().transportCounters().value("tls.handshakes", "kind", "full"),
                    server.server().transportCounters().value("tls.handshakes", "engine", engine()),
                    () -> "counted under the listener's engine: " + server.server().statsLine());
        }
    }

    @Test
    void bytesThatAreNotTlsCloseOnlyThatConnection() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            sendUntilClosed(port, options(port, "plain-on-tls").getBytes(StandardCharsets.US_ASCII), false);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason", "not_tls") >= 1,
                    Duration.ofSeconds(5), () -> "counted as not_tls");
            assertStillServes(port, "after-garbage");
        }
    }

    @Test
    void aPeerThatNeverHandshakesIsClosedAfterTheHandshakeTimeout() throws Exception {
        try (TestServer server = start("tls.handshakeTimeout", "1s")) {
            int port = server.address(Transport.TLS).getPort();
            try (Socket raw = new Socket()) {
                raw.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                raw.setSoTimeout(15_000);
                assertEquals(-1, raw.getInputStream().read(), "closed by the server");
            }
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason", "timeout") >= 1,
                    Duration.ofSeconds(5), () -> "counted as timeout");
        }
    }

    @Test
    void clientCertificatesAreRequiredWhenConfigured() throws Exception {
        try (TestServer server = start("tls.clientAuth", "need", "tls.trust", certs.resolve("ca.pem").toString())) {
            int port = server.address(Transport.TLS).getPort();
            String without = openssl(options(port, "no-cert"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-brief");
            assertTrue(!without.contains("SIP/2.0 200"), "refused without a certificate: " + without);
            String with = openssl(options(port, "with-cert"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-cert", "client.pem", "-key", "client-key.pem", "-brief");
            assertTrue(with.contains("SIP/2.0 200 OK"), with);
        }
    }

    /** Sends OPTIONS over the JDK's TLS and returns the response head. */
    static String jdkOptions(SSLContext ctx, int port, String callId, String... protocols) throws Exception {
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
            if (protocols.length > 0) {
                s.setEnabledProtocols(protocols);
            }
            s.setSoTimeout(10_000);
            s.getOutputStream().write(options(port, callId).getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            byte[] buf = new byte[4096];
            StringBuilder got = new StringBuilder();
            while (!got.toString().contains("\r\n\r\n")) {
                int n = s.getInputStream().read(buf);
                if (n < 0) {
                    break;
                }
                got.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
            }
            return s.getSession().getProtocol() + " " + s.getSession().getCipherSuite() + "\n" + got;
        }
    }

    @Test
    void clientCertificatesFromAnotherAuthorityAreRefused() throws Exception {
        Path other = dir.resolve("other");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", other.toString()));
        Files.copy(other.resolve("client.pem"), certs.resolve("other-client.pem"));
        Files.copy(other.resolve("client-key.pem"), certs.resolve("other-client-key.pem"));
        try (TestServer server = start("tls.clientAuth", "want", "tls.trust", certs.resolve("ca.pem").toString())) {
            int port = server.address(Transport.TLS).getPort();
            String foreign = openssl(options(port, "foreign-cert"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-cert", "other-client.pem", "-key", "other-client-key.pem");
            assertTrue(!foreign.contains("SIP/2.0 200"), "refused with a certificate of another CA: " + foreign);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason",
                    "bad_certificate") >= 1, Duration.ofSeconds(5), () -> server.server().statsLine());
            String none = openssl(options(port, "no-cert-want"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-brief");
            assertTrue(none.contains("SIP/2.0 200 OK"), "want: served without a certificate: " + none);
        }
    }

    /**
     * tls.revocation crl: a client certificate the CRL lists is refused in the handshake (TLS 1.2, where
     * the client learns it before its Finished) and counted as revoked; a good one has OPTIONS
     * answered; the list replaced on disk (tls.watchInterval) revokes the good one for the next full
     * handshake (a resumed session keeps the check of the handshake that made it).
     */
    @Test
    void clientCertificatesRevokedByTheCrlAreRefused() throws Exception {
        RevocationFixture f = RevocationFixture.get();
        RevokingCa ca = f.ca;
        ca.writeCertificate(certs.resolve("revoking-ca.pem"));
        for (String file : List.of("good-client.pem", "good-client-key.pem", "revoked-client.pem", "revoked-client-key.pem")) {
            Files.copy(f.dir.resolve(file), certs.resolve(file));
        }
        X509Certificate good = f.good;
        X509Certificate revoked = f.revoked;
        Path crl = certs.resolve("clients.crl");
        RevokingCa.writePem(crl, ca.crl(List.of(revoked), Duration.ofHours(1)));
        try (TestServer server = start("tls.clientAuth", "need", "tls.trust", certs.resolve("revoking-ca.pem").toString(),
                "tls.revocation", "crl", "tls.crl", crl.toString(), "tls.revocationFailure", "hard",
                "tls.watchInterval", "200ms")) {
            int port = server.address(Transport.TLS).getPort();
            SSLContext revokedClient = TestPki.sslContext(certs, "revoked-client.pem", "revoked-client-key.pem", "TLSv1.2");
            assertThrows(IOException.class, () -> jdkOptions(revokedClient, port, "revoked-cert"));
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason", "revoked") >= 1
                    && revocationChecks(server, "revoked") >= 1, Duration.ofSeconds(10), () -> server.server().statsLine());
            SSLContext goodClient = TestPki.sslContext(certs, "good-client.pem", "good-client-key.pem", "TLSv1.2");
            String got = jdkOptions(goodClient, port, "good-cert");
            assertTrue(got.contains("SIP/2.0 200 OK"), got);
            assertTrue(revocationChecks(server, "good") >= 1, server.server().statsLine());
            RevokingCa.writePem(crl, ca.crl(List.of(revoked, good), Duration.ofHours(1)));
            Await.until(() -> {
                try {
                    // a new client, not resuming the session its certificate was checked in
                    jdkOptions(TestPki.sslContext(certs, "good-client.pem", "good-client-key.pem", "TLSv1.2"), port,
                            "good-cert-after-reload");
                    return false;
                } catch (IOException | RuntimeException e) {
                    return true;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, Duration.ofSeconds(20), () -> "the replaced CRL revokes the good client: " + server.server().statsLine());
            assertTrue(revocationChecks(server, "revoked") >= 2, server.server().statsLine());
        }
    }

    /**
     * tls.revocation ocsp against a responder the test runs, named by tls.ocspResponder, hard failure:
     * the handshake never waits for the responder, so a client's first handshake may be refused while
     * its status is fetched; once answered, the revoked client is refused as revoked and the good one
     * has OPTIONS answered, and the fetches are counted. With the responder down and soft failure,
     * a client is served, its status counted as unknown.
     */
    @Test
    void clientCertificatesRevokedByOcspAreRefused() throws Exception {
        RevocationFixture f = RevocationFixture.get();
        f.ca.writeCertificate(certs.resolve("revoking-ca.pem"));
        for (String file : List.of("good-client.pem", "good-client-key.pem", "revoked-client.pem", "revoked-client-key.pem")) {
            Files.copy(f.dir.resolve(file), certs.resolve(file));
        }
        try (TestOcspResponder responder = TestOcspResponder.start(f.ca.certificate(), f.ca.privateKey())) {
            responder.revoke(f.revoked);
            try (TestServer server = start("tls.clientAuth", "need", "tls.trust", certs.resolve("revoking-ca.pem").toString(),
                    "tls.revocation", "ocsp", "tls.ocspResponder", responder.url().toString(),
                    "tls.revocationFailure", "hard")) {
                int port = server.address(Transport.TLS).getPort();
                Await.until(() -> {
                    assertEquals(null, optionsWith("revoked-client", port, "revoked-ocsp"), "the revoked client is refused");
                    return revocationChecks(server, "revoked") >= 1;
                }, Duration.ofSeconds(10), () -> server.server().statsLine());
                Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason", "revoked") >= 1,
                        Duration.ofSeconds(10), () -> server.server().statsLine());
                String[] got = new String[1];
                // refused while its status is fetched (hard failure), then served
                Await.until(() -> (got[0] = optionsWith("good-client", port, "good-ocsp")) != null, Duration.ofSeconds(10),
                        () -> server.server().statsLine());
                assertTrue(got[0].contains("SIP/2.0 200 OK"), got[0]);
                assertTrue(revocationChecks(server, "good") >= 1, server.server().statsLine());
                var fetches = server.server().registry().find("tls.ocsp.fetches").tag("result", "good").functionCounter();
                assertEquals(1.0, fetches.count(), "one fetch per certificate, then the cache");
            }
        }
        // the responder gone (its port closed): soft failure serves even the revoked client, counted as unknown
        URI down;
        try (TestOcspResponder gone = TestOcspResponder.start(f.ca.certificate(), f.ca.privateKey())) {
            down = gone.url();
        }
        try (TestServer server = start("tls.clientAuth", "need", "tls.trust", certs.resolve("revoking-ca.pem").toString(),
                "tls.revocation", "ocsp", "tls.ocspResponder", down.toString(), "tls.revocationFailure", "soft")) {
            int port = server.address(Transport.TLS).getPort();
            String got = optionsWith("revoked-client", port, "responder-down");
            assertTrue(got != null && got.contains("SIP/2.0 200 OK"), String.valueOf(got));
            assertTrue(revocationChecks(server, "unknown") >= 1, server.server().statsLine());
        }
    }

    /**
     * tls.ocspStapling on: the server fetches its own certificate's OCSP response from the responder
     * the certificate names (one the test runs) and staples it for a client that asks
     * ({@code openssl s_client -status}), which sees a successful response saying good; an engine
     * that does not staple (jsse) refuses to start with it.
     */
    @Test
    void theCertificatesOcspResponseIsStapledForClientsThatAsk() throws Exception {
        RevokingCa ca = RevokingCa.create("sipcrypt stapling test CA");
        try (TestOcspResponder responder = TestOcspResponder.start(ca.certificate(), ca.privateKey())) {
            ca.server("127.0.0.1", certs, "stapled", responder.url());
            ca.writeCertificate(certs.resolve("stapling-ca.pem"));
            String[] settings = {"listen", "tls:127.0.0.1:0", "tls.cert", certs.resolve("stapled.pem").toString(),
                "tls.key", certs.resolve("stapled-key.pem").toString(), "tls.engine", engine(), "tls.ocspStapling", "on"};
            if (!staples()) {
                Exception refused = assertThrows(Exception.class, () -> TestServer.start(dir.resolve("data"), settings));
                assertTrue(refused.getMessage().contains("tls.ocspStapling: on needs tls.engine openssl or bc"),
                        refused.getMessage());
                return;
            }
            try (TestServer server = TestServer.start(dir.resolve("data"), settings)) {
                int port = server.address(Transport.TLS).getPort();
                String[] out = new String[1];
                Await.until(() -> {
                    try {
                        out[0] = openssl(options(port, "stapled"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                                "-status", "-CAfile", "stapling-ca.pem", staplingVersion());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    // the first handshakes may come before the first response is in
                    return out[0].contains("OCSP Response Status: successful");
                }, Duration.ofSeconds(15), () -> "a stapled response: " + out[0]);
                assertTrue(out[0].contains("Cert Status: good"), out[0]);
                assertTrue(out[0].contains("SIP/2.0 200 OK"), out[0]);
                assertTrue(responder.requests() >= 1);
                var fetched = server.server().registry().find("tls.ocsp.fetches").tag("result", "good").functionCounter();
                assertTrue(fetched != null && fetched.count() >= 1, server.server().statsLine());
            }
        }
    }

    /** Whether the engine staples OCSP responses ({@code tls.ocspStapling}). */
    boolean staples() {
        return true;
    }

    /** The {@code openssl s_client} version switch of the stapling case: the newest the engine staples on. */
    String staplingVersion() {
        return "-tls1_3";
    }

    /** OPTIONS from a client presenting {@code <name>.pem} over TLS 1.2: the answer, or null when refused. */
    private String optionsWith(String name, int port, String callId) {
        try {
            String got = jdkOptions(TestPki.sslContext(certs, name + ".pem", name + "-key.pem", "TLSv1.2"), port, callId);
            return got.contains("SIP/2.0 200") ? got : null;
        } catch (IOException e) {
            return null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The revocation case's CA and client certificates, made once for the engines' classes in one JVM
     * (RSA key generation is the slow part). Threading: made under the class lock, then immutable.
     */
    private static final class RevocationFixture {
        private static RevocationFixture made;
        final Path dir;
        final RevokingCa ca;
        final X509Certificate good;
        final X509Certificate revoked;

        private RevocationFixture() throws Exception {
            dir = Files.createTempDirectory("sipcrypt-revocation");
            dir.toFile().deleteOnExit();
            ca = RevokingCa.create("sipcrypt revocation test CA");
            good = ca.client("good client", dir, "good-client");
            revoked = ca.client("revoked client", dir, "revoked-client");
            for (String file : List.of("good-client.pem", "good-client-key.pem", "revoked-client.pem",
                    "revoked-client-key.pem")) {
                dir.resolve(file).toFile().deleteOnExit();
            }
        }

        static synchronized RevocationFixture get() throws Exception {
            if (made == null) {
                made = new RevocationFixture();
            }
            return made;
        }
    }

    private static double revocationChecks(TestServer server, String result) {
        var c = server.server().registry().find("tls.revocation.checks").tag("result", result).functionCounter();
        return c == null ? 0 : c.count();
    }

    @Test
    void sessionsAreResumedWithReuseOnAndNotWithReuseOff() throws Exception {
        try (TestServer server = start()) {
            assertReconnections(server, 5, "resumed", 5);
        }
        try (TestServer server = start("tls.sessionReuse", "off")) {
            assertReconnections(server, 0, "full", 6);
            assertEquals(0, server.server().transportCounters().value("tls.handshakes", "kind", "resumed"));
        }
    }

    @Test
    void aClientOfferingOnlyUnknownSuitesIsRefused() throws Exception {
        try (TestServer server = start("tls.ciphers", "TLS_RSA_WITH_AES_256_CBC_SHA")) {
            int port = server.address(Transport.TLS).getPort();
            String out = openssl(options(port, "unknown-suites"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-cipher", "AES128-SHA", "-CAfile", "ca.pem");
            assertTrue(!out.contains("SIP/2.0 200") && out.contains("alert"), "refused with an alert: " + out);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason",
                    "no_shared_cipher") >= 1, Duration.ofSeconds(5), () -> server.server().statsLine());
            String ok = openssl(options(port, "known-suite"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-cipher", "AES256-SHA", "-CAfile", "ca.pem", "-brief");
            assertTrue(ok.contains("SIP/2.0 200 OK"), ok);
        }
    }

    @Test
    void aTruncatedRecordClosesOnlyThatConnection() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            // a handshake record header announcing 512 bytes, then 4 of them, then the end
            sendUntilClosed(port, new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xFC}, true);
            Await.until(() -> server.server().transportCounters().value("transport.connections.closed", "reason",
                    "peer_closed") + server.server().transportCounters().value("transport.connections.closed", "reason",
                    "tls") >= 1, Duration.ofSeconds(5), () -> server.server().statsLine());
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason", "closed")
                    + server.server().transportCounters().value("tls.handshakes.failed", "reason", "handshake") >= 1,
                    Duration.ofSeconds(5), () -> server.server().statsLine());
            assertStillServes(port, "after-truncated");
        }
    }

    @Test
    void aRenegotiationAttemptClosesThatConnection() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            // s_client renegotiates when a line starts with R (not with -quiet or -brief)
            String out = openssl("R\n", "renegotiation", "-connect", "127.0.0.1:" + port, "-tls1_2", "-CAfile", "ca.pem");
            assertTrue(out.contains("RENEGOTIATING"), out);
            assertRenegotiationRefused(server, out);
        }
    }

    /** The engine refused a renegotiation: by default it failed the connection, which it closed. */
    void assertRenegotiationRefused(TestServer server, String out) {
        Await.until(() -> server.server().transportCounters().value("transport.connections.closed", "reason", "tls") >= 1,
                Duration.ofSeconds(10), () -> server.server().statsLine() + "\n" + out);
    }

    @Test
    void aPkcs12FileServesLikeThePemFiles() throws Exception {
        // made by openssl, not by sipcrypt
        Process p = new ProcessBuilder("openssl", "pkcs12", "-export", "-in", "server.pem", "-inkey", "server-key.pem",
                "-out", "server.p12", "-passout", "pass:lab-secret").directory(certs.toFile()).redirectErrorStream(true).start();
        assertEquals(0, p.waitFor(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        try (TestServer server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0", "listen",
                "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.p12").toString(), "tls.keyPassword", "lab-secret",
                "tls.engine", engine())) {
            int port = server.address(Transport.TLS).getPort();
            String out = openssl(options(port, "p12"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port, "-tls1_2",
                    "-CAfile", "ca.pem", "-verify_return_error", "-brief");
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
        }
        Exception wrong = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> TestServer.start(
                dir.resolve("data2"), "listen", "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.p12").toString(),
                "tls.keyPassword", "not-it", "tls.engine", engine()));
        assertTrue(String.valueOf(wrong.getMessage()).contains("PKCS#12"), String.valueOf(wrong));
    }

    /**
     * Connects with {@code openssl s_client} and reconnects five times, offering session IDs only (no
     * tickets, so the server's own cache decides); expects {@code reused} of the six connections to
     * resume and the rest to be new, and the server to count {@code counted} handshakes of {@code kind}.
     */
    private void assertReconnections(TestServer server, int reused, String kind, int counted) throws Exception {
        int port = server.address(Transport.TLS).getPort();
        String out = openssl("", null, "-connect", "127.0.0.1:" + port, "-tls1_2", "-no_ticket", "-reconnect",
                "-CAfile", "ca.pem");
        assertEquals(reused, count(out, "\nReused, "), out);
        assertEquals(6 - reused, count(out, "\nNew, "), out);
        Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", kind) == counted,
                Duration.ofSeconds(5), () -> server.server().statsLine());
    }

    /**
     * Writes {@code bytes} on a plain socket (then ends its output if {@code endOutput}) and reads until
     * the server closes it; an alert may come first, and a reset is the same outcome as a close.
     */
    private static void sendUntilClosed(int port, byte[] bytes, boolean endOutput) throws Exception {
        try (Socket raw = new Socket()) {
            raw.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(bytes);
            raw.getOutputStream().flush();
            if (endOutput) {
                raw.shutdownOutput();
            }
            while (raw.getInputStream().read() >= 0) {
                // until the server closes
            }
        } catch (java.net.SocketException reset) {
            // closed hard: the same outcome
        }
    }

    /** After a connection was refused, an OPTIONS over a new one is still answered. */
    private void assertStillServes(int port, String callId) throws Exception {
        String out = openssl(options(port, callId), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                "-CAfile", "ca.pem", "-brief");
        assertTrue(out.contains("SIP/2.0 200 OK"), "the listener still serves: " + out);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
