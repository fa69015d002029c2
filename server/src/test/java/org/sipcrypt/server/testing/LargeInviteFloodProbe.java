package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A memory probe, not a test: sends a bounded number of legal INVITEs of about 50 KB (780 Via lines,
 * no credentials) over UDP at a fixed rate to a server on loopback, optionally with a made-up To
 * tag, counts the answers by status, then sends one OPTIONS and prints how long its answer took.
 * JDK only, so that it runs from the test classes against the server jar:
 * <pre>
 * java -cp server/target/test-classes org.sipcrypt.server.testing.LargeInviteFloodProbe \
 *     127.0.0.1 5060 10000 450 [to-tag]
 * </pre>
 * Stops by itself: the count, and at most count / rate + 10 s of sending and 5 s of waiting.
 * Threading: a main on one thread, and one reader thread it starts and joins.
 */
public final class LargeInviteFloodProbe {

    private static final int VIA_LINES = 780;

    private LargeInviteFloodProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: LargeInviteFloodProbe HOST PORT COUNT RATE [TO-TAG]");
            System.exit(2);
        }
        InetAddress host = InetAddress.getByName(args[0]);
        if (!host.isLoopbackAddress()) {
            throw new IllegalArgumentException("loopback only: " + host);
        }
        InetSocketAddress server = new InetSocketAddress(host, Integer.parseInt(args[1]));
        int count = Integer.parseInt(args[2]);
        int rate = Integer.parseInt(args[3]);
        String toTag = args.length > 4 ? args[4] : null;
        Map<String, Integer> statuses = new TreeMap<>();
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(host, 0))) {
            socket.setSendBufferSize(4 * 1024 * 1024);
            socket.setReceiveBufferSize(8 * 1024 * 1024);
            socket.setSoTimeout(200);
            String local = host.getHostAddress() + ":" + socket.getLocalPort();
            long sendDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(count / Math.max(1, rate) + 10);
            Thread reader = new Thread(() -> read(socket, statuses, sendDeadline), "probe-reader");
            reader.start();
            long start = System.nanoTime();
            long interval = TimeUnit.SECONDS.toNanos(1) / rate;
            int sent = 0;
            int bytes = 0;
            for (; sent < count && System.nanoTime() < sendDeadline; sent++) {
                long due = start + sent * interval;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                byte[] invite = invite(local, server, "flood-" + sent + "-" + start, toTag);
                bytes = invite.length;
                socket.send(new DatagramPacket(invite, invite.length, server));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            reader.join(TimeUnit.SECONDS.toMillis(count / Math.max(1, rate) + 16));
            synchronized (statuses) {
                System.out.printf("sent %d INVITEs of %d bytes in %.1f s (%.0f/s)%s; answers by status: %s%n", sent,
                        bytes, seconds, sent / seconds, toTag == null ? "" : " with To tag " + toTag, statuses);
            }
        }
        options(server);
    }

    /** Counts answers by status line until 5 s after the sending deadline, or 5 s of silence after it. */
    private static void read(DatagramSocket socket, Map<String, Integer> statuses, long sendDeadline) {
        byte[] buf = new byte[65_535];
        long end = sendDeadline + TimeUnit.SECONDS.toNanos(5);
        long quietSince = System.nanoTime();
        while (System.nanoTime() < end) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
                quietSince = System.nanoTime();
                String text = new String(p.getData(), 0, Math.min(p.getLength(), 40), StandardCharsets.UTF_8);
                int eol = text.indexOf('\r');
                String status = eol > 0 ? text.substring(0, eol) : text;
                synchronized (statuses) {
                    statuses.merge(status, 1, Integer::sum);
                }
            } catch (SocketTimeoutException e) {
                if (System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(5)) {
                    return;
                }
            } catch (IOException e) {
                System.err.println("reader: " + e);
                return;
            }
        }
    }

    /** One OPTIONS from a fresh socket; prints its answer's status line and how long it took. */
    private static void options(InetSocketAddress server) throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(server.getAddress(), 0))) {
            s.setSoTimeout(5_000);
            String hp = server.getAddress().getHostAddress() + ":" + server.getPort();
            String local = server.getAddress().getHostAddress() + ":" + s.getLocalPort();
            String options = "OPTIONS sip:" + hp + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP " + local + ";branch=z9hG4bK-probe-options-" + System.nanoTime() + ";rport\r\n"
                    + "Max-Forwards: 70\r\nFrom: <sip:probe@" + local + ">;tag=probe\r\nTo: <sip:" + hp + ">\r\n"
                    + "Call-ID: probe-options-" + System.nanoTime() + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
            byte[] b = options.getBytes(StandardCharsets.UTF_8);
            long start = System.nanoTime();
            s.send(new DatagramPacket(b, b.length, server));
            byte[] buf = new byte[65_535];
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                s.receive(p);
                String text = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                System.out.printf("OPTIONS answered in %d ms: %s%n", (System.nanoTime() - start) / 1_000_000,
                        text.substring(0, text.indexOf('\r')));
            } catch (SocketTimeoutException e) {
                System.out.println("OPTIONS not answered within 5 s");
            }
        }
    }

    private static byte[] invite(String local, InetSocketAddress server, String callId, String toTag) {
        String hp = server.getAddress().getHostAddress() + ":" + server.getPort();
        StringBuilder m = new StringBuilder("INVITE sip:bob@").append(hp).append(" SIP/2.0\r\n");
        m.append("Via: SIP/2.0/UDP ").append(local).append(";branch=z9hG4bK-").append(callId).append(";rport\r\n");
        // eight characters per call in each Via's branch: about 50 KB in all, as in the issue's probe
        String tag = String.format("%08x", callId.hashCode());
        for (int i = 1; i < VIA_LINES; i++) {
            m.append("Via: SIP/2.0/UDP 10.0.").append(i / 250).append('.').append(i % 250 + 1)
                    .append(":5060;branch=z9hG4bK-hop").append(i).append('-').append(tag).append("\r\n");
        }
        m.append("Max-Forwards: 70\r\n")
                .append("From: <sip:carol@").append(local).append(">;tag=carol\r\n")
                .append("To: <sip:bob@").append(hp).append('>').append(toTag == null ? "" : ";tag=" + toTag)
                .append("\r\n")
                .append("Call-ID: ").append(callId).append("\r\n")
                .append("CSeq: 1 INVITE\r\n")
                .append("Contact: <sip:carol@").append(local).append(">\r\n")
                .append("Content-Length: 0\r\n\r\n");
        return m.toString().getBytes(StandardCharsets.UTF_8);
    }
}
