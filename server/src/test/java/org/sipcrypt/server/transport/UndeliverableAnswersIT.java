package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.ServerPerTest;
import org.sipcrypt.server.testing.SipSocket;

/**
 * Requests whose answer cannot be delivered (RFC 3261 §18.2.2), their top Via naming, without
 * {@code rport}, TCP to a port nothing listens on or TLS, for which the server has no listener:
 * sent as datagrams, or over a TCP connection that closes at once. Each one's server transaction
 * must end, and free its branch, instead of staying live for good (issue 45, item 2): over UDP 290
 * of 300 (Via TCP) and 300 of 300 (Via TLS) stayed live before answers that could not go ended them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UndeliverableAnswersIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int REQUESTS = 300;

    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();

    /**
     * Over TCP the connection has closed before the answer goes, and the server opens a new one to a
     * port nothing listens on (the stack's reliable transaction ends when that send fails or returns).
     * Over UDP the answer goes by the Via's transport and sent-by: a connection to that closed port,
     * or a transport the server has no listener for.
     */
    @ParameterizedTest(name = "{2} over {0}, Via naming {1}")
    @CsvSource({"tcp, TCP, OPTIONS", "tcp, TLS, OPTIONS", "udp, TCP, OPTIONS", "udp, TLS, OPTIONS",
            "udp, TCP, INVITE", "udp, TLS, INVITE"})
    void everyTransactionWhoseAnswerCannotBeDeliveredEndsAndFreesItsBranch(String over, String viaTransport,
                                                                          String method) throws Exception {
        Transport arrival = Transport.valueOf(over.toUpperCase(java.util.Locale.ROOT));
        int closedPort = closedPort();
        String hp = server.hostPort(arrival);
        String prefix = over + "-" + viaTransport + "-" + method + "-";
        List<String> requests = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            requests.add(request(method, hp, viaTransport, "127.0.0.1:" + closedPort, prefix + i));
        }
        if (arrival == Transport.TCP) {
            sendAndClose(requests);
        } else {
            sendDatagrams(requests, method);
        }
        Await.until(() -> received(method) >= REQUESTS, WAIT,
                () -> received(method) + " received; " + server.server().statsLine());
        Await.until(() -> server.server().liveServerTransactions() == 0 && server.server().unansweredRequests() == 0,
                WAIT, () -> "live server transactions " + server.server().liveServerTransactions() + ", unanswered "
                        + server.server().unansweredRequests() + "; " + server.server().statsLine());
        if (arrival == Transport.UDP && method.equals("OPTIONS")) {
            // each answer ended its transaction as undeliverable, or waited for the one connect to
            // the closed port and was dropped with it; a Via naming TLS gets 400 before any transaction
            Await.until(() -> aborted() + sendFailed() + refusedTransport() == REQUESTS, WAIT, () -> "aborted "
                    + aborted() + ", dropped " + sendFailed() + ", refused " + refusedTransport() + "; "
                    + server.server().statsLine());
        }
        assertBranchReusable(arrival, prefix + 7);
    }

    private double sendFailed() {
        return server.server().transportCounters().value("sip.messages.dropped", "reason", "send_failed");
    }

    private double aborted() {
        return server.server().registry().find("sip.transactions.aborted").counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /**
     * Requests of {@code method} taken in: received by the SIP layer, or refused by the transport
     * with 400 before any transaction because their Via names a transport without listener.
     */
    private double received(String method) {
        Counter c = server.server().registry().find("sip.requests.received")
                .tag("method", method.toLowerCase(java.util.Locale.ROOT)).counter();
        return (c == null ? 0 : c.count()) + refusedTransport();
    }

    private double refusedTransport() {
        return server.server().transportCounters().value("sip.requests.rejected", "reason", "via_transport");
    }

    /** A later, deliverable request reusing a branch of those is answered as any other. */
    private void assertBranchReusable(Transport t, String branchOf) throws IOException {
        String hp = server.hostPort(t);
        try (SipSocket s = t == Transport.TCP ? SipSocket.tcp(server.address(t)) : SipSocket.udp(server.address(t))) {
            String request = s.request("OPTIONS", "sip:" + hp, "alice", hp, "again", 1, "")
                    .replaceFirst(";branch=[^;\r]+", ";branch=z9hG4bK-" + branchOf);
            String answer = s.exchange(request, "SIP/2.0 ", WAIT);
            assertTrue(answer.startsWith("SIP/2.0 200"), "the reused branch was refused: " + answer);
            assertTrue(answer.contains("Call-ID: again"), answer);
        }
    }

    /** The requests over one TCP connection, which closes as soon as they are written. */
    private void sendAndClose(List<String> requests) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server.address(Transport.TCP), 2000);
            OutputStream out = s.getOutputStream();
            out.write(String.join("", requests).getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    /** The requests as datagrams from one UDP socket, paced so that none overflows a socket buffer. */
    private void sendDatagrams(List<String> requests, String method) throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            int sent = 0;
            for (String r : requests) {
                byte[] b = r.getBytes(StandardCharsets.UTF_8);
                s.send(new DatagramPacket(b, b.length, server.address(Transport.UDP)));
                if (++sent % 50 == 0) {
                    int upTo = sent;
                    Await.until(() -> received(method) >= upTo, WAIT, () -> received(method) + " received");
                }
            }
        }
    }

    /**
     * An OPTIONS to the server, or an INVITE to a user it does not know, whose top Via names
     * {@code transport} and {@code sentBy}, without rport.
     */
    private static String request(String method, String hp, String transport, String sentBy, String branch) {
        boolean invite = method.equals("INVITE");
        return method + " sip:" + (invite ? "nobody@" : "") + hp + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " " + sentBy + ";branch=z9hG4bK-" + branch + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:probe@127.0.0.1>;tag=probe-tag\r\n"
                + "To: <sip:" + (invite ? "nobody@" : "") + hp + ">\r\n"
                + "Call-ID: " + branch + "\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + (invite ? "Contact: <sip:probe@" + sentBy + ">\r\n" : "")
                + "Content-Length: 0\r\n\r\n";
    }

    /** A loopback port nothing listens on (bound, then closed). */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
