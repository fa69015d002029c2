package org.sipcrypt.lab.loadgen;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.sipcrypt.lab.metrics.HandshakeTimer;
import org.sipcrypt.lab.metrics.TlsFlights;

/**
 * What one side of a leg counts on the wire: bytes sent and received (TCP payload or datagram
 * payload, so TLS records with their overhead), TLS handshakes completed and how many of them
 * resumed a session, failed handshakes, SIP retransmissions sent, the round trips its stream
 * connections waited out in the lab delay stage, the sizes of the first full and the first
 * resumed handshake its client connections made ({@link TlsFlights}), and, once a run hands it a
 * {@link HandshakeTimer}, how long those handshakes took.
 * Threading: thread-safe; never blocks.
 */
public final class LegCounters {

    final LongAdder bytesSent = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder handshakes = new LongAdder();
    final LongAdder resumed = new LongAdder();
    final LongAdder handshakesFailed = new LongAdder();
    final LongAdder retransmissions = new LongAdder();
    final LongAdder delayedRoundTrips = new LongAdder();
    private final AtomicReference<TlsFlights> fullHandshake = new AtomicReference<>();
    private final AtomicReference<TlsFlights> resumedHandshake = new AtomicReference<>();
    private volatile HandshakeTimer handshakeTimer;

    /** Bytes sent so far. */
    public long bytesSent() {
        return bytesSent.sum();
    }

    /** Bytes received so far. */
    public long bytesReceived() {
        return bytesReceived.sum();
    }

    /** TLS handshakes completed so far (full and resumed). */
    public long handshakes() {
        return handshakes.sum();
    }

    /** TLS handshakes so far that resumed a session. */
    public long resumed() {
        return resumed.sum();
    }

    /** TLS handshakes that failed. */
    public long handshakesFailed() {
        return handshakesFailed.sum();
    }

    /** SIP retransmissions sent (UDP timers A, E and G). */
    public long retransmissions() {
        return retransmissions.sum();
    }

    /**
     * Round trips this side's stream connections waited for across the lab delay stage: each
     * connection it opened (TCP's SYN and SYN-ACK), and each read passed up after this side wrote
     * since the last one (a flight out and its answer back); 0 without a delay.
     */
    public long delayedRoundTrips() {
        return delayedRoundTrips.sum();
    }

    /** Keeps {@code flights} when they are the first of their kind (full or resumed) on this side. */
    void handshakeFlights(boolean resumed, TlsFlights flights) {
        (resumed ? resumedHandshake : fullHandshake).compareAndSet(null, flights);
    }

    /** From now on the handshakes of this side's client connections are timed into {@code timer}. */
    void timeHandshakes(HandshakeTimer timer) {
        handshakeTimer = timer;
    }

    /**
     * Times a handshake of a client connection of this side, from its ClientHello's first byte
     * written to its TLS stage reporting it done ({@link System#nanoTime()}); nothing before
     * {@link #timeHandshakes}.
     */
    void handshakeTime(boolean resumed, long clientHelloNanos, long doneNanos) {
        HandshakeTimer t = handshakeTimer;
        if (t != null) {
            t.record(clientHelloNanos, doneNanos, resumed);
        }
    }

    /** The sizes of the first full handshake a client connection of this side made, or null. */
    public TlsFlights fullHandshake() {
        return fullHandshake.get();
    }

    /** The sizes of the first resumed handshake a client connection of this side made, or null. */
    public TlsFlights resumedHandshake() {
        return resumedHandshake.get();
    }
}
