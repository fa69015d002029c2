package org.sipcrypt.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * TLS handshakes against the server for {@link TlsCallLoad}: connections opened a fixed number at a
 * time, each with a handshake, one OPTIONS to the server itself ({@code sip:HOST:PORT;transport=tls})
 * and its 200, then closed. With
 * resumption, one connection made first (not measured) yields the session every later connection
 * offers; how many the server actually resumed is counted. The handshake time is from the TCP
 * connect to the end of the handshake.
 * Threading: the calling thread runs the phases; threads {@code tls-load-hs-N} open the
 * connections; counters are atomic and the histogram is guarded by itself.
 */
final class HandshakeLoad {

    private final TlsConnector connector;
    private final TlsCallLoad.Options options;
    private final Histogram handshakeMicros = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger resumed = new AtomicInteger();
    private final AtomicInteger warmup = new AtomicInteger();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final AtomicLong callIds = new AtomicLong();
    private final String run = Long.toString(System.currentTimeMillis() % 100_000_000, 36);
    private volatile String suite = "-";

    HandshakeLoad(TlsConnector connector, TlsCallLoad.Options options) {
        this.connector = connector;
        this.options = options;
    }

    /** Runs the priming connection, the warm-up and the measured handshakes; prints the result. */
    int run() throws InterruptedException {
        if (options.resume()) {
            try {
                connectOnce(false);
            } catch (IOException e) {
                System.err.println("TlsCallLoad: the first connection failed: " + e);
                System.out.println("RESULT mode=handshakes error=connect handshakes=0 failed=" + options.handshakes());
                return 1;
            }
            if (options.client() == TlsConnector.ClientKind.BC && !connector.hasSessionToOffer()) {
                System.err.println("TlsCallLoad: the server granted no resumable session (no session ID); "
                        + "later connections make full handshakes");
            }
        }
        if (options.warmupSeconds() > 0) {
            long deadline = System.nanoTime() + (long) (options.warmupSeconds() * 1e9);
            phase(() -> System.nanoTime() < deadline, false);
        }
        AtomicInteger next = new AtomicInteger();
        TlsCallLoad.window("start");
        long start = System.nanoTime();
        phase(() -> next.getAndIncrement() < options.handshakes(), true);
        long end = System.nanoTime();
        TlsCallLoad.window("end");
        double elapsed = (end - start) / 1e9;
        String p;
        synchronized (handshakeMicros) {
            p = TlsCallLoad.percentiles(handshakeMicros);
        }
        System.out.printf(Locale.ROOT, "RESULT mode=handshakes %s handshakes=%d failed=%d resumed=%d concurrency=%d"
                        + " warmup=%d elapsed_s=%.3f hs_per_s=%.1f %s failures=%s%n",
                TlsCallLoad.describe(options, suite), ok.get(), failed.get(), resumed.get(), options.concurrency(),
                warmup.get(), elapsed, elapsed > 0 ? ok.get() / elapsed : 0, p, TlsCallLoad.counts(failures));
        System.err.printf(Locale.ROOT, "%s, %s: %d connections, %d at a time%s: %d ok (%d resumed), %d failed"
                        + " in %.2f s = %.1f handshakes/s; handshake %s%n",
                TlsCallLoad.hostPort(options.target()), suite, options.handshakes(), options.concurrency(),
                options.resume() ? ", resuming" : "", ok.get(), resumed.get(), failed.get(), elapsed,
                elapsed > 0 ? ok.get() / elapsed : 0, p);
        if (!failures.isEmpty()) {
            System.err.println("  failures: " + TlsCallLoad.counts(failures));
        }
        return 0;
    }

    /** Opens connections on {@code concurrency} threads while {@code more} says so. */
    private void phase(BooleanSupplier more, boolean measured) throws InterruptedException {
        AtomicInteger threads = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(options.concurrency(), r -> {
            Thread t = new Thread(r, "tls-load-hs-" + threads.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < options.concurrency(); i++) {
            pool.execute(() -> {
                while (more.getAsBoolean()) {
                    try {
                        connectOnce(measured);
                    } catch (IOException | RuntimeException e) {
                        if (measured) {
                            failed.incrementAndGet();
                            String text = e.getMessage() == null ? "" : ":" + e.getMessage();
                            String reason = e.getClass().getSimpleName() + text.substring(0, Math.min(text.length(), 60));
                            failures.computeIfAbsent(reason, k -> new LongAdder()).increment();
                        }
                    }
                }
            });
        }
        pool.shutdown();
        // every connection is bounded by the connect, handshake and answer timeouts
        long bound = (long) ((options.handshakes() + 1) * (2 * options.handshakeTimeoutSeconds() + 5))
                + (long) options.warmupSeconds() + 60;
        if (!pool.awaitTermination(bound, TimeUnit.SECONDS)) {
            pool.shutdownNow();
            throw new IllegalStateException("handshake workers still running after " + bound + " s");
        }
    }

    /** One connection: handshake, OPTIONS, its final response, close. */
    private void connectOnce(boolean measured) throws IOException {
        try (TlsConnector.Link link = connector.open()) {
            suite = link.suite;
            String local = link.localHostPort();
            String host = local.substring(0, local.lastIndexOf(':'));
            long n = callIds.incrementAndGet();
            // the server's own address with its port: a URI without a port means 5060 (RFC 3263 §4.2),
            // which is the server only when it listens there
            String server = link.socket.getInetAddress().getHostAddress() + ":" + link.socket.getPort();
            String options = "OPTIONS sip:" + server + ";transport=tls SIP/2.0\r\n"
                    + "Via: SIP/2.0/TLS " + local + ";branch=z9hG4bK-hs" + run + "-" + n + ";rport\r\n"
                    + "Max-Forwards: 70\r\n"
                    + "From: <sip:tlsload@" + host + ">;tag=h" + n + "\r\n"
                    + "To: <sip:" + server + ">\r\n"
                    + "Call-ID: tlsload-hs-" + run + "-" + n + "\r\n"
                    + "CSeq: 1 OPTIONS\r\n"
                    + "Content-Length: 0\r\n\r\n";
            link.out.write(options.getBytes(StandardCharsets.UTF_8));
            link.out.flush();
            SipStreamReader reader = new SipStreamReader(link.in);
            SipStreamReader.Message m;
            do {
                m = reader.next();
            } while (m != null && (!m.isResponse() || m.status() < 200));
            if (m == null) {
                throw new IOException("the server closed the connection before answering OPTIONS");
            }
            if (m.status() != 200) {
                throw new IOException("OPTIONS answered " + m.startLine());
            }
            if (measured) {
                ok.incrementAndGet();
                if (link.resumed) {
                    resumed.incrementAndGet();
                }
                synchronized (handshakeMicros) {
                    handshakeMicros.recordValue(link.handshakeNanos / 1000);
                }
            } else {
                warmup.incrementAndGet();
            }
        }
    }
}
