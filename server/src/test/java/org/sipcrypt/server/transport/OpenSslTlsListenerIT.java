package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;

/**
 * The tls listener on the openssl engine (Netty's OpenSslEngine on BoringSSL): besides what every
 * engine must do, each BoringSSL suite of the aes provider forced as the only one, the JDK's TLS on
 * 1.2 and 1.3, Go's crypto/tls, TLS 1.3 resumption from a ticket, ChaCha20 on TLS 1.3 (BoringSSL's
 * TLS 1.3 suites are fixed), and a server that cannot load BoringSSL refusing to start with
 * {@code tls.engine openssl}.
 */
class OpenSslTlsListenerIT extends TlsListenerContract {

    @Override
    String engine() {
        return "openssl";
    }

    /** BoringSSL picks the TLS 1.3 suite by the client's order; OpenSSL's client lists AES-256 first. */
    @Override
    String defaultTls13Suite() {
        return "TLS_AES_256_GCM_SHA384";
    }

    /**
     * BoringSSL never renegotiates: it answers the new ClientHello with a no_renegotiation alert and
     * does no second handshake; the client, refused, closes the connection.
     */
    @Override
    void assertRenegotiationRefused(TestServer server, String out) {
        assertTrue(out.contains("no renegotiation"), out);
        Await.until(() -> server.server().transportCounters().value("transport.connections.closed", "reason",
                "peer_closed") == 1, Duration.ofSeconds(10), () -> server.server().statsLine() + "\n" + out);
        assertEquals(1, server.server().transportCounters().value("tls.handshakes", "kind", "full"),
                server.server().statsLine());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"AES128-SHA", "AES256-SHA", "AES128-GCM-SHA256", "AES256-GCM-SHA384",
        "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-GCM-SHA384"})
    void opensslForcedToOneTls12SuiteGetsOptionsAnswered(String suite) throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String out = openssl(options(port, "openssl-" + suite), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-cipher", suite, "-CAfile", "ca.pem", "-verify_return_error", "-brief");
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
            assertTrue(out.contains("Ciphersuite: " + suite), "negotiated suite: " + out);
        }
    }

    @Test
    void jdkClientsOnTls12AndTls13() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            var ctx = TestPki.sslContext(certs, null, null);
            String v12 = jdkOptions(ctx, port, "openssl-jdk-12", "TLSv1.2");
            assertTrue(v12.startsWith("TLSv1.2 TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256") && v12.contains("\nSIP/2.0 200 OK"),
                    v12);
            String v13 = jdkOptions(ctx, port, "openssl-jdk-13", "TLSv1.3");
            assertTrue(v13.startsWith("TLSv1.3 TLS_AES_") && v13.contains("\nSIP/2.0 200 OK"), v13);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", "full") >= 2,
                    Duration.ofSeconds(5), () -> server.server().statsLine());
            assertEquals(1, server.server().transportCounters().value("tls.handshakes", "suite",
                    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"), server.server().statsLine());
        }
    }

    @Test
    void tls13SessionsResumeFromTheTicketSentWithTheFirstAnswer() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String first = openssl(options(port, "ticket-1"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_3", "-CAfile", "ca.pem", "-sess_out", "tls13.session");
            assertTrue(first.contains("New, TLSv1.3") && first.contains("SIP/2.0 200 OK"), first);
            // BoringSSL sends its tickets with the server's first write: s_client has them once it has the answer
            Path session = certs.resolve("tls13.session");
            assertTrue(Files.exists(session) && Files.size(session) > 0, "a session was kept: " + first);
            String again = openssl(options(port, "ticket-2"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_3", "-CAfile", "ca.pem", "-sess_in", "tls13.session");
            assertTrue(again.contains("Reused, TLSv1.3") && again.contains("SIP/2.0 200 OK"), again);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", "resumed") == 1,
                    Duration.ofSeconds(5), () -> server.server().statsLine());
        }
    }

    @Test
    void chaCha20IsServedOnTls13ThoughNoProviderListsIt() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String out = openssl(options(port, "chacha"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port, "-tls1_3",
                    "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256", "-CAfile", "ca.pem", "-brief");
            assertTrue(out.contains("SIP/2.0 200 OK") && out.contains("Ciphersuite: TLS_CHACHA20_POLY1305_SHA256"), out);
        }
    }

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void goCryptoTlsOnTls12AndTls13GetsOptionsAnswered() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            Path request = certs.resolve("options.txt");
            for (String version : List.of("1.2", "1.3")) {
                Files.writeString(request, options(port, "go-" + version), StandardCharsets.US_ASCII);
                String out = goProbe("-addr", "127.0.0.1:" + port, "-ca", certs.resolve("ca.pem").toString(),
                        "-version", version, "-request", request.toString());
                assertTrue(out.startsWith("TLS " + version + " TLS_") && out.contains("\nSIP/2.0 200 OK"), out);
            }
        }
    }

    /**
     * Runs the Go probe under {@code src/test/resources/go/tlsprobe} with {@code go run}: standard
     * library only, no network ({@code GOPROXY=off}). Its first build compiles crypto/tls into the
     * Go build cache, which takes minutes on a busy machine; later runs take about a second.
     */
    private static String goProbe(String... args) throws Exception {
        Path dir;
        try {
            dir = Path.of(OpenSslTlsListenerIT.class.getResource("/go/tlsprobe/main.go").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> cmd = new ArrayList<>(List.of("go", "run", "."));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("GOFLAGS", "-mod=mod");
        pb.environment().put("GOPROXY", "off");
        pb.environment().put("GOTOOLCHAIN", "local");
        Process p;
        try {
            p = pb.start();
        } catch (java.io.IOException e) {
            throw new AssertionError("Go is needed for this test (go on the PATH, "
                    + "https://go.dev/doc/install)", e);
        }
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(11, TimeUnit.MINUTES), "go run ended");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    @Test
    void aServerThatCannotLoadBoringSslRefusesToStartNamingTheCause() throws Exception {
        // a JVM of its own: Netty reads this switch once, when it first looks for BoringSSL
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(java, "-Dio.netty.handler.ssl.noOpenSsl=true", "-cp",
                System.getProperty("java.class.path"), "org.sipcrypt.server.ServerMain",
                "--listen", "tls:127.0.0.1:0", "--tls-cert", certs.resolve("server.pem").toString(),
                "--tls-key", certs.resolve("server-key.pem").toString(), "--tls-engine", "openssl",
                "--data-dir", dir.resolve("refused").toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server gave up by itself");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), text);
        List<String> errors = text.lines().filter(l -> l.contains("ERROR")).toList();
        assertEquals(1, errors.size(), text);
        assertTrue(errors.get(0).contains("cannot start: TLS: tls.engine openssl cannot run here: BoringSSL"
                + " (netty-tcnative-boringssl-static, linux-x86_64) did not load") && errors.get(0).contains("noOpenSsl"),
                errors.get(0));
        assertTrue(!text.contains("\tat "), "no stack trace at the default level: " + text);
    }
}
