package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Hand-written requests to a server under test over a raw UDP socket: what an attacker (or an
 * honest client, written from the RFC) sends, with any From, To tag, Route, credentials and body.
 * Threading: one test thread.
 */
final class Attacker implements AutoCloseable {

    /** How long a test waits for an answer it expects; generous, as the machine may be busy. */
    static final Duration WAIT = Duration.ofSeconds(20);
    /** The From tag of {@link #assertOnlyMarkerReached marker} requests. */
    static final String MARKER_TAG = "sipcrypt-marker";

    private final SipSocket socket;
    private final String proxyHostPort;
    private int branch;

    Attacker(TestServer server) throws IOException {
        InetSocketAddress udp = server.address(Transport.UDP);
        this.socket = SipSocket.udp(udp);
        this.proxyHostPort = udp.getAddress().getHostAddress() + ":" + udp.getPort();
    }

    /** {@code sip:127.0.0.1:port}: the server itself, e.g. as registrar. */
    String serverUri() {
        return "sip:" + proxyHostPort;
    }

    /** {@code <sip:127.0.0.1:port;lr>} with extra URI parameters, as a Route value. */
    String serverRoute(String params) {
        return "<sip:" + proxyHostPort + ";transport=udp;lr" + params + ">";
    }

    /** This socket's port. */
    int port() {
        return socket.localPort();
    }

    /**
     * A request: the given start line and headers, a fresh Via branch from this socket, and
     * Content-Length for the body.
     *
     * @param from  the From URI, e.g. {@code sip:mallory@evil.example}; its tag is {@code fromTag}
     * @param toTag the To tag, or null for an out-of-dialog request
     * @param extra further header lines, each ending in CRLF; without a Contact among them, one
     *              naming this socket is added
     */
    String request(String method, String requestUri, String from, String fromTag, String to, String toTag,
                   String callId, int cseq, String extra, String body) {
        return method + " " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + socket.localPort() + ";branch=z9hG4bK-att-" + UUID.randomUUID()
                + "-" + (++branch) + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + from + ">;tag=" + fromTag + "\r\n"
                + "To: <" + to + ">" + (toTag == null ? "" : ";tag=" + toTag) + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + (extra.contains("Contact:") ? "" : "Contact: <sip:attacker@127.0.0.1:" + socket.localPort() + ">\r\n")
                + extra
                + (body.isEmpty() ? "" : "Content-Type: application/sdp\r\n")
                + "Content-Length: " + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + "\r\n\r\n"
                + body;
    }

    /** Sends a message without waiting for anything (an ACK). */
    void send(String message) throws IOException {
        socket.send(message);
    }

    /**
     * Sends a request and returns its final response (provisional ones skipped, and responses to
     * earlier requests, such as a retransmitted 407 to an INVITE never acknowledged); fails on timeout.
     */
    String finalResponse(String request) throws IOException {
        List<String> responses = responses(request);
        return responses.get(responses.size() - 1);
    }

    /**
     * Sends a request and returns its responses up to the final one, provisional ones first, in the
     * order they came (responses to earlier requests skipped); fails when no final one comes in time.
     */
    List<String> responses(String request) throws IOException {
        socket.send(request);
        String branch = header(request, "Via").replaceAll(".*;branch=([^;]+).*", "$1");
        List<String> responses = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String r = socket.awaitMessage("SIP/2.0 ", Duration.ofMillis(500));
            if (r != null && header(r, "Via").contains(";branch=" + branch)) {
                responses.add(r);
                if (!r.startsWith("SIP/2.0 1")) {
                    return responses;
                }
            }
        }
        throw new AssertionError("no final response to " + request.substring(0, request.indexOf("\r\n")));
    }

    /**
     * Proves that no request sent earlier from this socket with {@code callId} went to {@code sink},
     * on an event the server controls instead of a quiet period: a marker (a MESSAGE from alice,
     * password {@code secret}, From tag {@link #MARKER_TAG}) with the same Call-ID, to {@code target}
     * with the {@code extra} headers (the attack's Route, if any), answered with credentials and
     * relayed to the sink, whose 200 comes back. Why the marker comes last: the server hands every
     * message of one Call-ID to the same worker lane in arrival order, its asynchronous steps
     * (credential lookups) continue on that lane, and it sends to a UDP peer through one socket over
     * loopback; the attack was answered before the marker was sent. So an attack relayed at all would
     * have reached the sink before the marker did.
     *
     * @param before how many requests the sink had received before the attack
     */
    void assertOnlyMarkerReached(SipSink sink, int before, String callId, String target, String extra)
            throws IOException {
        String alice = "sip:alice@127.0.0.1";
        String first = finalResponse(request("MESSAGE", target, alice, MARKER_TAG, target, null, callId, 100,
                extra, ""));
        String r = first;
        if (status(first) == 407) {
            String creds = DigestClient.answer("Proxy-Authorization", md5Challenge(first, "Proxy-Authenticate"),
                    "alice", "secret", "MESSAGE", target, 1);
            r = finalResponse(request("MESSAGE", target, alice, MARKER_TAG, target, null, callId, 101,
                    extra + creds, ""));
        }
        assertEquals(200, status(r), "the marker was not relayed to the sink: " + r);
        List<String> others = sink.requests().stream().skip(before)
                .filter(m -> !header(m, "From").contains(";tag=" + MARKER_TAG)).toList();
        assertEquals(List.of(), others.stream().map(m -> m.substring(0, m.indexOf("\r\n"))).toList(),
                "requests reached " + sink.hostPort() + " before the marker");
    }

    /** The Call-ID of a message. */
    static String callId(String message) {
        return header(message, "Call-ID");
    }

    /** The value of the first header line {@code name} of a message, or "" when there is none. */
    static String header(String message, String name) {
        String prefix = name.toLowerCase(Locale.ROOT) + ":";
        return message.lines().filter(l -> l.toLowerCase(Locale.ROOT).startsWith(prefix)).findFirst()
                .map(l -> l.substring(prefix.length()).trim()).orElse("");
    }

    /** The status code of a response. */
    static int status(String response) {
        return Integer.parseInt(response.substring(8, 11));
    }

    /** The status line of a response. */
    static String statusLine(String response) {
        return response.substring(0, response.indexOf("\r\n"));
    }

    /** The first challenge of {@code header} (WWW-Authenticate or Proxy-Authenticate) offering MD5. */
    static String md5Challenge(String response, String header) {
        return DigestClient.challenges(response, header).stream()
                .filter(c -> "MD5".equals(DigestClient.params(c).get("algorithm"))).findFirst()
                .orElseThrow(() -> new AssertionError("no MD5 " + header + " in " + response));
    }

    /**
     * Registers {@code user} (password {@code password}) with {@code contact} as an honest client does:
     * REGISTER, 401, REGISTER with qop=auth credentials, and expects 200.
     */
    void register(String user, String password, String contact) throws IOException {
        String callId = UUID.randomUUID().toString();
        String aor = "sip:" + user + "@127.0.0.1";
        String extra = "Contact: <" + contact + ">\r\nExpires: 600\r\n";
        String first = finalResponse(request("REGISTER", serverUri(), aor, user + "-r", aor, null, callId, 1, extra, ""));
        assertEquals(401, status(first), first);
        String creds = DigestClient.answer("Authorization", md5Challenge(first, "WWW-Authenticate"), user, password,
                "REGISTER", serverUri(), 1);
        String ok = finalResponse(request("REGISTER", serverUri(), aor, user + "-r", aor, null, callId, 2,
                extra + creds, ""));
        assertEquals(200, status(ok), ok);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
