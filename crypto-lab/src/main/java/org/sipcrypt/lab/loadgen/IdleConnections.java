package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.sipcrypt.server.transport.Transport;

/**
 * Idle connections to the server under test, for its heap per idle connection: N stream
 * connections (TCP, TLS, WS or WSS) opened from the generator's side of a leg, each (once its TLS
 * handshake, or its WebSocket upgrade, is done) sending one OPTIONS to the server itself and taking
 * its final answer, whatever the status (a flow the server has read a whole message on, so its
 * first-message timeout does not close it), then silent until {@link #close()}. With TLS every
 * connection makes a full handshake: the caller's options should have session reuse off, as from
 * N different clients. At most {@value #IN_FLIGHT} connections are being opened at a time; the
 * opening is bounded by a deadline, each connection by the connector's timeout.
 * Threading: {@link #open} blocks (never call it on an event loop), the connections' callbacks run on
 * the generator's event loops; the rest is thread-safe and never blocks.
 */
public final class IdleConnections implements AutoCloseable {

    /** Connections being opened at once: enough to keep the server's one CPU busy, few enough to time each. */
    static final int IN_FLIGHT = 16;

    private final List<StreamConnection> held;
    private final int failed;
    private final String firstFailure;
    private final long openNanos;

    private IdleConnections(List<StreamConnection> held, int failed, String firstFailure, long openNanos) {
        this.held = held;
        this.failed = failed;
        this.firstFailure = firstFailure;
        this.openNanos = openNanos;
    }

    /**
     * Opens {@code count} connections to {@code target} and returns once each is held or has failed
     * (or the deadline passed: those not begun are not opened, and count as failed).
     *
     * @param transport a stream transport
     * @param tls       the TLS options for TLS and WSS (session reuse off for full handshakes), else null
     * @param timeout   bound on each connection's connect, handshake and answer
     * @param deadline  bound on opening them all
     * @throws IOException the TLS options cannot be used (a file unreadable)
     */
    public static IdleConnections open(InetSocketAddress target, Transport transport, TlsOptions tls, int count,
                                       Duration timeout, Duration deadline) throws IOException, InterruptedException {
        Objects.requireNonNull(target, "target");
        if (transport == Transport.UDP) {
            throw new IllegalArgumentException("idle connections: a stream transport, not udp");
        }
        if (count < 1) {
            throw new IllegalArgumentException("idle connections: " + count + " (expected at least 1)");
        }
        LegConnector connector = new LegConnector(transport, tls, new LegCounters(), timeout, LabEventLoops.uac(),
                Duration.ZERO, false);
        List<StreamConnection> held = java.util.Collections.synchronizedList(new ArrayList<>(count));
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstFailure = new AtomicReference<>();
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        long start = System.nanoTime();
        long end = start + deadline.toNanos();
        int begun = 0;
        while (begun < count && System.nanoTime() < end) {
            if (!inFlight.tryAcquire(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                break;
            }
            int n = begun++;
            one(connector, target, n, timeout).whenComplete((c, e) -> {
                if (e == null) {
                    held.add(c);
                } else {
                    failed.incrementAndGet();
                    firstFailure.compareAndSet(null, e instanceof java.util.concurrent.CompletionException
                            && e.getCause() != null ? e.getCause().toString() : e.toString());
                }
                inFlight.release();
            });
        }
        // every begun connection ends within its timeout: connect and handshake, then the answer
        if (!inFlight.tryAcquire(IN_FLIGHT, timeout.toNanos() * 3 + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS)) {
            throw new IOException("idle connections: " + (IN_FLIGHT - inFlight.availablePermits())
                    + " still opening after their timeout");
        }
        long took = System.nanoTime() - start;
        List<StreamConnection> list;
        synchronized (held) {
            list = new ArrayList<>(held);
        }
        return new IdleConnections(list, failed.get() + (count - begun), firstFailure.get(), took);
    }

    /** One connection: connected (and secured), its OPTIONS sent, completed by its final answer. */
    private static CompletableFuture<StreamConnection> one(LegConnector connector, InetSocketAddress target, int n,
                                                           Duration timeout) {
        CompletableFuture<StreamConnection> answered = new CompletableFuture<>();
        AtomicReference<StreamConnection> connected = new AtomicReference<>();
        StreamConnection.Listener listener = new StreamConnection.Listener() {
            @Override
            public void message(StreamConnection from, SipMessage message) {
                if (message.isResponse() && message.status() >= 200) {
                    answered.complete(from);
                }
            }

            @Override
            public void closed(StreamConnection connection, String reason) {
                answered.completeExceptionally(new IOException("closed before an answer: " + reason));
            }
        };
        connector.connect(target, listener).whenComplete((c, e) -> {
            if (e != null) {
                answered.completeExceptionally(e);
                return;
            }
            connected.set(c);
            if (answered.isDone()) {
                // timed out while connecting: nothing may stay open
                c.close();
                return;
            }
            try {
                c.send(options(c, target, n));
            } catch (IOException | RuntimeException ex) {
                c.close();
                answered.completeExceptionally(ex);
            }
        });
        return answered.orTimeout(timeout.toMillis() * 2, TimeUnit.MILLISECONDS).whenComplete((c, e) -> {
            StreamConnection open = connected.get();
            if (e != null && open != null) {
                open.close();
            }
        });
    }

    /** An OPTIONS to the server itself (RFC 3261 §11), from this connection's own address. */
    static byte[] options(StreamConnection c, InetSocketAddress target, int n) {
        InetSocketAddress self = c.localAddress();
        String me = self.getAddress().getHostAddress() + ":" + self.getPort();
        String server = target.getAddress().getHostAddress() + ":" + target.getPort();
        String callId = "lab-idle-" + n + "-" + System.nanoTime();
        String text = "OPTIONS sip:" + server + ";transport=" + c.uriTransport() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + c.viaTransport() + " " + me + ";branch=z9hG4bK" + callId + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:lab-idle@" + self.getAddress().getHostAddress() + ">;tag=idle" + n + "\r\n"
                + "To: <sip:" + server + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Contact: <sip:lab-idle@" + me + ";transport=" + c.uriTransport() + ">\r\n"
                + "Content-Length: 0\r\n\r\n";
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** Connections held: handshake done and OPTIONS answered. */
    public int held() {
        return held.size();
    }

    /** Connections that could not be opened, or were not begun before the deadline. */
    public int failed() {
        return failed;
    }

    /** The first failure, or null when none failed. */
    public String firstFailure() {
        return firstFailure;
    }

    /** How long opening them took. */
    public Duration openTime() {
        return Duration.ofNanos(openNanos);
    }

    /** How many of the held connections are still open (the server may close one). */
    public int stillOpen() {
        return (int) held.stream().filter(c -> !c.isClosed()).count();
    }

    /** Closes every held connection (TLS: close_notify first) and returns at once. */
    @Override
    public void close() {
        held.forEach(StreamConnection::close);
    }
}
