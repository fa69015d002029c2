package org.sipcrypt.lab.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Call response times (INVITE sent, or due, until the 200 arrived) in microseconds, up to one hour
 * with three significant digits: one recorder for the current interval and a total for the
 * measured part of a run (calls started after the warm-up).
 * Threading: {@link #record} is thread-safe and never blocks; {@link #takeInterval} from one thread.
 */
public final class CallTimer {

    private static final long MAX_MICROS = 3_600_000_000L;

    private final Recorder interval = new Recorder(MAX_MICROS, 3);
    private final Histogram total = new Histogram(MAX_MICROS, 3);
    private Histogram recycled;

    /** Records one call; {@code measured} false for warm-up calls (interval only). */
    public void record(long micros, boolean measured) {
        long v = Math.max(0, Math.min(micros, MAX_MICROS));
        interval.recordValue(v);
        if (measured) {
            synchronized (total) {
                total.recordValue(v);
            }
        }
    }

    /** The times recorded since the last call; the returned histogram is valid until the next call. */
    public Histogram takeInterval() {
        recycled = interval.getIntervalHistogram(recycled);
        return recycled;
    }

    /** A copy of the measured total. */
    public Histogram total() {
        synchronized (total) {
            return total.copy();
        }
    }
}
