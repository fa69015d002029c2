package org.sipcrypt.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * A bare SIP client socket for hand-written messages (malformed ones included): UDP or TCP to a
 * server on loopback; reads responses as text. Messages are written with CRLF line ends as given.
 * Threading: one test thread.
 */
public final class SipSocket implements AutoCloseable {

    private final DatagramSocket udp;
    private final Socket tcp;
    private final InetSocketAddress server;
    private String localHostOverride;
    /** TCP bytes read and not yet returned: the start of the next message. */
    private byte[] pending = new byte[0];

    private SipSocket(DatagramSocket udp, Socket tcp, InetSocketAddress server) {
        this.udp = udp;
        this.tcp = tcp;
        this.server = server;
    }

    public static SipSocket udp(InetSocketAddress server) throws IOException {
        InetAddress local = server.getAddress() instanceof java.net.Inet6Address
                ? InetAddress.getByName("::1") : InetAddress.getByName("127.0.0.1");
        return new SipSocket(new DatagramSocket(0, local), null, server);
    }

    /**
     * A UDP socket on another loopback address ({@code 127.0.0.2}, ...), so the server sees another
     * source; its requests name that address in Via and Contact.
     */
    public static SipSocket udpFrom(InetAddress local, InetSocketAddress server) throws IOException {
        SipSocket socket = new SipSocket(new DatagramSocket(0, local), null, server);
        socket.localHostOverride = local.getHostAddress();
        return socket;
    }

    public static SipSocket tcp(InetSocketAddress server) throws IOException {
        Socket s = new Socket();
        s.connect(server, 2000);
        s.setTcpNoDelay(true);
        return new SipSocket(null, s, server);
    }

    /**
     * A TCP connection from another loopback address ({@code 127.0.0.2}, ...), so the server sees
     * another source; its requests name that address in Via and Contact.
     */
    public static SipSocket tcpFrom(InetAddress local, InetSocketAddress server) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(local, 0));
        s.connect(server, 2000);
        s.setTcpNoDelay(true);
        SipSocket socket = new SipSocket(null, s, server);
        socket.localHostOverride = local.getHostAddress();
        return socket;
    }

    /** A TLS connection made with the JDK's SunJSSE ({@code ctx}); the handshake runs on first use. */
    public static SipSocket tls(InetSocketAddress server, javax.net.ssl.SSLContext ctx) throws IOException {
        Socket s = ctx.getSocketFactory().createSocket(server.getAddress(), server.getPort());
        s.setTcpNoDelay(true);
        return new SipSocket(null, s, server);
    }

    /** A connection accepted by a test's own listening socket (TCP or TLS), e.g. a UAS. */
    public static SipSocket accepted(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        return new SipSocket(null, s, (InetSocketAddress) s.getRemoteSocketAddress());
    }

    /** The negotiated suite of a TLS socket, or null for UDP and TCP. */
    public String tlsCipherSuite() {
        return tcp instanceof javax.net.ssl.SSLSocket ssl ? ssl.getSession().getCipherSuite() : null;
    }

    /** Local port of this socket (for Via and Contact). */
    public int localPort() {
        return udp != null ? udp.getLocalPort() : tcp.getLocalPort();
    }

    /** This socket's host as written in SIP: {@code 127.0.0.1} or {@code [::1]}. */
    public String localHost() {
        if (localHostOverride != null) {
            return localHostOverride;
        }
        return server.getAddress() instanceof java.net.Inet6Address ? "[::1]" : "127.0.0.1";
    }

    /** "UDP", "TCP" or "TLS". */
    public String transport() {
        return udp != null ? "UDP" : tcp instanceof javax.net.ssl.SSLSocket ? "TLS" : "TCP";
    }

    /**
     * A request sent from this socket: Via naming this socket (with {@code rport}), Max-Forwards 70,
     * {@code From: <sip:USER@127.0.0.1>;tag=USER-tag}, {@code To: <sip:TO>}, the Call-ID, the CSeq,
     * then the {@code extra} header lines (each ending in CRLF) and {@code Content-Length: 0}.
     */
    public String request(String method, String requestUri, String user, String to, String callId, int cseq,
                          String extra) {
        return method + " " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport() + " " + localHost() + ":" + localPort() + ";branch=z9hG4bK" + callId + "-" + cseq
                + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + user + "@" + localHost() + ">;tag=" + user + "-tag\r\n"
                + "To: <sip:" + to + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + extra
                + "Content-Length: 0\r\n\r\n";
    }

    /**
     * The ACK for a final response to {@code invite} (RFC 3261 §17.1.1.3, CSeq 1): its
     * request line, Via (and so its branch) and other lines, the response's To, no Contact.
     */
    public static String ackFor(String invite, String response) {
        String to = response.lines().filter(l -> l.regionMatches(true, 0, "To:", 0, 3)).findFirst().orElseThrow();
        StringBuilder ack = new StringBuilder();
        for (String line : invite.split("\r\n")) {
            if (ack.isEmpty()) {
                ack.append(line.replaceFirst("^INVITE ", "ACK ")).append("\r\n");
            } else if (line.regionMatches(true, 0, "To:", 0, 3)) {
                ack.append(to).append("\r\n");
            } else if (line.regionMatches(true, 0, "CSeq:", 0, 5)) {
                ack.append("CSeq: 1 ACK\r\n");
            } else if (!line.isEmpty() && !line.regionMatches(true, 0, "Contact:", 0, 8)) {
                ack.append(line).append("\r\n");
            }
        }
        return ack.append("\r\n").toString();
    }

    /**
     * A response to a received request: status line, then its Via, From, To (with a tag added),
     * Call-ID and CSeq lines (long or compact, as they came), {@code Content-Length: 0}.
     */
    public static String response(String request, String status) {
        StringBuilder sb = new StringBuilder("SIP/2.0 " + status + "\r\n");
        for (String line : request.split("\r\n")) {
            if (line.isEmpty()) {
                break;
            }
            String name = headerName(line);
            if (List.of("via", "from", "call-id", "cseq", "v", "f", "i").contains(name)) {
                sb.append(line).append("\r\n");
            } else if (name.equals("to") || name.equals("t")) {
                sb.append(line).append(line.toLowerCase(java.util.Locale.ROOT).contains(";tag=") ? "" : ";tag=callee")
                        .append("\r\n");
            }
        }
        return sb.append("Content-Length: 0\r\n\r\n").toString();
    }

    /**
     * The name of header line {@code line} in lower case, as RFC 3261's HCOLON allows it (blanks may
     * come before the colon); empty when the line has no name before a colon.
     */
    public static String headerName(String line) {
        int colon = line.indexOf(':');
        return colon > 0 ? line.substring(0, colon).strip().toLowerCase(java.util.Locale.ROOT) : "";
    }

    /** A Contact header line naming this socket for {@code user}, with the transport parameter over TCP. */
    public String contact(String user) {
        return "Contact: <sip:" + user + "@" + localHost() + ":" + localPort() + (udp != null ? "" : ";transport=" + transport().toLowerCase(java.util.Locale.ROOT)) + ">\r\n";
    }

    public void send(String message) throws IOException {
        send(message.getBytes(StandardCharsets.UTF_8));
    }

    public void send(byte[] bytes) throws IOException {
        if (udp != null) {
            udp.send(new DatagramPacket(bytes, bytes.length, server));
        } else {
            tcp.getOutputStream().write(bytes);
            tcp.getOutputStream().flush();
        }
    }

    /**
     * The next message, or null on timeout: a UDP datagram, or over TCP and TLS one message cut from
     * the stream by its Content-Length, the bytes after it kept for the next call (two messages that
     * arrive in one read, a 100 Trying and a 180, are two messages). Bytes that never complete a
     * message are returned as they are once the timeout passes.
     */
    public String receive(Duration timeout) throws IOException {
        if (udp != null) {
            udp.setSoTimeout((int) timeout.toMillis());
            byte[] buf = new byte[65_535];
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                udp.receive(p);
            } catch (SocketTimeoutException e) {
                return null;
            }
            return new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
        }
        tcp.setSoTimeout((int) timeout.toMillis());
        InputStream in = tcp.getInputStream();
        byte[] buf = new byte[65_535];
        try {
            while (true) {
                int end = messageEnd(pending);
                if (end >= 0) {
                    String m = new String(pending, 0, end, StandardCharsets.UTF_8);
                    pending = Arrays.copyOfRange(pending, end, pending.length);
                    return m;
                }
                int n = in.read(buf);
                if (n < 0) {
                    return takePending();
                }
                byte[] more = Arrays.copyOf(pending, pending.length + n);
                System.arraycopy(buf, 0, more, pending.length, n);
                pending = more;
            }
        } catch (SocketTimeoutException e) {
            return takePending();
        }
    }

    /** Every byte read and not yet returned, as text; null when there is none. */
    private String takePending() {
        if (pending.length == 0) {
            return null;
        }
        String all = new String(pending, StandardCharsets.UTF_8);
        pending = new byte[0];
        return all;
    }

    /**
     * Sends {@code message} and returns the next message received, failing the test unless one
     * arrives within {@code timeout} and starts with {@code expectedStart}.
     */
    public String exchange(String message, String expectedStart, Duration timeout) throws IOException {
        send(message);
        String r = receive(timeout);
        if (r == null) {
            throw new AssertionError("no answer within " + timeout + " to " + firstLine(message));
        }
        if (!r.startsWith(expectedStart)) {
            throw new AssertionError("expected an answer starting with \"" + expectedStart + "\" to "
                    + firstLine(message) + ", got:\n" + r);
        }
        return r;
    }

    private static String firstLine(String message) {
        int eol = message.indexOf('\r');
        return eol < 0 ? message : message.substring(0, eol);
    }

    /**
     * Returns once the server has taken this TCP connection in: a keep-alive ping (RFC 5626 §3.5.1)
     * is answered only after the server's connection handler has registered the connection, so a
     * request the proxy then sends to this socket's address finds it rather than dialling the port.
     */
    public void awaitTakenIn(Duration timeout) throws IOException {
        send("\r\n\r\n");
        String pong = receiveBytes(2, timeout);
        if (!"\r\n".equals(pong)) {
            throw new IOException("no keep-alive pong from the server within " + timeout + ": " + pong);
        }
    }

    /** Exactly {@code count} bytes from the TCP stream (e.g. a keep-alive pong), or null if they do not come in time. */
    public String receiveBytes(int count, Duration timeout) throws IOException {
        tcp.setSoTimeout((int) timeout.toMillis());
        byte[] buf = new byte[count];
        int got = Math.min(count, pending.length);
        System.arraycopy(pending, 0, buf, 0, got);
        pending = Arrays.copyOfRange(pending, got, pending.length);
        try {
            while (got < count) {
                int n = tcp.getInputStream().read(buf, got, count - got);
                if (n < 0) {
                    return null;
                }
                got += n;
            }
        } catch (SocketTimeoutException e) {
            return null;
        }
        return new String(buf, StandardCharsets.UTF_8);
    }

    /**
     * The next message starting with {@code prefix}, skipping any other (retransmissions,
     * provisional responses), or null when none arrives within the timeout.
     */
    public String awaitMessage(String prefix, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String m = receive(Duration.ofMillis(300));
            if (m != null && m.startsWith(prefix)) {
                return m;
            }
        }
        return null;
    }

    /** Whether the TCP peer has closed the connection (read returns end of stream within the timeout). */
    public boolean closedByPeer(Duration timeout) throws IOException {
        tcp.setSoTimeout((int) timeout.toMillis());
        try {
            byte[] buf = new byte[4096];
            while (true) {
                int n = tcp.getInputStream().read(buf);
                if (n < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Where the first message in {@code bytes} ends (after its body, by its Content-Length, full or
     * compact; at its blank line without one), or -1 while it is incomplete.
     */
    private static int messageEnd(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return -1;
        }
        String headers = "\n" + text.substring(0, end).toLowerCase(java.util.Locale.ROOT);
        int len = 0;
        for (String name : new String[] {"\ncontent-length:", "\nl:"}) {
            int at = headers.indexOf(name);
            if (at >= 0) {
                int eol = headers.indexOf('\r', at + 1);
                len = Integer.parseInt(headers.substring(at + name.length(), eol < 0 ? headers.length() : eol).trim());
                break;
            }
        }
        return bytes.length >= end + 4 + len ? end + 4 + len : -1;
    }

    @Override
    public void close() throws IOException {
        if (udp != null) {
            udp.close();
        } else {
            tcp.close();
        }
    }
}
