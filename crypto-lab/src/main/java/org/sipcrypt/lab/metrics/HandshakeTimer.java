package org.sipcrypt.lab.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * TLS handshake latencies as the client sees them, from the first byte of its ClientHello written
 * towards the socket to its TLS stage reporting the handshake done, in microseconds with the range
 * and precision of {@link CallTimer} (so that {@link CallTimer#encode} carries them), full and
 * resumed handshakes apart. Only handshakes whose ClientHello was written at or after the start of
 * the measured part count, as only the operations due after the warm-up make the response times.
 * Threading: {@link #record} is thread-safe, wait-free and allocates nothing (HdrHistogram's
 * {@link Recorder}); {@link #total} is thread-safe and never blocks a recording thread.
 */
public final class HandshakeTimer {

    private final long measuredFromNanos;
    private final Recorder full = new Recorder(CallTimer.MAX_MICROS, CallTimer.DIGITS);
    private final Recorder resumed = new Recorder(CallTimer.MAX_MICROS, CallTimer.DIGITS);
    private final Histogram fullTotal = CallTimer.newHistogram();
    private final Histogram resumedTotal = CallTimer.newHistogram();

    /** @param measuredFromNanos the start of the measured part, on {@link System#nanoTime()}'s scale */
    public HandshakeTimer(long measuredFromNanos) {
        this.measuredFromNanos = measuredFromNanos;
    }

    /**
     * Records one handshake when its ClientHello went out in the measured part.
     *
     * @param clientHelloNanos when the first byte of the ClientHello was written ({@link System#nanoTime()})
     * @param doneNanos        when the handshake was reported done, on the same scale
     */
    public void record(long clientHelloNanos, long doneNanos, boolean resumedSession) {
        if (clientHelloNanos - measuredFromNanos < 0) {
            return;
        }
        long micros = Math.max(0, Math.min((doneNanos - clientHelloNanos) / 1000, CallTimer.MAX_MICROS));
        (resumedSession ? resumed : full).recordValue(micros);
    }

    /** A copy of every measured latency of one kind recorded so far. */
    public Histogram total(boolean resumedSession) {
        Histogram total = resumedSession ? resumedTotal : fullTotal;
        synchronized (total) {
            total.add((resumedSession ? resumed : full).getIntervalHistogram());
            return total.copy();
        }
    }
}
