package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.HttpProbe;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.RevokingCa;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.tls.LabCertificates;
import org.sipcrypt.server.tls.PemFiles;

/**
 * Several domains on one tls listener, chosen by SNI, and certificates renewed without a restart,
 * on each TLS engine (bc, jsse, openssl), seen by {@code openssl s_client -servername}: each name
 * gets its domain's certificate, a wildcard covers one label, no server_name gets the default; an
 * unknown name gets the default (jsse) or an unrecognized_name alert ({@code tls.unknownServerName=refuse},
 * bc and openssl). A domain's files replaced on disk and {@code POST /admin/tls/reload}: the next
 * connection gets the new certificate while a connection opened before (the JDK's SSLSocket) still
 * has OPTIONS answered; a reload with a key that is not the certificate's is refused and counted,
 * the certificate presented stays. Per-domain handshake settings, seen by {@code openssl s_client}: a
 * domain's own {@code ciphers} (a.example.test: AES, b.example.test: ChaCha20 for TLS 1.2) are the only
 * TLS 1.2 suites its name gets; a domain with {@code clientAuth=need} (c.example.test) refuses a client
 * without a certificate while no name (the listener's {@code clientAuth=none}) is answered. The trust
 * file ({@code tls.trust}) replaced on disk and reloaded: a client certificate of the new CA is
 * accepted on the next connection, one of the CA taken out refused. With {@code tls.revocation crl}
 * (soft failure, so the CAs without a list pass): a trust file and a CRL reloaded together still check
 * the client certificates of a domain with its own policy for revocation, a certificate the new list
 * revokes is refused, and a bad CRL keeps both the lists and the anchors of before. One server per
 * engine for the class; the cases run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class TlsDomainsAndReloadIT {

    private static final String TOKEN = "sni-reload-admin-token-0123456789abcdef";
    private static final Pattern ISSUER = Pattern.compile("(?m)^issuer=\\s*(.*)$");
    private static final Pattern SUBJECT = Pattern.compile("(?m)^subject=\\s*(.*)$");

    @TempDir
    static Path dir;

    private LabCertificates first;
    private LabCertificates renewal;
    private LabCertificates clientsBefore;
    private LabCertificates clientsAfter;
    private RevokingCa revoking;
    private X509Certificate revocable;
    private final Map<String, TestServer> servers = new HashMap<>();
    private final Map<String, SipSocket> before = new HashMap<>();
    private SSLContext jdkClient;

    @BeforeAll
    void start() throws Exception {
        first = LabCertificates.create("sni first CA", LabCertificates.KeyType.ECDSA, 2048, Duration.ofDays(2));
        renewal = LabCertificates.create("sni renewal CA", LabCertificates.KeyType.ECDSA, 2048, Duration.ofDays(2));
        Path cas = dir.resolve("cas.pem");
        PemFiles.writeCertificates(cas, List.of(first.caCertificate(), renewal.caCertificate()));
        jdkClient = trusting(first.caCertificate(), renewal.caCertificate());
        clientsBefore = LabCertificates.create("clients before", LabCertificates.KeyType.ECDSA, 2048, Duration.ofDays(2));
        clientsAfter = LabCertificates.create("clients after", LabCertificates.KeyType.ECDSA, 2048, Duration.ofDays(2));
        client(clientsBefore, "client-before");
        client(clientsAfter, "client-after");
        revoking = RevokingCa.create("clients revoking CA");
        revocable = revoking.client("client revocable", dir, "client-revocable");
        for (String engine : List.of("bc", "jsse", "openssl")) {
            Path certs = Files.createDirectories(dir.resolve(engine));
            issue(first, certs, "default", "127.0.0.1");
            issue(first, certs, "a", "a.example.test");
            issue(first, certs, "b", "b.example.test");
            issue(first, certs, "c", "c.example.test");
            issue(first, certs, "wild", "*.wild.example.test");
            PemFiles.writeCertificates(certs.resolve("trust.pem"), List.of(clientsBefore.caCertificate()));
            RevokingCa.writePem(certs.resolve("clients.crl"), revoking.crl(List.of(), Duration.ofHours(1)));
            servers.put(engine, TestServer.start(dir.resolve(engine + "-data"), "listen", "tls:127.0.0.1:0",
                    "tls.engine", engine, "tls.cert", certs.resolve("default.pem").toString(),
                    "tls.key", certs.resolve("default.key").toString(),
                    "tls.ciphers", "aes", "tls.ciphers", "chacha20",
                    "tls.trust", certs.resolve("trust.pem").toString(),
                    "tls.revocation", "crl", "tls.crl", certs.resolve("clients.crl").toString(),
                    // the three TLS 1.3 suites in each (BoringSSL offers all three whatever the list);
                    // TLS 1.2: AES only for a, ChaCha20 only for b
                    "tls.domain", domain("a.example.test", certs, "a") + ";ciphers=aes+TLS_CHACHA20_POLY1305_SHA256",
                    "tls.domain", domain("b.example.test", certs, "b")
                            + ";ciphers=chacha20+TLS_AES_128_GCM_SHA256+TLS_AES_256_GCM_SHA384",
                    "tls.domain", domain("c.example.test", certs, "c") + ";clientAuth=need",
                    "tls.domain", domain("*.wild.example.test", certs, "wild"),
                    "tls.unknownServerName", engine.equals("jsse") ? "default" : "refuse",
                    "http", "127.0.0.1:0", "admin.token", TOKEN));
        }
    }

    @AfterAll
    void stop() throws Exception {
        for (SipSocket s : before.values()) {
            s.close();
        }
        servers.values().forEach(TestServer::close);
    }

    private static void issue(LabCertificates ca, Path certs, String file, String name) throws Exception {
        LabCertificates.Issued issued = ca.server(List.of(name));
        Path pem = certs.resolve(file + ".pem.new");
        Path key = certs.resolve(file + ".key.new");
        Files.deleteIfExists(pem);
        Files.deleteIfExists(key);
        PemFiles.writeCertificates(pem, List.of(issued.certificate()));
        PemFiles.writePrivateKey(key, issued.keys().getPrivate());
        // as a renewal tool does: each file replaced whole, never half written
        Files.move(pem, certs.resolve(file + ".pem"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(key, certs.resolve(file + ".key"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** A client certificate and key, {@code FILE.pem} and {@code FILE.key} in the class's directory. */
    private static void client(LabCertificates ca, String file) throws Exception {
        LabCertificates.Issued issued = ca.client(file, List.of(file + ".example.test"));
        PemFiles.writeCertificates(dir.resolve(file + ".pem"), List.of(issued.certificate()));
        PemFiles.writePrivateKey(dir.resolve(file + ".key"), issued.keys().getPrivate());
    }

    private static String domain(String name, Path certs, String file) {
        return name + ";cert=" + certs.resolve(file + ".pem") + ";key=" + certs.resolve(file + ".key");
    }

    private static SSLContext trusting(X509Certificate... cas) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        for (int i = 0; i < cas.length; i++) {
            ts.setCertificateEntry("ca" + i, cas[i]);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private int port(String engine) {
        return servers.get(engine).address(Transport.TLS).getPort();
    }

    /** {@code openssl s_client} with that server_name (none when null): its output once OPTIONS is answered or it ends. */
    private String connect(String engine, String serverName, String callId, String... more) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("-connect", "127.0.0.1:" + port(engine),
                "-CAfile", "cas.pem", "-verify_return_error"));
        args.addAll(List.of(more));
        if (serverName == null) {
            args.add("-noservername");
        } else {
            args.addAll(List.of("-servername", serverName));
        }
        return OpenSslClient.run(dir, TlsListenerContract.options(port(engine), callId), "SIP/2.0 200",
                args.toArray(new String[0]));
    }

    /** The common name of the peer certificate's subject, and of its issuer, as s_client prints them. */
    private static String[] subjectAndIssuer(String out) {
        Matcher s = SUBJECT.matcher(out);
        Matcher i = ISSUER.matcher(out);
        assertTrue(s.find() && i.find(), out);
        return new String[] {s.group(1).replace(" ", ""), i.group(1).replace(" ", "")};
    }

    private static String assertAnswered(String out) {
        assertTrue(out.contains("SIP/2.0 200"), out);
        return out;
    }

    @Order(1)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void eachNameGetsItsDomainsCertificateAndNoNameTheDefault(String engine) throws Exception {
        assertEquals("CN=a.example.test", subjectAndIssuer(assertAnswered(connect(engine, "a.example.test", "sni-a-" + engine)))[0]);
        assertEquals("CN=b.example.test", subjectAndIssuer(assertAnswered(connect(engine, "B.Example.Test", "sni-b-" + engine)))[0]);
        assertEquals("CN=*.wild.example.test",
                subjectAndIssuer(assertAnswered(connect(engine, "x.wild.example.test", "sni-w-" + engine)))[0]);
        assertEquals("CN=127.0.0.1", subjectAndIssuer(assertAnswered(connect(engine, null, "sni-none-" + engine)))[0]);
    }

    @Order(2)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void unknownNameGetsTheDefaultOrIsRefusedAsConfigured(String engine) throws Exception {
        TestServer server = servers.get(engine);
        double refusedBefore = server.server().transportCounters().value("tls.handshakes.failed", "reason",
                "unrecognized_name");
        String out = connect(engine, "nobody.example.test", "sni-unknown-" + engine);
        if (engine.equals("jsse")) {
            assertEquals("CN=127.0.0.1", subjectAndIssuer(assertAnswered(out))[0]);
            return;
        }
        assertFalse(out.contains("SIP/2.0 200"), out);
        assertTrue(out.toLowerCase(java.util.Locale.ROOT).contains("unrecognized name"), out);
        org.sipcrypt.server.testing.Await.until(() -> server.server().transportCounters().value(
                "tls.handshakes.failed", "reason", "unrecognized_name") > refusedBefore, Duration.ofSeconds(10),
                () -> server.server().statsLine());
    }

    @Order(3)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void renewedCertificateIsServedToTheNextConnectionWhileAnOlderOneGoesOn(String engine) throws Exception {
        TestServer server = servers.get(engine);
        int port = port(engine);
        SipSocket older = SipSocket.tls(server.address(Transport.TLS), jdkClient);
        before.put(engine, older);
        assertTrue(older.exchange(TlsListenerContract.options(port, "older-1-" + engine), "SIP/2.0 200",
                Duration.ofSeconds(20)).startsWith("SIP/2.0 200"));
        double notAfterBefore = notAfter(server, "a.example.test");

        issue(renewal, dir.resolve(engine), "a", "a.example.test");
        HttpProbe.Answer reload = reload(server);
        assertEquals(200, reload.status(), reload.body());
        assertTrue(reload.json().get("reloaded").asBoolean(), reload.body());

        String[] seen = subjectAndIssuer(assertAnswered(connect(engine, "a.example.test", "renewed-" + engine)));
        assertEquals("CN=a.example.test", seen[0]);
        assertEquals("CN=snirenewalCA", seen[1], "the renewed certificate, by its issuer");
        assertEquals("CN=snifirstCA", subjectAndIssuer(connect(engine, "b.example.test", "kept-" + engine))[1],
                "the other domains as they were");
        assertTrue(older.exchange(TlsListenerContract.options(port, "older-2-" + engine), "SIP/2.0 200",
                Duration.ofSeconds(20)).startsWith("SIP/2.0 200"), "the connection opened before goes on");
        assertTrue(notAfter(server, "a.example.test") >= notAfterBefore, "the gauge follows the renewed certificate");
        assertEquals(1.0, counter(server, "ok"));
    }

    @Order(4)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void reloadWithAKeyOfAnotherCertificateIsRefusedAndTheOldOneStays(String engine) throws Exception {
        TestServer server = servers.get(engine);
        Path certs = dir.resolve(engine);
        LabCertificates.Issued stranger = first.server(List.of("a.example.test"));
        PrivateKey otherKey = first.server(List.of("other.example.test")).keys().getPrivate();
        Path pem = certs.resolve("a.pem.bad");
        Path key = certs.resolve("a.key.bad");
        PemFiles.writeCertificates(pem, List.of(stranger.certificate()));
        PemFiles.writePrivateKey(key, otherKey);
        Files.move(pem, certs.resolve("a.pem"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(key, certs.resolve("a.key"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        HttpProbe.Answer reload = reload(server);
        assertEquals(409, reload.status(), reload.body());
        assertTrue(reload.json().get("reason").asText().contains("tls.domain a.example.test"), reload.body());
        assertEquals(1.0, counter(server, "failed"));
        assertEquals("CN=snirenewalCA", subjectAndIssuer(assertAnswered(connect(engine, "a.example.test",
                "after-bad-" + engine)))[1], "the certificate presented before the bad reload");
    }

    @Order(5)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void eachDomainOffersOnlyItsOwnSuites(String engine) throws Exception {
        String aes = "ECDHE-ECDSA-AES128-GCM-SHA256";
        String chacha = "ECDHE-ECDSA-CHACHA20-POLY1305";
        assertTrue(assertAnswered(connect(engine, "a.example.test", "suite-a-aes-" + engine, "-tls1_2", "-cipher", aes))
                .contains(aes), "a.example.test offers AES");
        assertFalse(connect(engine, "a.example.test", "suite-a-chacha-" + engine, "-tls1_2", "-cipher", chacha)
                .contains("SIP/2.0 200"), "a.example.test does not offer ChaCha20");
        assertTrue(assertAnswered(connect(engine, "b.example.test", "suite-b-chacha-" + engine, "-tls1_2", "-cipher",
                chacha)).contains(chacha), "b.example.test offers ChaCha20");
        assertFalse(connect(engine, "b.example.test", "suite-b-aes-" + engine, "-tls1_2", "-cipher", aes)
                .contains("SIP/2.0 200"), "b.example.test does not offer AES");
        assertTrue(assertAnswered(connect(engine, null, "suite-none-" + engine, "-tls1_2", "-cipher", chacha))
                .contains(chacha), "no name: the listener's suites, ChaCha20 among them");
    }

    @Order(6)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void aDomainThatNeedsAClientCertificateRefusesAClientWithoutOne(String engine) throws Exception {
        assertFalse(connect(engine, "c.example.test", "need-none-" + engine).contains("SIP/2.0 200"),
                "c.example.test without a client certificate");
        assertAnswered(connect(engine, "c.example.test", "need-cert-" + engine, "-cert", "client-before.pem",
                "-key", "client-before.key"));
        assertAnswered(connect(engine, null, "need-default-" + engine));

        // a session granted for a.example.test resumes there, and never lets a client without a
        // certificate into c.example.test
        String session = "session-" + engine + ".pem";
        assertAnswered(connect(engine, "a.example.test", "resume-1-" + engine, "-tls1_2", "-sess_out", session));
        assertTrue(assertAnswered(connect(engine, "a.example.test", "resume-2-" + engine, "-tls1_2", "-sess_in",
                session)).contains("Reused,"), "resumed under the name that granted it");
        assertFalse(connect(engine, "c.example.test", "resume-c-" + engine, "-tls1_2", "-sess_in", session)
                .contains("SIP/2.0 200"), "c.example.test still needs a client certificate");
    }

    @Order(7)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void aReplacedTrustFileDecidesTheNextConnectionsClientCertificates(String engine) throws Exception {
        TestServer server = servers.get(engine);
        Path certs = dir.resolve(engine);
        // the pair the bad reload of case 4 left is put right first: a reload reads every file
        issue(renewal, certs, "a", "a.example.test");
        assertFalse(connect(engine, "c.example.test", "trust-new-before-" + engine, "-cert", "client-after.pem",
                "-key", "client-after.key").contains("SIP/2.0 200"), "the new CA is not trusted yet");

        Path next = certs.resolve("trust.pem.new");
        PemFiles.writeCertificates(next, List.of(clientsAfter.caCertificate()));
        Files.move(next, certs.resolve("trust.pem"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        HttpProbe.Answer reload = reload(server);
        assertEquals(200, reload.status(), reload.body());

        assertAnswered(connect(engine, "c.example.test", "trust-new-" + engine, "-cert", "client-after.pem",
                "-key", "client-after.key"));
        assertFalse(connect(engine, "c.example.test", "trust-old-" + engine, "-cert", "client-before.pem",
                "-key", "client-before.key").contains("SIP/2.0 200"), "the CA taken out is no longer trusted");

        Files.writeString(next, "not a certificate\n");
        Files.move(next, certs.resolve("trust.pem"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        double failedBefore = counter(server, "failed");
        reload = reload(server);
        assertEquals(409, reload.status(), reload.body());
        assertTrue(reload.json().get("reason").asText().contains("tls.trust"), reload.body());
        assertEquals(failedBefore + 1, counter(server, "failed"));
        assertAnswered(connect(engine, "c.example.test", "trust-kept-" + engine, "-cert", "client-after.pem",
                "-key", "client-after.key"));
    }

    @Order(8)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse", "openssl"})
    void aReloadedTrustFileAndCrlStillCheckADomainsClientCertificatesForRevocation(String engine) throws Exception {
        TestServer server = servers.get(engine);
        Path certs = dir.resolve(engine);
        // the bad trust file case 7 left is replaced: the clients' CA of case 7 and the revoking CA
        replace(certs.resolve("trust.pem"), List.of(clientsAfter.caCertificate(), revoking.certificate()));
        HttpProbe.Answer reload = reload(server);
        assertEquals(200, reload.status(), reload.body());
        assertAnswered(connect(engine, "c.example.test", "crl-before-" + engine, "-tls1_2",
                "-cert", "client-revocable.pem", "-key", "client-revocable-key.pem"));

        RevokingCa.writePem(certs.resolve("clients.crl"), revoking.crl(List.of(revocable), Duration.ofHours(1)));
        reload = reload(server);
        assertEquals(200, reload.status(), reload.body());
        double revokedBefore = revocationChecks(server, "revoked");
        assertFalse(connect(engine, "c.example.test", "crl-revoked-" + engine, "-tls1_2",
                "-cert", "client-revocable.pem", "-key", "client-revocable-key.pem").contains("SIP/2.0 200"),
                "revoked by the reloaded list on c.example.test's own context");
        org.sipcrypt.server.testing.Await.until(() -> revocationChecks(server, "revoked") > revokedBefore,
                Duration.ofSeconds(10), () -> server.server().statsLine());
        assertAnswered(connect(engine, "c.example.test", "crl-other-" + engine, "-cert", "client-after.pem",
                "-key", "client-after.key"));

        // a bad CRL beside a trust file without the clients' CA: neither is taken, the stage stays whole
        replace(certs.resolve("trust.pem"), List.of(revoking.certificate()));
        Path bad = certs.resolve("clients.crl.bad");
        Files.writeString(bad, "-----BEGIN X509 CRL-----\nbm90IGEgQ1JM\n-----END X509 CRL-----\n");
        Files.move(bad, certs.resolve("clients.crl"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        reload = reload(server);
        assertEquals(409, reload.status(), reload.body());
        assertTrue(reload.json().get("reason").asText().contains("tls.crl"), reload.body());
        assertAnswered(connect(engine, "c.example.test", "crl-kept-anchors-" + engine, "-cert", "client-after.pem",
                "-key", "client-after.key"));
        assertFalse(connect(engine, "c.example.test", "crl-kept-list-" + engine, "-tls1_2",
                "-cert", "client-revocable.pem", "-key", "client-revocable-key.pem").contains("SIP/2.0 200"),
                "the list of before still revokes it");
    }

    /** Replaces {@code file} whole with these certificates, as an operator does. */
    private static void replace(Path file, List<X509Certificate> certificates) throws Exception {
        Path next = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(next);
        PemFiles.writeCertificates(next, certificates);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static double revocationChecks(TestServer server, String result) {
        var c = server.server().registry().find("tls.revocation.checks").tag("result", result).functionCounter();
        return c == null ? 0 : c.count();
    }

    private static HttpProbe.Answer reload(TestServer server) throws Exception {
        return HttpProbe.request(httpUrl(server, "/admin/tls/reload"), "POST",
                Map.of("Authorization", "Bearer " + TOKEN, "Content-Length", "0"));
    }

    private static URI httpUrl(TestServer server, String path) {
        java.net.InetSocketAddress a = server.server().httpAddress();
        assertNotNull(a, "http listener bound");
        return URI.create("http://127.0.0.1:" + a.getPort() + path);
    }

    private static double counter(TestServer server, String result) {
        return server.server().transportCounters().value("tls.reloads", "result", result);
    }

    /** {@code tls.certificate.not.after{domain}} as {@code /metrics} shows it. */
    private static double notAfter(TestServer server, String domain) throws Exception {
        HttpProbe.Answer metrics = HttpProbe.get(httpUrl(server, "/metrics"));
        Map<String, Double> samples = HttpProbe.samples(metrics.body(), new HashMap<>());
        Double v = samples.get("sipcrypt_tls_certificate_not_after_seconds{domain=" + domain + "}");
        assertNotNull(v, "tls_certificate_not_after_seconds for " + domain + " in " + samples.keySet());
        return v;
    }
}
