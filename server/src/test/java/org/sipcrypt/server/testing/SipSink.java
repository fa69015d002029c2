package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A user agent that only listens: a UDP socket on another loopback address (127.0.0.2 by default,
 * so nothing of the server's own lands there) that records every SIP request reaching it and
 * answers each but ACK (INVITE with 486, the rest with 200) to the top Via, so the proxy's
 * transactions end. Tests use it as the victim of an attack: it must stay empty.
 * Threading: thread-safe; one daemon reader thread fills it, test threads read it.
 */
public final class SipSink implements AutoCloseable {

    private final DatagramSocket socket;
    private final Thread reader;
    private final List<String> requests = new ArrayList<>();

    private SipSink(DatagramSocket socket) {
        this.socket = socket;
        this.reader = new Thread(this::read, "sip-sink-" + socket.getLocalPort());
        reader.setDaemon(true);
        reader.start();
    }

    /** A sink on {@code 127.0.0.2} and an ephemeral port. */
    public static SipSink start() throws IOException {
        return start("127.0.0.2");
    }

    /** A sink on a loopback address of the caller's choice. */
    public static SipSink start(String loopbackAddress) throws IOException {
        InetAddress a = InetAddress.getByName(loopbackAddress);
        if (!a.isLoopbackAddress()) {
            throw new IllegalArgumentException("not a loopback address: " + loopbackAddress);
        }
        return new SipSink(new DatagramSocket(new InetSocketAddress(a, 0)));
    }

    /** {@code 127.0.0.2:port}. */
    public String hostPort() {
        return socket.getLocalAddress().getHostAddress() + ":" + socket.getLocalPort();
    }

    /** {@code sip:user@127.0.0.2:port}. */
    public String uri(String user) {
        return "sip:" + user + "@" + hostPort();
    }

    /** Every request received so far (retransmissions included), in order. */
    public synchronized List<String> requests() {
        return List.copyOf(requests);
    }

    /** The request lines received so far, e.g. {@code INVITE sip:victim@127.0.0.2:4000 SIP/2.0}. */
    public synchronized List<String> requestLines() {
        return requests.stream().map(r -> r.substring(0, r.indexOf("\r\n"))).toList();
    }

    /** Waits until a request starting with {@code method} arrives; fails when none does in time. */
    public synchronized String await(String method, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String r : requests) {
                if (r.startsWith(method + " ")) {
                    return r;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + method + " reached the sink within " + timeout + "; got "
                        + requestLines());
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    private void read() {
        byte[] buf = new byte[65_535];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
            } catch (SocketException e) {
                return;
            } catch (IOException e) {
                continue;
            }
            String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
            if (m.startsWith("SIP/2.0") || m.isBlank()) {
                continue;
            }
            synchronized (this) {
                requests.add(m);
                notifyAll();
            }
            if (!m.startsWith("ACK ")) {
                answer(m);
            }
        }
    }

    private void answer(String request) {
        String status = request.startsWith("INVITE ") ? "486 Busy Here" : "200 OK";
        // the top Via, long or compact, blanks allowed before the colon (RFC 3261 HCOLON)
        String via = request.lines().filter(l -> {
            String name = SipSocket.headerName(l);
            return name.equals("via") || name.equals("v");
        }).findFirst().orElse(null);
        if (via == null || !via.contains("SIP/2.0/")) {
            return;
        }
        String[] sentBy = via.substring(via.indexOf(' ', via.indexOf("SIP/2.0/")) + 1).split("[;,]")[0].trim().split(":");
        try {
            byte[] bytes = SipSocket.response(request, status).getBytes(StandardCharsets.UTF_8);
            socket.send(new DatagramPacket(bytes, bytes.length,
                    new InetSocketAddress(sentBy[0], sentBy.length > 1 ? Integer.parseInt(sentBy[1]) : 5060)));
        } catch (IOException | RuntimeException e) {
            // an answer the proxy misses only makes it retransmit; the test reads what arrived
        }
    }

    @Override
    public void close() {
        socket.close();
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
