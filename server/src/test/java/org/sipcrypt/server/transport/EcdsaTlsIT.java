package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * A tls listener with a P-256 key and certificate ({@code certs --key-type ecdsa}) on the bc and
 * openssl engines, against {@code openssl s_client}: ECDHE-ECDSA suites on TLS 1.2 (AES-GCM,
 * AES-CBC, ChaCha20, and Camellia on bc), TLS 1.3 signed with ecdsa_secp256r1_sha256, and no
 * ECDHE-RSA suite, which the key cannot sign for. One server per engine for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class EcdsaTlsIT {

    @TempDir
    static Path dir;

    private Path certs;
    private final Map<String, TestServer> servers = new java.util.HashMap<>();

    @BeforeAll
    void start() throws Exception {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString(), "--key-type", "ecdsa"));
        servers.put("bc", TestServer.start(dir.resolve("bc"), "listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.engine", "bc", "tls.ciphers", "aes", "tls.ciphers", "chacha20", "tls.ciphers", "camellia"));
        servers.put("openssl", TestServer.start(dir.resolve("openssl"), "listen", "udp:127.0.0.1:0", "listen",
                "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.pem").toString(), "tls.key",
                certs.resolve("server-key.pem").toString(), "tls.engine", "openssl", "tls.ciphers", "aes",
                "tls.ciphers", "chacha20"));
    }

    @AfterAll
    void stop() {
        servers.values().forEach(TestServer::close);
    }

    private int port(String engine) {
        return servers.get(engine).address(Transport.TLS).getPort();
    }

    private String openssl(String engine, String callId, String... args) throws Exception {
        String[] all = new String[args.length + 5];
        all[0] = "-connect";
        all[1] = "127.0.0.1:" + port(engine);
        all[2] = "-CAfile";
        all[3] = "ca.pem";
        all[4] = "-brief";
        System.arraycopy(args, 0, all, 5, args.length);
        return OpenSslClient.run(certs, TlsListenerContract.options(port(engine), callId), "SIP/2.0 200", all);
    }

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource({"bc, ECDHE-ECDSA-AES128-GCM-SHA256", "bc, ECDHE-ECDSA-AES256-SHA", "bc, ECDHE-ECDSA-CHACHA20-POLY1305",
        "bc, ECDHE-ECDSA-CAMELLIA128-SHA256", "openssl, ECDHE-ECDSA-AES128-GCM-SHA256", "openssl, ECDHE-ECDSA-AES256-SHA",
        "openssl, ECDHE-ECDSA-CHACHA20-POLY1305"})
    void tls12NegotiatesEcdheEcdsaSuites(String engine, String suite) throws Exception {
        String out = openssl(engine, "ecdsa-" + engine + "-" + suite, "-tls1_2", "-cipher", suite, "-verify_return_error");
        assertTrue(out.contains("Ciphersuite: " + suite) && out.contains("Signature type: ECDSA"), out);
        assertTrue(out.contains("SIP/2.0 200 OK"), out);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"bc", "openssl"})
    void tls13IsSignedWithEcdsaSecp256r1Sha256(String engine) throws Exception {
        double before = servers.get(engine).server().transportCounters().value("tls.handshakes", "kind", "full");
        String out = openssl(engine, "ecdsa-13-" + engine, "-tls1_3", "-sigalgs", "ecdsa_secp256r1_sha256:rsa_pss_rsae_sha256",
                "-verify_return_error");
        assertTrue(out.contains("Protocol version: TLSv1.3") && out.contains("Signature type: ECDSA")
                && out.contains("Hash used: SHA256"), out);
        assertTrue(out.contains("SIP/2.0 200 OK"), out);
        Await.until(() -> servers.get(engine).server().transportCounters().value("tls.handshakes", "kind", "full")
                > before, Duration.ofSeconds(10), () -> servers.get(engine).server().statsLine());
    }

    @Test
    void anEcdheRsaOnlyClientFindsNoSuiteOnTheBcEngine() throws Exception {
        String out = OpenSslClient.run(certs, TlsListenerContract.options(port("bc"), "ecdsa-rsa-only"), null,
                "-connect", "127.0.0.1:" + port("bc"), "-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256",
                "-CAfile", "ca.pem", "-brief");
        assertFalse(out.contains("CONNECTION ESTABLISHED"), out);
        assertTrue(out.contains("handshake failure"), out);
    }
}
