package org.sipcrypt.lab.metrics;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Response times (from when an operation was due until its first final success response, e.g. a
 * call's 200) in microseconds, up to one hour
 * with three significant digits: one recorder for the current interval and a total for the
 * measured part of a run (operations due after the warm-up). A histogram travels between generator
 * processes as HdrHistogram's compressed encoding in Base64 ({@link #encode}, {@link #decode}), so the
 * runs of several processes add up exactly.
 * Threading: {@link #record} is thread-safe and never blocks; {@link #takeInterval} from one thread.
 */
public final class CallTimer {

    static final long MAX_MICROS = 3_600_000_000L;
    static final int DIGITS = 3;

    private final Recorder interval = new Recorder(MAX_MICROS, DIGITS);
    private final Histogram total = newHistogram();
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

    /** An empty histogram of the timer's range and precision. */
    public static Histogram newHistogram() {
        return new Histogram(MAX_MICROS, DIGITS);
    }

    /** The compressed encoding of a histogram in Base64. */
    public static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buf.array(), n));
    }

    /**
     * The histogram of an {@link #encode} text.
     *
     * @throws IllegalArgumentException the text is not Base64 of a compressed histogram
     */
    public static Histogram decode(String base64) {
        try {
            ByteBuffer buf = ByteBuffer.wrap(Base64.getDecoder().decode(base64));
            return Histogram.decodeFromCompressedByteBuffer(buf, MAX_MICROS);
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("not an encoded response-time histogram: " + e.getMessage(), e);
        }
    }
}
