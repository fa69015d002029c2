package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.IdleConnectionProbe;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * TCP floods on loopback: one source beyond its connection cap, a slowloris sender, connections
 * that never send a message, and many incomplete messages beyond the global bound; and the idle TCP
 * and TLS connections of scenarios/idle/idle-connections.sh held below a per-source cap. Each case uses a tiny
 * configured bound; the waits for the server to act are generous, and nothing is asserted about
 * what does not happen within a short time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpFloodIT {

    /** Long enough for the busiest CI machine; each wait ends as soon as its event is seen. */
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A deadline no test reaches: switches off the limits a test does not exercise. */
    private static final String NEVER = "10m";

    @TempDir
    Path dir;

    private static double closed(TestServer server, String reason) {
        return server.server().transportCounters().value("transport.connections.closed", "reason", reason);
    }

    private static void awaitClosed(TestServer server, String reason, double expected) {
        Await.until(() -> closed(server, reason) == expected, WAIT,
                () -> "closed{reason=" + reason + "} = " + closed(server, reason) + "; " + server.server().statsLine());
    }

    private static double partialBytes(TestServer server) {
        Gauge g = server.server().transportCounters().registry().find("transport.partial.bytes").gauge();
        return g == null ? -1 : g.value();
    }

    private static String options(SipSocket s, TestServer server, String callId, int cseq) {
        String hp = server.hostPort(Transport.TCP);
        return s.request("OPTIONS", "sip:" + hp, "probe", hp, callId, cseq, "");
    }

    private static void assertAnswered(SipSocket s, TestServer server, String callId, int cseq) throws IOException {
        s.send(options(s, server, callId, cseq));
        String answer = s.awaitMessage("SIP/2.0 200", WAIT);
        assertNotNull(answer, "no 200 to OPTIONS " + callId + " from " + s.localHost());
        assertTrue(answer.contains("Call-ID: " + callId), answer);
    }

    /** Whether the server closed or reset the connection within the wait. */
    private static boolean closedByServer(Socket s, Duration within) throws IOException {
        s.setSoTimeout((int) within.toMillis());
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void oneSourceBeyondItsCapIsResetWhileAnotherSourceIsServed() throws Exception {
        int cap = 20;
        int extra = 5;
        try (TestServer server = TestServer.start(dir, "tcp.maxConnectionsPerSource", String.valueOf(cap),
                "tcp.firstMessageTimeout", NEVER)) {
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < cap; i++) {
                    Socket s = new Socket(InetAddress.getByName("127.0.0.1"), server.address(Transport.TCP).getPort());
                    flood.add(s);
                }
                Await.until(() -> server.server().transportCounters().openConnections().get() == cap, WAIT,
                        () -> server.server().statsLine());
                for (int i = 0; i < extra; i++) {
                    Socket s = new Socket(InetAddress.getByName("127.0.0.1"), server.address(Transport.TCP).getPort());
                    flood.add(s);
                    assertTrue(closedByServer(s, WAIT), "connection " + (cap + i + 1) + " from 127.0.0.1 not closed");
                }
                awaitClosed(server, "source_cap", extra);
                try (SipSocket other = SipSocket.tcpFrom(InetAddress.getByName("127.0.0.2"), server.address(Transport.TCP))) {
                    assertAnswered(other, server, "other-source", 1);
                    // the source at its cap kept what it had
                    assertEquals(cap + 1, server.server().transportCounters().openConnections().get());
                }
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aMessageTrickledByteByByteIsClosedAtItsDeadlineWhileCompleteMessagesFlow() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.messageTimeout", "1s", "tcp.firstMessageTimeout", NEVER);
             SipSocket established = SipSocket.tcp(server.address(Transport.TCP));
             Socket slow = new Socket(InetAddress.getByName("127.0.0.1"), server.address(Transport.TCP).getPort())) {
            assertAnswered(established, server, "before-slowloris", 1);
            // a header section that never ends, one byte every 200 ms: each byte resets the idle timer
            byte[] trickle = ("OPTIONS sip:" + server.hostPort(Transport.TCP) + " SIP/2.0\r\nX-Pad: ")
                    .getBytes(StandardCharsets.US_ASCII);
            OutputStream out = slow.getOutputStream();
            InputStream in = slow.getInputStream();
            slow.setSoTimeout(200);
            boolean closed = false;
            long deadline = System.nanoTime() + WAIT.toNanos();
            for (int i = 0; !closed && System.nanoTime() < deadline; i++) {
                try {
                    out.write(i < trickle.length ? trickle[i] : 'a');
                    out.flush();
                    closed = in.read() < 0;
                } catch (SocketTimeoutException e) {
                    // nothing from the server: keep trickling
                } catch (IOException e) {
                    closed = true;
                }
            }
            assertTrue(closed, "the trickling connection was not closed within " + WAIT);
            awaitClosed(server, "message_timeout", 1);
            assertAnswered(established, server, "after-slowloris", 2);
        }
    }

    @Test
    void aConnectionThatNeverSendsAMessageIsClosedSoonerThanTheIdleTimeout() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.firstMessageTimeout", "1s", "tcp.idleTimeout", NEVER);
             SipSocket established = SipSocket.tcp(server.address(Transport.TCP));
             SipSocket silent = SipSocket.tcp(server.address(Transport.TCP));
             SipSocket pinging = SipSocket.tcp(server.address(Transport.TCP))) {
            assertAnswered(established, server, "first-message", 1);
            // keep-alives are no message: a connection that only pings is closed too
            pinging.send("\r\n\r\n");
            assertTrue(silent.closedByPeer(WAIT), "the silent connection was not closed");
            assertTrue(pinging.closedByPeer(WAIT), "the connection that only pings was not closed");
            awaitClosed(server, "first_message_timeout", 2);
            assertAnswered(established, server, "still-open", 2);
        }
    }

    @Test
    void beyondTheBoundOnIncompleteMessagesTheOldestIsClosedAndTheNewerComplete() throws Exception {
        try (TestServer server = TestServer.start(dir, "sip.maxMessageBytes", "1024", "tcp.maxPartialBytes", "2048",
                "tcp.messageTimeout", NEVER, "tcp.firstMessageTimeout", NEVER);
             SipSocket oldest = SipSocket.tcp(server.address(Transport.TCP));
             SipSocket middle = SipSocket.tcp(server.address(Transport.TCP));
             SipSocket newest = SipSocket.tcp(server.address(Transport.TCP))) {
            SipSocket[] sockets = {oldest, middle, newest};
            String[] messages = new String[3];
            int held = 0;
            for (int i = 0; i < 3; i++) {
                // an OPTIONS of about 900 bytes, sent but for its last 100
                String pad = "X-Pad: " + "p".repeat(900 - 200) + "\r\n";
                String hp = server.hostPort(Transport.TCP);
                messages[i] = sockets[i].request("OPTIONS", "sip:" + hp, "probe", hp, "partial-" + i, 1, pad);
                String head = messages[i].substring(0, messages[i].length() - 100);
                sockets[i].send(head);
                held += head.length();
                if (i < 2) {
                    // the server holds this one before the next begins, so their ages are known
                    int expected = held;
                    Await.until(() -> partialBytes(server) == expected, WAIT,
                            () -> "partial bytes " + partialBytes(server) + ", expected " + expected);
                }
            }
            assertTrue(held > 2048 && held - messages[0].length() + 100 <= 2048, "held " + held);
            assertTrue(oldest.closedByPeer(WAIT), "the connection with the oldest incomplete message was not closed");
            awaitClosed(server, "partial_bytes", 1);
            for (int i = 1; i < 3; i++) {
                sockets[i].send(messages[i].substring(messages[i].length() - 100));
                String answer = sockets[i].awaitMessage("SIP/2.0 200", WAIT);
                assertNotNull(answer, "no answer on connection " + i + " after completing its message");
                assertTrue(answer.contains("Call-ID: partial-" + i), answer);
            }
            Await.until(() -> partialBytes(server) == 0, WAIT, () -> "partial bytes " + partialBytes(server));
        }
    }

    @ParameterizedTest(name = "tls engine {0}")
    @ValueSource(strings = {"bc", "jsse"})
    void overTlsTheSourceCapActsBeforeTheHandshakeAndTheFirstMessageDeadlineAfterIt(String engine) throws Exception {
        Path certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        try (TestServer server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0",
                "listen", "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.pem").toString(),
                "tls.key", certs.resolve("server-key.pem").toString(), "tls.engine", engine,
                "tcp.maxConnectionsPerSource", "2", "tcp.firstMessageTimeout", "1s", "tls.handshakeTimeout", NEVER)) {
            int port = server.address(Transport.TLS).getPort();
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            try (Socket a = new Socket(loopback, port); Socket b = new Socket(loopback, port)) {
                Await.until(() -> server.server().transportCounters().openConnections().get() == 2, WAIT,
                        () -> server.server().statsLine());
                try (Socket c = new Socket(loopback, port)) {
                    assertTrue(closedByServer(c, WAIT), "the third connection from 127.0.0.1 was not reset");
                }
                awaitClosed(server, "source_cap", 1);
            }
            Await.until(() -> server.server().transportCounters().openConnections().get() == 0, WAIT,
                    () -> server.server().statsLine());
            // handshake done, then silence: the first-message deadline runs from the handshake
            try (SSLSocket tls = (SSLSocket) TestPki.sslContext(certs, null, null).getSocketFactory()
                    .createSocket(loopback, port)) {
                tls.startHandshake();
                assertTrue(closedByServer(tls, WAIT), "the TLS connection that sent nothing was not closed");
            }
            awaitClosed(server, "first_message_timeout", 1);
            assertEquals(1, server.server().transportCounters().value("tls.handshakes", "kind", "full"));
        }
    }

    @Test
    void idleTlsConnectionsSpreadOverSourcesBelowTheirCapAreAllHeldUntilTheProbeClosesThem() throws Exception {
        Path certs = dir.resolve("certs");
        // ECDSA: cheaper to make and to sign with than RSA-2048, and the probe cares for neither
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString(), "--key-type", "ecdsa"));
        int connections = 20;
        try (TestServer server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0",
                "listen", "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.pem").toString(),
                "tls.key", certs.resolve("server-key.pem").toString(), "tls.engine", "bc",
                "tcp.maxConnectionsPerSource", "2")) {
            // two connections from each of 127.0.0.1 to 127.0.0.10: a third from any would be reset
            try (IdleConnectionProbe probe = IdleConnectionProbe.openTls(server.address(Transport.TLS), certs.resolve("ca.pem"),
                    "1.3", connections, 10, WAIT, WAIT)) {
                assertEquals(connections, probe.held(), "first failure: " + probe.firstFailure());
                assertTrue(probe.negotiated().startsWith("TLSv1.3 "), probe.negotiated());
                Await.until(() -> server.server().transportCounters().openConnections().get() == connections, WAIT,
                        () -> server.server().statsLine());
                assertEquals(0, probe.ping(), "keep-alives on connections the server still holds");
                Await.until(() -> server.server().transportCounters()
                                .value("transport.keepalives.answered", "transport", "tls") == connections, WAIT,
                        () -> server.server().statsLine());
                assertEquals(connections, server.server().transportCounters().value("tls.handshakes", "kind", "full"),
                        "each connection a full handshake, none resumed");
                assertEquals(0, closed(server, "source_cap"));
            }
            Await.until(() -> server.server().transportCounters().openConnections().get() == 0, WAIT,
                    () -> server.server().statsLine());
        }
    }

    @Test
    void idleTcpConnectionsSpreadOverSourcesBelowTheirCapAreAllHeldUntilTheProbeClosesThem() throws Exception {
        int connections = 20;
        try (TestServer server = TestServer.start(dir, "tcp.maxConnectionsPerSource", "2")) {
            // two connections from each of 127.0.0.1 to 127.0.0.10: a third from any would be reset
            try (IdleConnectionProbe probe = IdleConnectionProbe.openTcp(server.address(Transport.TCP), connections, 10,
                    WAIT, WAIT)) {
                assertEquals(connections, probe.held(), "first failure: " + probe.firstFailure());
                assertEquals("TCP", probe.negotiated());
                Await.until(() -> server.server().transportCounters().openConnections().get() == connections, WAIT,
                        () -> server.server().statsLine());
                assertEquals(0, probe.ping(), "keep-alives on connections the server still holds");
                Await.until(() -> server.server().transportCounters()
                                .value("transport.keepalives.answered", "transport", "tcp") == connections, WAIT,
                        () -> server.server().statsLine());
                assertEquals(0, closed(server, "source_cap"));
            }
            Await.until(() -> server.server().transportCounters().openConnections().get() == 0, WAIT,
                    () -> server.server().statsLine());
        }
    }
}
