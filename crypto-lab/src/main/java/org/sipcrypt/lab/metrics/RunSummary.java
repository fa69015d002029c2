package org.sipcrypt.lab.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The measured part of a generator run: operations (calls, registrations, ...), failure causes and
 * response times of the operations due after the warm-up; traffic, TLS handshakes, retransmissions,
 * digest challenges answered and the generator's CPU over the time from the first sample after the
 * warm-up to the end (so a handshake of a warm-up call that completes after the warm-up is counted);
 * the sizes of the first full and the first resumed TLS handshake of the whole run, warm-up included
 * (they do not change from one handshake to the next but for the length of a signature); the
 * latencies of the full and of the resumed TLS handshakes whose ClientHello went out after the
 * warm-up ({@link HandshakeTimer}); and why the run stopped early if it did. The response-time and
 * handshake-latency histograms themselves travel along ({@link #crtHistogram},
 * {@link #fullHandshakeTimes}, {@link #resumedHandshakeTimes}), so the summaries of several
 * generator processes {@link #merge} exactly, and {@link #json} is read back by {@link #parseSummaryJson}.
 * Threading: immutable.
 *
 * @param description      what ran: workload, target, transport, connection pattern, TLS engine and suites
 * @param rate             operations per second offered
 * @param seconds          length of the measured part
 * @param offered          operations due
 * @param started          operations whose first request was sent
 * @param completed        operations that ended as expected (a call: its BYE answered 200)
 * @param failed           operations that failed
 * @param causes           failures per cause: {@code timeout}, {@code unexpected}, {@code status_NNN},
 *                         {@code connect}, {@code transport}, {@code generator_overload},
 *                         {@code stopped} (due but not started when the run stopped early),
 *                         {@code auth_rejected} (a second challenge for the same request),
 *                         {@code auth_unsupported} (no challenge the generator can answer)
 * @param crtCount         response times recorded
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
 * @param challenges       digest challenges (401 and 407) answered
 * @param crtHistogram     the response times in microseconds, {@link CallTimer#encode encoded}; null
 *                         when unknown (a summary made by the constructor without it)
 * @param fullHandshake    the ClientHello and the server's first flight of the first full TLS handshake
 *                         the generator's connections made; null without one (no TLS leg from the
 *                         generator, or a summary stored before the lab measured them)
 * @param resumedHandshake the same of the first resumed handshake; null without one
 * @param fullHandshakeTimes    the latencies of the measured full TLS handshakes of the generator's
 *                              connections in microseconds, {@link CallTimer#encode encoded}; null
 *                              when none was timed (no TLS leg from the generator, none in the measured
 *                              part, or a summary stored before the lab timed them)
 * @param resumedHandshakeTimes the same of the measured resumed handshakes
 */
public record RunSummary(String description, double rate, double seconds, long offered, long started, long completed,
                         long failed, Map<String, Long> causes, long crtCount, double crtP50Ms, double crtP90Ms,
                         double crtP99Ms, double crtMaxMs, long[] buckets, long bytesSent, long bytesReceived,
                         long handshakes, long resumed, long retransmissions, double cpuPercent, int cores,
                         boolean saturated, double maxArrivalLagMs, String stoppedEarly, double maxFailedPct,
                         long challenges, String crtHistogram, TlsFlights fullHandshake,
                         TlsFlights resumedHandshake, String fullHandshakeTimes, String resumedHandshakeTimes) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public RunSummary {
        causes = Map.copyOf(causes);
        buckets = buckets.clone();
    }

    /** A summary without challenges and without the histogram (it cannot be merged). */
    public RunSummary(String description, double rate, double seconds, long offered, long started, long completed,
                      long failed, Map<String, Long> causes, long crtCount, double crtP50Ms, double crtP90Ms,
                      double crtP99Ms, double crtMaxMs, long[] buckets, long bytesSent, long bytesReceived,
                      long handshakes, long resumed, long retransmissions, double cpuPercent, int cores,
                      boolean saturated, double maxArrivalLagMs, String stoppedEarly, double maxFailedPct) {
        this(description, rate, seconds, offered, started, completed, failed, causes, crtCount, crtP50Ms, crtP90Ms,
                crtP99Ms, crtMaxMs, buckets, bytesSent, bytesReceived, handshakes, resumed, retransmissions,
                cpuPercent, cores, saturated, maxArrivalLagMs, stoppedEarly, maxFailedPct, 0, null);
    }

    /** A summary without handshake sizes. */
    public RunSummary(String description, double rate, double seconds, long offered, long started, long completed,
                      long failed, Map<String, Long> causes, long crtCount, double crtP50Ms, double crtP90Ms,
                      double crtP99Ms, double crtMaxMs, long[] buckets, long bytesSent, long bytesReceived,
                      long handshakes, long resumed, long retransmissions, double cpuPercent, int cores,
                      boolean saturated, double maxArrivalLagMs, String stoppedEarly, double maxFailedPct,
                      long challenges, String crtHistogram) {
        this(description, rate, seconds, offered, started, completed, failed, causes, crtCount, crtP50Ms, crtP90Ms,
                crtP99Ms, crtMaxMs, buckets, bytesSent, bytesReceived, handshakes, resumed, retransmissions,
                cpuPercent, cores, saturated, maxArrivalLagMs, stoppedEarly, maxFailedPct, challenges, crtHistogram,
                null, null);
    }

    /** A summary without handshake latencies. */
    public RunSummary(String description, double rate, double seconds, long offered, long started, long completed,
                      long failed, Map<String, Long> causes, long crtCount, double crtP50Ms, double crtP90Ms,
                      double crtP99Ms, double crtMaxMs, long[] buckets, long bytesSent, long bytesReceived,
                      long handshakes, long resumed, long retransmissions, double cpuPercent, int cores,
                      boolean saturated, double maxArrivalLagMs, String stoppedEarly, double maxFailedPct,
                      long challenges, String crtHistogram, TlsFlights fullHandshake, TlsFlights resumedHandshake) {
        this(description, rate, seconds, offered, started, completed, failed, causes, crtCount, crtP50Ms, crtP90Ms,
                crtP99Ms, crtMaxMs, buckets, bytesSent, bytesReceived, handshakes, resumed, retransmissions,
                cpuPercent, cores, saturated, maxArrivalLagMs, stoppedEarly, maxFailedPct, challenges, crtHistogram,
                fullHandshake, resumedHandshake, null, null);
    }

    /**
     * The response-time histogram (microseconds).
     *
     * @throws IllegalStateException the summary has response times but not their histogram
     */
    public Histogram histogram() {
        if (crtHistogram == null) {
            if (crtCount > 0) {
                throw new IllegalStateException("summary \"" + description + "\" has " + crtCount
                        + " response times but no crtHistogram");
            }
            return CallTimer.newHistogram();
        }
        return CallTimer.decode(crtHistogram);
    }

    /**
     * The latencies of the measured full or resumed TLS handshakes in microseconds; empty when none
     * was timed.
     *
     * @throws IllegalArgumentException the stored histogram cannot be decoded
     */
    public Histogram handshakeTimes(boolean resumedSession) {
        String encoded = resumedSession ? resumedHandshakeTimes : fullHandshakeTimes;
        return encoded == null ? CallTimer.newHistogram() : CallTimer.decode(encoded);
    }

    /** {@link CallTimer#encode} of {@code micros}, null when it holds nothing. */
    public static String encodeTimes(Histogram micros) {
        return micros.getTotalCount() == 0 ? null : CallTimer.encode(micros);
    }

    /** The median, 90th and 99th percentile and the maximum of a histogram of microseconds, in ms. */
    public static double[] percentilesMs(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return new double[4];
        }
        return new double[] {micros.getValueAtPercentile(50) / 1000.0, micros.getValueAtPercentile(90) / 1000.0,
            micros.getValueAtPercentile(99) / 1000.0, micros.getMaxValue() / 1000.0};
    }

    /**
     * The summary of several generator processes that ran the same workload side by side: counts,
     * failure causes, traffic, handshakes, retransmissions, challenges, rates and CPU added up;
     * response times from the histograms added up, so the percentiles and buckets are those of all
     * operations; the longest measured part, the largest arrival lag and core count, saturated when
     * one part was, the first reason to stop early, and the strictest failure threshold; the first
     * part's handshake sizes of each kind that has them; handshake latencies from the histograms added
     * up. The CPU is unknown (-1) when it is unknown for a part.
     *
     * @throws IllegalArgumentException there are no parts, or a part has response times but no histogram
     */
    public static RunSummary merge(String description, List<RunSummary> parts) {
        Objects.requireNonNull(description, "description");
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("parts: nothing to merge");
        }
        Histogram all = CallTimer.newHistogram();
        Map<String, Long> causes = new HashMap<>();
        double rate = 0;
        double seconds = 0;
        double cpu = 0;
        double lag = 0;
        double threshold = Double.MAX_VALUE;
        long[] n = new long[10];
        int cores = 0;
        boolean saturated = false;
        String stoppedEarly = null;
        TlsFlights full = null;
        TlsFlights resumedFlights = null;
        Histogram fullTimes = CallTimer.newHistogram();
        Histogram resumedTimes = CallTimer.newHistogram();
        for (RunSummary p : parts) {
            try {
                all.add(p.histogram());
            } catch (IllegalStateException e) {
                throw new IllegalArgumentException("parts: " + e.getMessage(), e);
            }
            p.causes.forEach((k, v) -> causes.merge(k, v, Long::sum));
            rate += p.rate;
            seconds = Math.max(seconds, p.seconds);
            cpu = cpu < 0 || p.cpuPercent < 0 ? -1 : cpu + p.cpuPercent;
            lag = Math.max(lag, p.maxArrivalLagMs);
            threshold = Math.min(threshold, p.maxFailedPct);
            long[] add = {p.offered, p.started, p.completed, p.failed, p.bytesSent, p.bytesReceived, p.handshakes,
                p.resumed, p.retransmissions, p.challenges};
            for (int i = 0; i < n.length; i++) {
                n[i] += add[i];
            }
            cores = Math.max(cores, p.cores);
            saturated |= p.saturated;
            stoppedEarly = stoppedEarly != null ? stoppedEarly : p.stoppedEarly;
            full = full != null ? full : p.fullHandshake;
            resumedFlights = resumedFlights != null ? resumedFlights : p.resumedHandshake;
            fullTimes.add(p.handshakeTimes(false));
            resumedTimes.add(p.handshakeTimes(true));
        }
        double[] pct = percentilesMs(all);
        return new RunSummary(description, rate, seconds, n[0], n[1], n[2], n[3], causes, all.getTotalCount(), pct[0],
                pct[1], pct[2], pct[3], CrtBuckets.of(all), n[4], n[5], n[6], n[7], n[8], cpu, cores, saturated, lag,
                stoppedEarly, threshold, n[9], CallTimer.encode(all), full, resumedFlights, encodeTimes(fullTimes),
                encodeTimes(resumedTimes));
    }

    /**
     * Reads back what {@link #json} wrote, alone or as the {@code summary} member of a {@code uac --json}
     * file; members it does not write are ignored, {@code challenges}, {@code crtHistogram},
     * {@code fullHandshake}, {@code resumedHandshake}, {@code fullHandshakeTimes} and
     * {@code resumedHandshakeTimes} may be missing (0 and null).
     *
     * @throws IllegalArgumentException the text is not such JSON, naming what is wrong
     */
    public static RunSummary parseSummaryJson(String json) {
        Object top;
        try {
            top = JSON.readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("summary JSON: " + e.getOriginalMessage(), e);
        }
        if (!(top instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("summary JSON: an object expected");
        }
        if (m.get("summary") instanceof Map<?, ?> inner) {
            m = inner;
        }
        Map<String, Long> causes = new HashMap<>();
        Map<?, ?> why = member(m, "causes", Map.class);
        for (Map.Entry<?, ?> e : why.entrySet()) {
            causes.put(String.valueOf(e.getKey()), whole("causes." + e.getKey(), e.getValue()));
        }
        Map<?, ?> b = member(m, "buckets", Map.class);
        long[] buckets = new long[CrtBuckets.NAMES.length];
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = whole("buckets." + CrtBuckets.NAMES[i], b.get(CrtBuckets.NAMES[i]));
        }
        Object stopped = m.get("stoppedEarly");
        Object histogram = m.get("crtHistogram");
        String fullTimes = times(m, "fullHandshakeTimes");
        String resumedTimes = times(m, "resumedHandshakeTimes");
        return new RunSummary(member(m, "description", String.class), number(m, "rate"), number(m, "seconds"),
                count(m, "offered"), count(m, "started"), count(m, "completed"), count(m, "failed"), causes,
                count(m, "crtCount"), number(m, "crtP50Ms"), number(m, "crtP90Ms"), number(m, "crtP99Ms"),
                number(m, "crtMaxMs"), buckets, count(m, "bytesSent"), count(m, "bytesReceived"),
                count(m, "handshakes"), count(m, "resumed"), count(m, "retransmissions"), number(m, "cpuPercent"),
                (int) count(m, "cores"), member(m, "saturated", Boolean.class), number(m, "maxArrivalLagMs"),
                stopped instanceof String t ? t : null, number(m, "maxFailedPct"),
                m.containsKey("challenges") ? count(m, "challenges") : 0,
                histogram instanceof String h ? h : null, flights(m, "fullHandshake"), flights(m, "resumedHandshake"),
                fullTimes, resumedTimes);
    }

    /** The encoded latency histogram under {@code name}, null when the member is missing or null. */
    private static String times(Map<?, ?> m, String name) {
        if (m.get(name) == null) {
            return null;
        }
        String encoded = member(m, name, String.class);
        try {
            CallTimer.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("summary JSON: \"" + name + "\": " + e.getMessage(), e);
        }
        return encoded;
    }

    /** The handshake sizes under {@code name}, null when the member is missing or null. */
    private static TlsFlights flights(Map<?, ?> m, String name) {
        if (m.get(name) == null) {
            return null;
        }
        Map<?, ?> f = member(m, name, Map.class);
        try {
            return new TlsFlights(Math.toIntExact(whole(name + ".clientHelloBytes", f.get("clientHelloBytes"))),
                    Math.toIntExact(whole(name + ".serverFlightBytes", f.get("serverFlightBytes"))));
        } catch (ArithmeticException | IllegalArgumentException e) {
            throw new IllegalArgumentException("summary JSON: \"" + name + "\": " + e.getMessage(), e);
        }
    }

    private static <T> T member(Map<?, ?> m, String name, Class<T> type) {
        Object v = m.get(name);
        if (!type.isInstance(v)) {
            throw new IllegalArgumentException("summary JSON: \"" + name + "\" missing or not a "
                    + type.getSimpleName().toLowerCase(Locale.ROOT));
        }
        return type.cast(v);
    }

    private static double number(Map<?, ?> m, String name) {
        return member(m, name, Number.class).doubleValue();
    }

    private static long count(Map<?, ?> m, String name) {
        return whole(name, m.get(name));
    }

    private static long whole(String name, Object v) {
        if (v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        if (!(v instanceof Double d) || d != Math.rint(d)) {
            throw new IllegalArgumentException("summary JSON: \"" + name + "\" missing or not a whole number");
        }
        return d.longValue();
    }

    @Override
    public long[] buckets() {
        return buckets.clone();
    }

    /**
     * Failed calls in % of those due (offered): every due call ends completed or failed, so this never
     * passes 100 %, also when calls failed before they started (connect, never started).
     */
    public double failedPct() {
        long base = Math.max(offered, 1);
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
        b.append(String.format(Locale.ROOT, "  operations: offered %d started %d completed %d failed %d (%.2f %%) in"
                        + " %.1f s at %.1f/s offered, %.1f/s completed%n", offered, started, completed, failed,
                failedPct(), seconds, rate, seconds > 0 ? completed / seconds : 0.0));
        if (!causes.isEmpty()) {
            b.append("  failures: ").append(new TreeMap<>(causes)).append('\n');
        }
        b.append(String.format(Locale.ROOT, "  CRT ms: p50 %.1f p90 %.1f p99 %.1f max %.1f (%d operations); buckets",
                crtP50Ms, crtP90Ms, crtP99Ms, crtMaxMs, crtCount));
        for (int i = 0; i < buckets.length; i++) {
            b.append(' ').append(CrtBuckets.NAMES[i]).append(": ").append(buckets[i]);
        }
        b.append('\n');
        b.append(String.format(Locale.ROOT, "  traffic: %.1f kbps out, %.1f kbps in; tls handshakes %d (resumed %d);"
                        + " retransmissions %d; digest challenges answered %d%n",
                seconds > 0 ? bytesSent * 8 / 1000.0 / seconds : 0.0,
                seconds > 0 ? bytesReceived * 8 / 1000.0 / seconds : 0.0, handshakes, resumed, retransmissions,
                challenges));
        handshakeLine(b, "full", fullHandshake);
        handshakeLine(b, "resumed", resumedHandshake);
        latencyLine(b, "full", handshakeTimes(false));
        latencyLine(b, "resumed", handshakeTimes(true));
        b.append(String.format(Locale.ROOT, "  generator: cpu %.0f %% of one core (%d cores), max arrival lag %.1f ms%s%n",
                cpuPercent, cores, maxArrivalLagMs, saturated ? " -- SATURATED: this run does not measure the target" : ""));
        b.append(stoppedEarly != null ? "  stopped early: " + stoppedEarly + "\n" : "");
        b.append("  result: ").append(passed() ? "ok" : "FAILED").append(String.format(Locale.ROOT,
                " (threshold %.2f %% failed)", maxFailedPct));
        return b.toString();
    }

    private static void handshakeLine(StringBuilder b, String kind, TlsFlights f) {
        if (f != null) {
            b.append(String.format(Locale.ROOT, "  first %s tls handshake: ClientHello %d bytes (%s at MSS %d),"
                            + " server's first flight %d bytes (%s)%n", kind, f.clientHelloBytes(),
                    segments(f.clientHelloSegments()), TlsFlights.ETHERNET_MSS_BYTES, f.serverFlightBytes(),
                    segments(f.serverFlightSegments())));
        }
    }

    private static void latencyLine(StringBuilder b, String kind, Histogram micros) {
        if (micros.getTotalCount() > 0) {
            double[] pct = percentilesMs(micros);
            b.append(String.format(Locale.ROOT, "  %s tls handshake latency ms (ClientHello written to done):"
                    + " p50 %.2f p99 %.2f max %.2f (%d handshakes)%n", kind, pct[0], pct[2], pct[3],
                    micros.getTotalCount()));
        }
    }

    private static String segments(int n) {
        return n + (n == 1 ? " segment" : " segments");
    }

    private static String flightsJson(TlsFlights f) {
        return f == null ? "null" : String.format(Locale.ROOT, "{\"clientHelloBytes\":%d,\"serverFlightBytes\":%d}",
                f.clientHelloBytes(), f.serverFlightBytes());
    }

    /** The summary as a JSON object ({@link #parseSummaryJson} reads it back). */
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
                        + "\"retransmissions\":%d,\"challenges\":%d,\"cpuPercent\":%.1f,\"cores\":%d,"
                        + "\"saturated\":%b,\"maxArrivalLagMs\":%.3f,\"stoppedEarly\":%s,\"maxFailedPct\":%.3f,"
                        + "\"passed\":%b,\"crtHistogram\":%s,\"fullHandshake\":%s,\"resumedHandshake\":%s,"
                        + "\"fullHandshakeTimes\":%s,\"resumedHandshakeTimes\":%s}",
                bytesSent, bytesReceived, handshakes, resumed, retransmissions, challenges, cpuPercent, cores, saturated,
                maxArrivalLagMs, stoppedEarly == null ? "null" : "\"" + escape(stoppedEarly) + "\"", maxFailedPct,
                passed(), crtHistogram == null ? "null" : "\"" + crtHistogram + "\"", flightsJson(fullHandshake),
                flightsJson(resumedHandshake), quoted(fullHandshakeTimes), quoted(resumedHandshakeTimes)));
        return b.toString();
    }

    private static String quoted(String base64) {
        return base64 == null ? "null" : "\"" + base64 + "\"";
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
