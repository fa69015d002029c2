package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.StunClient;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * The keep-alives of RFC 5626 against the real server over real sockets: a STUN Binding request on
 * the SIP UDP port (from a plain {@link DatagramSocket} and from coturn's
 * {@code turnutils_stunclient}) is answered with the sender's address, bad and unsupported STUN and
 * CRLF datagrams get nothing, and a CRLFCRLF ping over TCP and TLS gets its CRLF pong; each counted
 * under {@code transport.keepalives.answered} or {@code transport.keepalives.dropped}.
 */
@Timeout(90)
class KeepAlivesIT {

    /** Long enough for a busy machine; each wait ends as soon as the answer is there. */
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** How long a datagram that should get no answer is given to show one (its absence is also checked by order). */
    private static final Duration QUIET = Duration.ofMillis(300);

    @TempDir
    Path dir;

    private final Random random = new Random(5626);

    private static double answered(TestServer server, String transport, String kind) {
        return server.server().transportCounters().value("transport.keepalives.answered", "transport", transport,
                "kind", kind);
    }

    private static double dropped(TestServer server, String transport, String reason) {
        return server.server().transportCounters().value("transport.keepalives.dropped", "transport", transport,
                "reason", reason);
    }

    /**
     * Waits for a counter to reach {@code expected} (it is counted on the event loop, which may run
     * behind the test thread) and checks it did not pass it.
     */
    private static void awaitCount(double expected, java.util.function.DoubleSupplier counter) {
        Await.until(() -> counter.getAsDouble() >= expected, WAIT, () -> "counted " + counter.getAsDouble()
                + ", expected " + expected);
        assertEquals(expected, counter.getAsDouble());
    }

    /** Sends a Binding request from {@code socket} and checks the answer maps the socket's own address. */
    private void assertMapped(DatagramSocket socket, InetSocketAddress server, boolean fingerprint) throws IOException {
        byte[] id = StunClient.transactionId(random);
        byte[] answer = StunClient.exchange(socket, server, StunClient.bindingRequest(id, fingerprint), WAIT);
        assertNotNull(answer, "no answer to a Binding request on " + server);
        assertEquals(StunClient.BINDING_SUCCESS, ((answer[0] & 0xFF) << 8) | (answer[1] & 0xFF));
        assertArrayEquals(id, StunClient.transactionIdOf(answer));
        assertEquals(socket.getLocalSocketAddress(), StunClient.mappedAddress(answer));
        assertEquals(fingerprint, StunClient.fingerprintValid(answer), "FINGERPRINT exactly when asked for");
        assertTrue(answer.length <= StunBindingResponder.MAX_ANSWER_BYTES, answer.length + " bytes");
    }

    @Test
    void bindingRequestOnTheSipUdpPortIsAnsweredWithTheSendersAddress() throws Exception {
        try (TestServer server = TestServer.start(dir);
             DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            InetSocketAddress udp = server.address(Transport.UDP);
            assertMapped(socket, udp, false);
            assertMapped(socket, udp, true);
            awaitCount(2.0, () -> answered(server, "udp", "stun"));
            // the same port still speaks SIP
            try (SipSocket sip = server.socket(Transport.UDP)) {
                String hp = server.hostPort(Transport.UDP);
                sip.exchange(sip.request("OPTIONS", "sip:" + hp, "alice", hp, "after-stun", 1, ""), "SIP/2.0 200", WAIT);
            }
        }
    }

    @Test
    void bindingRequestOverIpv6GetsAnIpv6MappedAddress() throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", "udp:[::1]:0");
             DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("::1"))) {
            assertMapped(socket, server.address(Transport.UDP), true);
            awaitCount(1.0, () -> answered(server, "udp", "stun"));
        }
    }

    @Test
    void badAndUnsupportedStunAndCrlfDatagramsGetNoAnswerAndAreCounted() throws Exception {
        try (TestServer server = TestServer.start(dir);
             DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            InetSocketAddress udp = server.address(Transport.UDP);
            byte[] id = StunClient.transactionId(random);
            byte[] badFingerprint = StunClient.bindingRequest(id, true);
            badFingerprint[badFingerprint.length - 1] ^= 1;
            List<byte[]> unanswered = List.of(
                    StunClient.hex("00 01 00 08 02 58 93 48 7b 3c b6 57 c2 4e 9f 23 41 ce 1c 14 00 03 00 04 00 00 00 04"),
                    StunClient.message(0x0011, id, false),
                    StunClient.bindingRequest(id, false, StunClient.attribute(0x0003, new byte[4])),
                    badFingerprint,
                    Arrays.copyOf(StunClient.bindingRequest(id, false), 16),
                    "\r\n".getBytes(StandardCharsets.US_ASCII),
                    "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            for (byte[] d : unanswered) {
                socket.send(new java.net.DatagramPacket(d, d.length, udp));
            }
            assertEquals(null, StunClient.receive(socket, QUIET), "nothing answered");
            // datagrams from one socket arrive in order on loopback: the next answer is to the good request
            assertMapped(socket, udp, false);
            awaitCount(1.0, () -> dropped(server, "udp", "stun_no_cookie"));
            awaitCount(1.0, () -> dropped(server, "udp", "stun_not_binding_request"));
            awaitCount(1.0, () -> dropped(server, "udp", "stun_unknown_attribute"));
            awaitCount(1.0, () -> dropped(server, "udp", "stun_bad_fingerprint"));
            awaitCount(1.0, () -> dropped(server, "udp", "stun_malformed"));
            awaitCount(2.0, () -> dropped(server, "udp", "crlf"));
            awaitCount(1.0, () -> answered(server, "udp", "stun"));
        }
    }

    @Test
    void crlfPingOverTcpGetsAPong() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket tcp = server.socket(Transport.TCP)) {
            assertPingPong(server, tcp, "tcp");
        }
    }

    @Test
    void crlfPingOverTlsGetsAPong() throws Exception {
        Path certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        try (TestServer server = TestServer.start(dir.resolve("data"), "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString());
             SipSocket tls = SipSocket.tls(server.address(Transport.TLS), TestPki.sslContext(certs, null, null))) {
            assertPingPong(server, tls, "tls");
        }
    }

    /** Ping, pong back; a pong from the client is taken silently; the connection still carries SIP. */
    private static void assertPingPong(TestServer server, SipSocket socket, String transport) throws Exception {
        socket.send("\r\n\r\n");
        assertEquals("\r\n", socket.receiveBytes(2, WAIT), "pong over " + transport);
        socket.send("\r\n\r\n");
        assertEquals("\r\n", socket.receiveBytes(2, WAIT), "second pong over " + transport);
        awaitCount(2.0, () -> answered(server, transport, "crlf"));
        socket.send("\r\n");
        InetSocketAddress a = server.address(Transport.valueOf(transport.toUpperCase(java.util.Locale.ROOT)));
        String hp = a.getAddress().getHostAddress() + ":" + a.getPort();
        String options = socket.request("OPTIONS", "sip:" + hp + ";transport=" + transport, "alice", hp,
                "after-ping-" + transport, 1, "");
        // the single CRLF ahead of it is a pong, not an answer to anything: the next bytes are the 200
        socket.exchange(options, "SIP/2.0 200", WAIT);
        awaitCount(1.0, () -> dropped(server, transport, "pong"));
    }

    @Test
    void coturnStunClientLearnsItsAddressFromTheSipPort() throws Exception {
        // coturn prints the address the server saw: "UDP reflexive addr: 127.0.0.1:PORT"
        Pattern reflexive = Pattern.compile("UDP reflexive addr: 127\\.0\\.0\\.1:(\\d+)");
        try (TestServer server = TestServer.start(dir)) {
            int port = server.address(Transport.UDP).getPort();
            String out = runUntil(reflexive, List.of("turnutils_stunclient", "-L", "127.0.0.1", "-p", String.valueOf(port),
                    "127.0.0.1"));
            Matcher m = reflexive.matcher(out);
            assertTrue(m.find(), "no reflexive address in turnutils_stunclient's output:\n" + out);
            // its socket's port is its own ephemeral one (the plain-socket tests check the port exactly)
            assertTrue(Integer.parseInt(m.group(1)) != port, out);
            Await.until(() -> answered(server, "udp", "stun") >= 1, WAIT, () -> "answer counted; " + out);
        }
    }

    /**
     * Runs a command, its errors merged into its output, until the output shows {@code until} or
     * the command exits (20 s at most); then ends it by its PID and returns the output.
     */
    private static String runUntil(Pattern until, List<String> cmd) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError(cmd.get(0) + " is needed for this test: apt-get install -y coturn", e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread copier = new Thread(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // the process was ended: its output stops here
            }
        }, "stunclient-output");
        copier.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (p.isAlive() && System.nanoTime() < deadline && !until.matcher(out.toString(StandardCharsets.UTF_8)).find()) {
                Thread.sleep(20);
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            copier.join(5_000);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
