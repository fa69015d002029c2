package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.sipcrypt.server.testing.GoTlsClient;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * {@code tls.groups} against peers nobody here wrote: Go's {@code crypto/tls} negotiates the ML-KEM
 * hybrids with the bc engine (Go names the group it got; the server's {@code tls.handshakes{group}}
 * must name the same), {@code openssl s_client} (OpenSSL 3.0, no ML-KEM) gets X25519 or P-256 as
 * the server's order says on the bc engine and only the configured group on the openssl engine;
 * hybrids are refused at start on the engines without ML-KEM. One server per engine for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class TlsGroupsIT {

    /** The bc listener's groups: hybrids first, then P-256 before X25519. */
    private static final String BC_GROUPS = "x25519mlkem768,secp256r1mlkem768,secp384r1mlkem1024,secp256r1,x25519";

    @TempDir
    static Path dir;

    private Path certs;
    private GoTlsClient go;
    private TestServer bc;
    private TestServer openssl;

    @BeforeAll
    void start() throws Exception {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        go = GoTlsClient.build(java.nio.file.Files.createDirectories(dir.resolve("go")));
        bc = server("bc", "bc", BC_GROUPS);
        openssl = server("openssl", "openssl", "x25519");
    }

    @AfterAll
    void stop() {
        for (TestServer s : new TestServer[] {bc, openssl}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private TestServer server(String data, String engine, String groups) throws Exception {
        List<String> s = new ArrayList<>(List.of("listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.engine", engine));
        for (String g : groups.split(",")) {
            s.addAll(List.of("tls.groups", g));
        }
        return TestServer.start(dir.resolve(data), s.toArray(new String[0]));
    }

    private static int port(TestServer s) {
        return s.address(Transport.TLS).getPort();
    }

    private static long handshakes(TestServer s, String group) {
        return (long) s.server().transportCounters().value("tls.handshakes", "group", group);
    }

    @ParameterizedTest(name = "Go offering {0} gets {1}")
    @CsvSource({"'', X25519MLKEM768, x25519mlkem768", "4587, SecP256r1MLKEM768, secp256r1mlkem768",
        "4589, SecP384r1MLKEM1024, secp384r1mlkem1024", "29 4588, X25519MLKEM768, x25519mlkem768"})
    void goNegotiatesTheMlkemHybridsWithTheBcEngine(String offered, String goName, String ours) throws Exception {
        int[] groups = offered.isBlank() ? new int[0]
                : java.util.Arrays.stream(offered.trim().split(" ")).mapToInt(Integer::parseInt).toArray();
        long before = handshakes(bc, ours);
        String out = go.run(port(bc), certs.resolve("ca.pem"),
                TlsListenerContract.options(port(bc), "go-" + ours + "-" + groups.length), groups);
        assertTrue(out.startsWith("version=TLS 1.3 suite=TLS_AES_128_GCM_SHA256 group=" + goName + "\n"), out);
        assertTrue(out.contains("SIP/2.0 200 OK"), out);
        Await.until(() -> handshakes(bc, ours) == before + 1, Duration.ofSeconds(10), () -> bc.server().statsLine());
    }

    @Test
    void opensslGetsTheServersFirstGroupOnTheBcEngineOverTls13AndTls12() throws Exception {
        long p256 = handshakes(bc, "secp256r1");
        // X25519 first in the client's list and its key share, but the server's order puts P-256 first:
        // a HelloRetryRequest asks for P-256
        String v13 = OpenSslClient.run(certs, TlsListenerContract.options(port(bc), "groups-bc-13"), "SIP/2.0 200",
                "-connect", "127.0.0.1:" + port(bc), "-groups", "X25519:P-256", "-CAfile", "ca.pem",
                "-verify_return_error", "-brief");
        assertTrue(v13.contains("Protocol version: TLSv1.3") && v13.contains("Server Temp Key: ECDH, prime256v1"), v13);
        assertTrue(v13.contains("SIP/2.0 200 OK"), v13);
        Await.until(() -> handshakes(bc, "secp256r1") == p256 + 1, Duration.ofSeconds(10), () -> bc.server().statsLine());
        // TLS 1.2 ECDHE: the server's order too, though the client lists X25519 first
        long p256v12 = handshakes(bc, "secp256r1");
        String v12 = OpenSslClient.run(certs, TlsListenerContract.options(port(bc), "groups-bc-12"), "SIP/2.0 200",
                "-connect", "127.0.0.1:" + port(bc), "-tls1_2", "-groups", "X25519:P-256", "-CAfile", "ca.pem",
                "-verify_return_error", "-brief");
        assertTrue(v12.contains("Protocol version: TLSv1.2") && v12.contains("Server Temp Key: ECDH, prime256v1"), v12);
        assertTrue(v12.contains("SIP/2.0 200 OK"), v12);
        Await.until(() -> handshakes(bc, "secp256r1") == p256v12 + 1, Duration.ofSeconds(10), () -> bc.server().statsLine());
        // a client listing X25519 only still gets it: it is configured
        long x25519 = handshakes(bc, "x25519");
        String only = OpenSslClient.run(certs, TlsListenerContract.options(port(bc), "groups-bc-12b"), "SIP/2.0 200",
                "-connect", "127.0.0.1:" + port(bc), "-tls1_2", "-groups", "X25519", "-CAfile", "ca.pem",
                "-verify_return_error", "-brief");
        assertTrue(only.contains("Server Temp Key: X25519"), only);
        Await.until(() -> handshakes(bc, "x25519") == x25519 + 1, Duration.ofSeconds(10), () -> bc.server().statsLine());
    }

    @Test
    void theOpensslEngineOffersOnlyTheConfiguredGroup() throws Exception {
        String both = OpenSslClient.run(certs, TlsListenerContract.options(port(openssl), "groups-openssl-1"),
                "SIP/2.0 200", "-connect", "127.0.0.1:" + port(openssl), "-groups", "P-256:X25519", "-CAfile", "ca.pem",
                "-verify_return_error", "-brief");
        assertTrue(both.contains("Server Temp Key: X25519"), both);
        assertTrue(both.contains("SIP/2.0 200 OK"), both);
        String p256Only = OpenSslClient.run(certs, TlsListenerContract.options(port(openssl), "groups-openssl-2"), null,
                "-connect", "127.0.0.1:" + port(openssl), "-groups", "P-256", "-CAfile", "ca.pem", "-brief");
        assertFalse(p256Only.contains("CONNECTION ESTABLISHED"), p256Only);
        assertTrue(p256Only.contains("alert handshake failure") || p256Only.contains("handshake failure"), p256Only);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"jsse", "openssl"})
    void mlkemHybridsAreRefusedAtStartOnEnginesWithoutMlkem(String engine) {
        Exception e = assertThrows(Exception.class, () -> server("refused-" + engine, engine, "x25519mlkem768,x25519"));
        assertTrue(String.valueOf(e.getMessage()).contains("tls.groups: x25519mlkem768 runs on the bc TLS engine, not on "
                + engine), String.valueOf(e.getMessage()));
    }

    @Test
    void unknownGroupsAreRefusedAtStart() {
        Exception e = assertThrows(Exception.class, () -> server("refused-unknown", "bc", "x448"));
        assertTrue(String.valueOf(e.getMessage()).contains("tls.groups: \"x448\" is not a key-exchange group"),
                String.valueOf(e.getMessage()));
    }
}
