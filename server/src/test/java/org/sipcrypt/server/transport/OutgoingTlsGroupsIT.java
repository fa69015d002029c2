package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * {@code tls.groups} on the proxy's outgoing TLS (the bc engine as a TLS client): an OPTIONS sent
 * to the server over UDP for {@code sip:bob@127.0.0.1:PORT;transport=tls} is forwarded over TLS to
 * {@code openssl s_server}, which prints the groups the client offered and shared, then the
 * request. The server offers only the configured groups, in that order, and reaches a peer that
 * asks for a group other than its first key share (a HelloRetryRequest).
 */
@Timeout(120)
class OutgoingTlsGroupsIT {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} to a peer of {1}")
    @CsvSource({"secp384r1, P-384, secp384r1, secp384r1", "x25519:secp256r1, P-256, x25519:secp256r1, secp256r1"})
    void theBcClientOffersTheConfiguredGroups(String groups, String peerGroups, String offered, String shared)
            throws Exception {
        Path certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Process peer = OpenSslClient.start(certs, List.of("openssl", "s_server", "-accept", "127.0.0.1:" + port,
                "-cert", "server.pem", "-key", "server-key.pem", "-groups", peerGroups, "-tls1_3"));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Thread copier = new Thread(() -> copy(peer.getInputStream(), printed), "s_server-output");
        copier.start();
        try {
            Await.until(() -> text(printed).contains("ACCEPT"), Duration.ofSeconds(20), () -> text(printed));
            // a tls listener gives the proxy its TLS transport for sending, as in any deployment
            String[] settings = {"listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0", "tls.cert",
                certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.engine", "bc", "tls.trust", certs.resolve("ca.pem").toString()};
            List<String> s = new java.util.ArrayList<>(List.of(settings));
            for (String g : groups.split(":")) {
                s.addAll(List.of("tls.groups", g));
            }
            try (TestServer server = TestServer.start(dir.resolve("data"), s.toArray(new String[0]));
                 SipSocket uac = SipSocket.udp(server.address(Transport.UDP))) {
                uac.send(uac.request("OPTIONS", "sip:bob@127.0.0.1:" + port + ";transport=tls", "alice", "bob",
                        "out-groups-" + peerGroups, 1, ""));
                Await.until(() -> text(printed).contains("OPTIONS sip:bob@127.0.0.1:" + port), Duration.ofSeconds(20),
                        () -> text(printed));
                String out = text(printed);
                assertTrue(out.contains("Supported groups: " + offered + "\n"), out);
                assertTrue(out.contains("Shared groups: " + shared + "\n"), out);
                peer.destroy();
                peer.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            peer.destroyForcibly();
            peer.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try (in) {
            byte[] buf = new byte[4096];
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                synchronized (out) {
                    out.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // the process ended: its output ends here
        }
    }

    private static String text(ByteArrayOutputStream out) {
        synchronized (out) {
            return out.toString(StandardCharsets.US_ASCII);
        }
    }
}
