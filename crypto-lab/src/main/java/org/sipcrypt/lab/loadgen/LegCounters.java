package org.sipcrypt.lab.loadgen;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one side of a leg counts on the wire: bytes sent and received (TCP payload or datagram
 * payload, so TLS records with their overhead), TLS handshakes completed and how many of them
 * resumed a session, failed handshakes, SIP retransmissions sent, and the round trips its stream
 * connections waited out in the lab delay stage.
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
}
