package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * The {@code chacha20} provider on the jsse and bc engines against the JDK's SunJSSE client
 * offering one suite: {@code TLS_CHACHA20_POLY1305_SHA256} on TLS 1.3 and
 * {@code TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256} on TLS 1.2, each carrying an OPTIONS and its
 * 200, and counted under that suite. One server per engine for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class ChaCha20TlsIT {

    @TempDir
    static Path dir;

    private Path certs;
    private final Map<String, TestServer> servers = new HashMap<>();

    @BeforeAll
    void start() throws Exception {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        for (String engine : new String[] {"jsse", "bc"}) {
            servers.put(engine, TestServer.start(dir.resolve(engine), "listen", "udp:127.0.0.1:0", "listen",
                    "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.pem").toString(), "tls.key",
                    certs.resolve("server-key.pem").toString(), "tls.engine", engine, "tls.ciphers", "chacha20"));
        }
    }

    @AfterAll
    void stop() {
        servers.values().forEach(TestServer::close);
    }

    @ParameterizedTest(name = "{2} over {1} on {0}")
    @CsvSource({"jsse, TLSv1.3, TLS_CHACHA20_POLY1305_SHA256", "jsse, TLSv1.2, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "bc, TLSv1.3, TLS_CHACHA20_POLY1305_SHA256", "bc, TLSv1.2, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"})
    void theJdkClientNegotiatesChaCha20(String engine, String version, String suite) throws Exception {
        TestServer server = servers.get(engine);
        int port = server.address(Transport.TLS).getPort();
        double before = server.server().transportCounters().value("tls.handshakes", "suite", suite);
        SSLContext ctx = TestPki.sslContext(certs, null, null);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setEnabledProtocols(new String[] {version});
            s.setEnabledCipherSuites(new String[] {suite});
            s.setSoTimeout(10_000);
            s.getOutputStream().write(TlsListenerContract.options(port, "chacha-" + engine + "-" + version)
                    .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            StringBuilder got = new StringBuilder();
            byte[] buf = new byte[4096];
            while (!got.toString().contains("\r\n\r\n")) {
                int n = s.getInputStream().read(buf);
                if (n < 0) {
                    break;
                }
                got.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
            }
            assertEquals(version + " " + suite, s.getSession().getProtocol() + " " + s.getSession().getCipherSuite());
            assertTrue(got.toString().startsWith("SIP/2.0 200 OK"), got.toString());
        }
        Await.until(() -> server.server().transportCounters().value("tls.handshakes", "suite", suite) == before + 1,
                Duration.ofSeconds(10), () -> server.server().statsLine());
    }
}
