package org.sipcrypt.lab.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The call-response-time buckets the literature reports: 0–30, 31–60, 61–90, 91–120, 121–150 and
 * above 150 ms. A time belongs to the bucket whose upper bound it does not exceed, so 30.4 ms is in
 * 31–60 (bounds are whole milliseconds, the histogram holds microseconds).
 * Threading: immutable.
 */
public final class CrtBuckets {

    /** Upper bounds in ms of every bucket but the last. */
    public static final long[] UPPER_MS = {30, 60, 90, 120, 150};
    /** The bucket names, as in reports. */
    public static final String[] NAMES = {"0-30", "31-60", "61-90", "91-120", "121-150", ">150"};

    private CrtBuckets() {
    }

    /**
     * Counts per bucket of a histogram of microseconds. Each of the histogram's value ranges (a few
     * microseconds wide at these times) goes whole to the bucket of its lowest value, so every time
     * is counted once.
     */
    public static long[] of(Histogram micros) {
        long[] out = new long[NAMES.length];
        for (HistogramIterationValue v : micros.recordedValues()) {
            long low = micros.lowestEquivalentValue(v.getValueIteratedTo());
            int i = 0;
            while (i < UPPER_MS.length && low > UPPER_MS[i] * 1000) {
                i++;
            }
            out[i] += v.getCountAtValueIteratedTo();
        }
        return out;
    }
}
