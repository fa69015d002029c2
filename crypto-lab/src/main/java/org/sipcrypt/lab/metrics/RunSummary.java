package org.sipcrypt.lab.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The measured part of a generator run: calls, failure causes and call response times of the calls
 * due after the warm-up; traffic, TLS handshakes, retransmissions and the generator's CPU over the
 * time from the first sample after the warm-up to the end (so a handshake of a warm-up call that
 * completes after the warm-up is counted); and why the run stopped early if it did.
 * Threading: immutable.
 *
 * @param description      what ran: target, transport, connection pattern, TLS engine and suites
 * @param rate             calls per second offered
 * @param seconds          length of the measured part
 * @param offered          calls due
 * @param started          calls whose INVITE was sent
 * @param completed        calls whose BYE was answered 200
 * @param failed           calls that failed
 * @param causes           failures per cause: {@code timeout}, {@code unexpected}, {@code status_NNN},
 *                         {@code connect}, {@code transport}, {@code generator_overload}
 * @param crtCount         call response times recorded
 * @param crtP50Ms         median CRT in ms
 * @param crtP90Ms         90th percentile
 * @param crtP99Ms         99th percentile
 * @param crtMaxMs         maximum
 * @param buckets          CRT counts per {@link CrtBuckets} bucket
 * @param bytesSent        bytes sent on the wire
 * @param bytesReceived    bytes received on the wire
 * @param handshakes       TLS handshakes completed
 * @param resumed          of them resumed
 * @param retransmissions  SIP retransmissions sent
 * @param cpuPercent       generator CPU in % of one core, mean over the measured part (-1 unknown)
 * @param cores            processors available to the generator
 * @param saturated        whether the generator used above 90 % of its cores or fell behind its
 *                         schedule by more than 100 ms: the run says nothing about the target then
 * @param maxArrivalLagMs  the most a call was dispatched after it was due
 * @param stoppedEarly     why the run stopped before its end, or null
 * @param maxFailedPct     the failure threshold
 */
public record RunSummary(String description, double rate, double seconds, long offered, long started, long completed,
                         long failed, Map<String, Long> causes, long crtCount, double crtP50Ms, double crtP90Ms,
                         double crtP99Ms, double crtMaxMs, long[] buckets, long bytesSent, long bytesReceived,
                         long handshakes, long resumed, long retransmissions, double cpuPercent, int cores,
                         boolean saturated, double maxArrivalLagMs, String stoppedEarly, double maxFailedPct) {

    public RunSummary {
        causes = Map.copyOf(causes);
        buckets = buckets.clone();
    }

    @Override
    public long[] buckets() {
        return buckets.clone();
    }

    /** Failed calls in % of those started (of those due when none started). */
    public double failedPct() {
        long base = Math.max(started, 1);
        return failed * 100.0 / base;
    }

    /** Whether the run counts as passed: not stopped early and failures within the threshold. */
    public boolean passed() {
        return stoppedEarly == null && failedPct() <= maxFailedPct && offered > 0;
    }

    /** The summary printed at the end. */
    public String text() {
        StringBuilder b = new StringBuilder();
        b.append("summary: ").append(description).append('\n');
        b.append(String.format(Locale.ROOT, "  calls: offered %d started %d completed %d failed %d (%.2f %%) in %.1f s"
                        + " at %.1f cps offered, %.1f cps completed%n", offered, started, completed, failed, failedPct(),
                seconds, rate, seconds > 0 ? completed / seconds : 0.0));
        if (!causes.isEmpty()) {
            b.append("  failures: ").append(new TreeMap<>(causes)).append('\n');
        }
        b.append(String.format(Locale.ROOT, "  CRT ms: p50 %.1f p90 %.1f p99 %.1f max %.1f (%d calls); buckets",
                crtP50Ms, crtP90Ms, crtP99Ms, crtMaxMs, crtCount));
        for (int i = 0; i < buckets.length; i++) {
            b.append(' ').append(CrtBuckets.NAMES[i]).append(": ").append(buckets[i]);
        }
        b.append('\n');
        b.append(String.format(Locale.ROOT, "  traffic: %.1f kbps out, %.1f kbps in; tls handshakes %d (resumed %d);"
                        + " retransmissions %d%n", seconds > 0 ? bytesSent * 8 / 1000.0 / seconds : 0.0,
                seconds > 0 ? bytesReceived * 8 / 1000.0 / seconds : 0.0, handshakes, resumed, retransmissions));
        b.append(String.format(Locale.ROOT, "  generator: cpu %.0f %% of one core (%d cores), max arrival lag %.1f ms%s%n",
                cpuPercent, cores, maxArrivalLagMs, saturated ? " -- SATURATED: this run does not measure the target" : ""));
        b.append(stoppedEarly != null ? "  stopped early: " + stoppedEarly + "\n" : "");
        b.append("  result: ").append(passed() ? "ok" : "FAILED").append(String.format(Locale.ROOT,
                " (threshold %.2f %% failed)", maxFailedPct));
        return b.toString();
    }

    /** The summary as a JSON object. */
    public String json() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "{\"description\":\"%s\",\"rate\":%.3f,\"seconds\":%.3f,\"offered\":%d,"
                        + "\"started\":%d,\"completed\":%d,\"failed\":%d,\"failedPct\":%.4f,\"causes\":{",
                escape(description), rate, seconds, offered, started, completed, failed, failedPct()));
        boolean first = true;
        for (Map.Entry<String, Long> e : new TreeMap<>(causes).entrySet()) {
            b.append(first ? "" : ",").append('"').append(escape(e.getKey())).append("\":").append(e.getValue());
            first = false;
        }
        b.append(String.format(Locale.ROOT, "},\"crtCount\":%d,\"crtP50Ms\":%.3f,\"crtP90Ms\":%.3f,\"crtP99Ms\":%.3f,"
                        + "\"crtMaxMs\":%.3f,\"buckets\":{", crtCount, crtP50Ms, crtP90Ms, crtP99Ms, crtMaxMs));
        for (int i = 0; i < buckets.length; i++) {
            b.append(i == 0 ? "" : ",").append('"').append(CrtBuckets.NAMES[i]).append("\":").append(buckets[i]);
        }
        b.append(String.format(Locale.ROOT, "},\"bytesSent\":%d,\"bytesReceived\":%d,\"handshakes\":%d,\"resumed\":%d,"
                        + "\"retransmissions\":%d,\"cpuPercent\":%.1f,\"cores\":%d,\"saturated\":%b,"
                        + "\"maxArrivalLagMs\":%.3f,\"stoppedEarly\":%s,\"maxFailedPct\":%.3f,\"passed\":%b}",
                bytesSent, bytesReceived, handshakes, resumed, retransmissions, cpuPercent, cores, saturated,
                maxArrivalLagMs, stoppedEarly == null ? "null" : "\"" + escape(stoppedEarly) + "\"", maxFailedPct,
                passed()));
        return b.toString();
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
