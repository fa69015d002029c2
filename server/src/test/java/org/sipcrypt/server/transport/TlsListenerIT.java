package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * The tls listener on the jsse engine, against peers nobody here wrote: Debian's
 * {@code openssl s_client} and the JDK's own {@code SSLSocket}; and bad input on it.
 */
@Timeout(90)
class TlsListenerIT {

    @TempDir
    Path dir;

    private Path certs;

    @BeforeEach
    void makeCertificates() {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
    }

    private TestServer start(String... extra) throws Exception {
        List<String> s = new ArrayList<>(List.of("listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString()));
        s.addAll(List.of(extra));
        return TestServer.start(dir.resolve("data"), s.toArray(new String[0]));
    }

    private static String options(int port, String callId) {
        return "OPTIONS sip:127.0.0.1:" + port + ";transport=tls SIP/2.0\r\n"
                + "Via: SIP/2.0/TLS 127.0.0.1:5999;branch=z9hG4bK-" + callId + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:tester@127.0.0.1>;tag=t1\r\n"
                + "To: <sip:127.0.0.1:" + port + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** Runs {@code openssl s_client}, sends {@code input}, and returns its output once it contains {@code until}. */
    private String openssl(String input, String until, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl", "s_client"));
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).directory(certs.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("openssl is needed for this test: apt-get install -y openssl", e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread copier = new Thread(() -> {
            try (InputStream o = p.getInputStream()) {
                byte[] buf = new byte[4096];
                int n;
                while ((n = o.read(buf)) >= 0) {
                    synchronized (out) {
                        out.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // the process was destroyed: its output ends here
            }
        }, "openssl-output");
        copier.start();
        try {
            OutputStream in = p.getOutputStream();
            in.write(input.getBytes(StandardCharsets.US_ASCII));
            in.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                synchronized (out) {
                    if (out.toString(StandardCharsets.US_ASCII).contains(until)) {
                        break;
                    }
                }
                if (!p.isAlive()) {
                    copier.join(2_000);
                    break;
                }
                Thread.sleep(20);
            }
            synchronized (out) {
                return out.toString(StandardCharsets.US_ASCII);
            }
        } finally {
            p.destroy();
            p.waitFor(5, TimeUnit.SECONDS);
        }
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
    void jdkClientWithTls13GetsOptionsAnswered() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            SSLContext ctx = TestPki.sslContext(certs, null, null);
            try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(options(port, "tls-jdk-1").getBytes(StandardCharsets.US_ASCII));
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
                assertTrue(got.toString().startsWith("SIP/2.0 200 OK"), got.toString());
                assertEquals("TLSv1.3", s.getSession().getProtocol());
            }
            Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", "full") >= 1,
                    Duration.ofSeconds(5), () -> "handshake counted");
        }
    }

    @Test
    void bytesThatAreNotTlsCloseOnlyThatConnection() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            try (Socket raw = new Socket()) {
                raw.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                raw.setSoTimeout(10_000);
                raw.getOutputStream().write(options(port, "plain-on-tls").getBytes(StandardCharsets.US_ASCII));
                raw.getOutputStream().flush();
                InputStream in = raw.getInputStream();
                int b;
                do {
                    b = in.read(); // an alert may come first; then the server closes
                } while (b >= 0);
            } catch (java.net.SocketException reset) {
                // closed hard: the same outcome
            }
            Await.until(() -> server.server().transportCounters().value("tls.handshakes.failed", "reason", "not_tls") >= 1,
                    Duration.ofSeconds(5), () -> "counted as not_tls");
            String out = openssl(options(port, "after-garbage"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-CAfile", "ca.pem", "-brief");
            assertTrue(out.contains("SIP/2.0 200 OK"), "the listener still serves: " + out);
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

    @Test
    void suitesTheJsseEngineCannotRunAreRefusedAtStart() {
        Map<String, List<String>> given = Map.of("listen", List.of("tls:127.0.0.1:0"),
                "tls.cert", List.of(certs.resolve("server.pem").toString()),
                "tls.key", List.of(certs.resolve("server-key.pem").toString()), "tls.ciphers", List.of("camellia"));
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(null, given));
        assertTrue(e.getMessage().startsWith("tls.ciphers: TLS_RSA_WITH_CAMELLIA_128_CBC_SHA (camellia) runs only on the bc"),
                e.getMessage());
        ConfigException noCert = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("listen", List.of("tls:127.0.0.1:0"))));
        assertTrue(noCert.getMessage().startsWith("tls.cert: needed by the tls listener"), noCert.getMessage());
        ConfigException rc4 = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("tls.ciphers", List.of("rc4"))));
        assertTrue(rc4.getMessage().contains("insecure"), rc4.getMessage());
    }
}
