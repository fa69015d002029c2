package org.sipcrypt.lab.loadgen;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one side of a leg counts on the wire: bytes sent and received (TCP payload or datagram
 * payload, so TLS records with their overhead), TLS handshakes completed and how many of them
 * resumed a session, failed handshakes, and SIP retransmissions sent.
 * Threading: thread-safe; never blocks.
 */
public final class LegCounters {

    final LongAdder bytesSent = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder handshakes = new LongAdder();
    final LongAdder resumed = new LongAdder();
    final LongAdder handshakesFailed = new LongAdder();
    final LongAdder retransmissions = new LongAdder();

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
}
