package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The idle-connection flood of the benchmarks (scenarios/flood/tcp-flood.sh): opens N TCP
 * connections from one loopback address to the server and sends nothing on them, then probes from
 * another loopback address whether new clients still connect and get an OPTIONS answered, and
 * counts how many flood connections the server kept, reset or closed. A benchmark driver, not a
 * test: it prints a result and fails only when it cannot run. Bounded: at most N connections and a
 * deadline for the whole run; it closes everything it opened before it exits. JDK classes only, so
 * it runs from the test classes directory alone.
 * <pre>
 * java -cp server/target/test-classes org.sipcrypt.server.testing.TcpFloodProbe \
 *     --target 127.0.0.1:5060 --connections 12000 --flood-from 127.0.0.1 --probe-from 127.0.0.2 \
 *     --probes 20 --probe-timeout 5 --deadline 300
 * </pre>
 * Threading: one thread (the caller's).
 */
public final class TcpFloodProbe {

    private final InetSocketAddress target;
    private final int connections;
    private final InetAddress floodFrom;
    private final InetAddress probeFrom;
    private final int probes;
    private final long probeTimeoutMillis;
    private final long deadlineNanos;

    private TcpFloodProbe(InetSocketAddress target, int connections, InetAddress floodFrom, InetAddress probeFrom,
                          int probes, long probeTimeoutMillis, long deadlineSeconds) {
        this.target = target;
        this.connections = connections;
        this.floodFrom = floodFrom;
        this.probeFrom = probeFrom;
        this.probes = probes;
        this.probeTimeoutMillis = probeTimeoutMillis;
        this.deadlineNanos = System.nanoTime() + deadlineSeconds * 1_000_000_000L;
    }

    public static void main(String[] args) throws Exception {
        String target = "127.0.0.1:5060";
        int connections = 12_000;
        String floodFrom = "127.0.0.1";
        String probeFrom = "127.0.0.2";
        int probes = 20;
        long probeTimeout = 5;
        long deadline = 300;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            if (value == null) {
                usage("option " + args[i] + " needs a value");
            }
            switch (args[i++]) {
                case "--target" -> target = value;
                case "--connections" -> connections = Integer.parseInt(value);
                case "--flood-from" -> floodFrom = value;
                case "--probe-from" -> probeFrom = value;
                case "--probes" -> probes = Integer.parseInt(value);
                case "--probe-timeout" -> probeTimeout = Long.parseLong(value);
                case "--deadline" -> deadline = Long.parseLong(value);
                default -> usage("unknown option " + args[i - 1]);
            }
        }
        int colon = target.lastIndexOf(':');
        if (colon < 0 || connections < 1 || probes < 1 || probeTimeout < 1 || deadline < 1) {
            usage("expected --target HOST:PORT and positive counts and times");
        }
        InetSocketAddress t = new InetSocketAddress(InetAddress.getByName(target.substring(0, colon)),
                Integer.parseInt(target.substring(colon + 1)));
        new TcpFloodProbe(t, connections, InetAddress.getByName(floodFrom), InetAddress.getByName(probeFrom), probes,
                probeTimeout * 1000, deadline).run();
    }

    private static void usage(String problem) {
        System.err.println("TcpFloodProbe: " + problem + "\nusage: --target HOST:PORT [--connections N]"
                + " [--flood-from ADDR] [--probe-from ADDR] [--probes N] [--probe-timeout S] [--deadline S]");
        System.exit(2);
    }

    private boolean timeLeft() {
        return System.nanoTime() < deadlineNanos;
    }

    private void run() throws IOException {
        List<SocketChannel> flood = new ArrayList<>(connections);
        try {
            long start = System.nanoTime();
            int connectFailures = 0;
            String firstFailure = null;
            for (int i = 0; i < connections && timeLeft(); i++) {
                SocketChannel ch = SocketChannel.open();
                try {
                    ch.setOption(StandardSocketOptions.SO_LINGER, 0);
                    ch.bind(new InetSocketAddress(floodFrom, 0));
                    ch.socket().connect(target, 2000);
                    ch.configureBlocking(false);
                    flood.add(ch);
                } catch (IOException e) {
                    ch.close();
                    connectFailures++;
                    if (firstFailure == null) {
                        firstFailure = e.toString();
                    }
                }
            }
            long openMillis = (System.nanoTime() - start) / 1_000_000;
            settle();
            int openAfterFlood = stillOpen(flood);
            long[] latencies = new long[probes];
            int answered = 0;
            String probeFailure = null;
            for (int i = 0; i < probes && timeLeft(); i++) {
                long t0 = System.nanoTime();
                String failure = probe(i);
                if (failure == null) {
                    latencies[answered++] = (System.nanoTime() - t0) / 1_000_000;
                } else if (probeFailure == null) {
                    probeFailure = failure;
                }
            }
            int openAfterProbes = stillOpen(flood);
            long[] ok = Arrays.copyOf(latencies, answered);
            Arrays.sort(ok);
            System.out.println("flood connections asked: " + connections + " from " + floodFrom.getHostAddress()
                    + " (opened in " + openMillis + " ms; " + connectFailures + " connects failed"
                    + (firstFailure == null ? "" : ", first: " + firstFailure) + ")");
            System.out.println("| connections from one source | still open 2 s after the flood | still open after the probes"
                    + " | probes answered from " + probeFrom.getHostAddress() + " | probe time p50 / max (ms) |");
            System.out.println("| ---: | ---: | ---: | ---: | ---: |");
            System.out.println("| " + flood.size() + " | " + openAfterFlood + " | " + openAfterProbes + " | " + answered
                    + " of " + probes + " | " + (answered == 0 ? "-" : ok[answered / 2] + " / " + ok[answered - 1]) + " |");
            if (probeFailure != null) {
                System.out.println("first probe failure: " + probeFailure);
            }
        } finally {
            for (SocketChannel ch : flood) {
                ch.close();
            }
        }
    }

    /** Gives the server 2 s to act on the last connections (it accepts and resets asynchronously). */
    private static void settle() {
        try {
            Thread.sleep(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How many flood connections the server has not closed or reset (a non-blocking read tells). */
    private static int stillOpen(List<SocketChannel> flood) {
        ByteBuffer buf = ByteBuffer.allocate(512);
        int open = 0;
        for (SocketChannel ch : flood) {
            if (!ch.isOpen()) {
                continue;
            }
            try {
                buf.clear();
                if (ch.read(buf) >= 0) {
                    open++;
                } else {
                    ch.close();
                }
            } catch (IOException e) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing a reset channel has nothing left to report
                }
            }
        }
        return open;
    }

    /** One OPTIONS from the probe address on a new connection; null when answered with 200, else why not. */
    private String probe(int n) {
        try (SocketChannel ch = SocketChannel.open()) {
            ch.bind(new InetSocketAddress(probeFrom, 0));
            ch.socket().connect(target, (int) probeTimeoutMillis);
            ch.socket().setSoTimeout((int) probeTimeoutMillis);
            int port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            String host = target.getAddress().getHostAddress() + ":" + target.getPort();
            String callId = "flood-probe-" + n + "-" + System.nanoTime();
            String options = "OPTIONS sip:" + host + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/TCP " + probeFrom.getHostAddress() + ":" + port + ";branch=z9hG4bK" + callId + ";rport\r\n"
                    + "Max-Forwards: 70\r\n"
                    + "From: <sip:probe@" + probeFrom.getHostAddress() + ">;tag=probe\r\n"
                    + "To: <sip:" + host + ">\r\n"
                    + "Call-ID: " + callId + "\r\n"
                    + "CSeq: 1 OPTIONS\r\n"
                    + "Content-Length: 0\r\n\r\n";
            ch.socket().getOutputStream().write(options.getBytes(StandardCharsets.US_ASCII));
            StringBuilder got = new StringBuilder();
            byte[] buf = new byte[4096];
            var in = ch.socket().getInputStream();
            while (!got.toString().contains("\r\n\r\n")) {
                int r = in.read(buf);
                if (r < 0) {
                    return "closed by the server before an answer";
                }
                got.append(new String(buf, 0, r, StandardCharsets.US_ASCII));
            }
            return got.toString().startsWith("SIP/2.0 200") ? null : "answered " + got.toString().lines().findFirst().orElse("");
        } catch (IOException e) {
            return e.toString();
        }
    }
}
