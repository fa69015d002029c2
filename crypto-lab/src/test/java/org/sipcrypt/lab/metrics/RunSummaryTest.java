package org.sipcrypt.lab.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Summaries written as JSON and read back, and the summaries of several generators merged. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RunSummaryTest {

    /** A summary of the given response times in ms, as a generator makes it. */
    private static RunSummary summary(String description, long[] crtMillis, Map<String, Long> causes, double cpu,
                                      String stoppedEarly) {
        Histogram h = CallTimer.newHistogram();
        for (long ms : crtMillis) {
            h.recordValue(ms * 1000);
        }
        double[] p = RunSummary.percentilesMs(h);
        long failed = causes.values().stream().mapToLong(Long::longValue).sum();
        return new RunSummary(description, 10, 2.0, crtMillis.length + failed, crtMillis.length + failed,
                crtMillis.length, failed, causes, h.getTotalCount(), p[0], p[1], p[2], p[3], CrtBuckets.of(h), 1000,
                2000, 3, 1, 4, cpu, 2, false, 1.5, stoppedEarly, 1.0, 7, CallTimer.encode(h));
    }

    private static long[] range(long fromMs, long toMs) {
        long[] out = new long[(int) (toMs - fromMs + 1)];
        for (int i = 0; i < out.length; i++) {
            out[i] = fromMs + i;
        }
        return out;
    }

    @Test
    void failedPercentIsOfTheCallsDueSoCallsThatNeverStartedCannotPassAHundred() {
        Histogram h = CallTimer.newHistogram();
        double[] p = RunSummary.percentilesMs(h);
        // 8 due: 5 started and timed out, 3 never started (refused connects)
        RunSummary s = new RunSummary("tcp to 127.0.0.1:5060", 10, 1.0, 8, 5, 0, 8,
                Map.of("timeout", 5L, "connect", 3L), 0, p[0], p[1], p[2], p[3], CrtBuckets.of(h), 0, 0, 0, 0, 0,
                1.0, 2, false, 0.1, null, 1.0, 0, CallTimer.encode(h));
        assertEquals(100.0, s.failedPct(), 1e-9);
        RunSummary half = new RunSummary("tcp to 127.0.0.1:5060", 10, 1.0, 8, 8, 4, 4, Map.of("timeout", 4L), 0,
                p[0], p[1], p[2], p[3], CrtBuckets.of(h), 0, 0, 0, 0, 0, 1.0, 2, false, 0.1, null, 1.0, 0,
                CallTimer.encode(h));
        assertEquals(50.0, half.failedPct(), 1e-9);
    }

    @Test
    void theJsonOfASummaryReadsBackTheSame() {
        RunSummary s = summary("register: udp to 127.0.0.1:5060, \"quoted\"\tand tab", range(1, 200),
                Map.of("timeout", 2L, "status_403", 1L), 12.5, "3 of 10 measured calls failed");
        RunSummary back = RunSummary.parseSummaryJson(s.json());
        assertEquals(s.description(), back.description());
        assertEquals(s.causes(), back.causes());
        assertArrayEquals(s.buckets(), back.buckets());
        assertEquals(s.crtHistogram(), back.crtHistogram());
        assertEquals(s.stoppedEarly(), back.stoppedEarly());
        assertEquals(List.of(s.offered(), s.started(), s.completed(), s.failed(), s.crtCount(), s.bytesSent(),
                        s.bytesReceived(), s.handshakes(), s.resumed(), s.retransmissions(), s.challenges(),
                        (long) s.cores()),
                List.of(back.offered(), back.started(), back.completed(), back.failed(), back.crtCount(),
                        back.bytesSent(), back.bytesReceived(), back.handshakes(), back.resumed(),
                        back.retransmissions(), back.challenges(), (long) back.cores()));
        // response times are whole microseconds, which three decimals of ms hold exactly
        assertEquals(List.of(s.rate(), s.seconds(), s.crtP50Ms(), s.crtP90Ms(), s.crtP99Ms(), s.crtMaxMs(),
                        s.cpuPercent(), s.maxArrivalLagMs(), s.maxFailedPct()),
                List.of(back.rate(), back.seconds(), back.crtP50Ms(), back.crtP90Ms(), back.crtP99Ms(),
                        back.crtMaxMs(), back.cpuPercent(), back.maxArrivalLagMs(), back.maxFailedPct()));
        assertEquals(s.saturated(), back.saturated());
        assertEquals(s.histogram(), back.histogram());
    }

    /** {@code s} with handshake sizes. */
    private static RunSummary withFlights(RunSummary s, TlsFlights full, TlsFlights resumed) {
        return new RunSummary(s.description(), s.rate(), s.seconds(), s.offered(), s.started(), s.completed(),
                s.failed(), s.causes(), s.crtCount(), s.crtP50Ms(), s.crtP90Ms(), s.crtP99Ms(), s.crtMaxMs(),
                s.buckets(), s.bytesSent(), s.bytesReceived(), s.handshakes(), s.resumed(), s.retransmissions(),
                s.cpuPercent(), s.cores(), s.saturated(), s.maxArrivalLagMs(), s.stoppedEarly(), s.maxFailedPct(),
                s.challenges(), s.crtHistogram(), full, resumed);
    }

    @Test
    void handshakeSizesReadBackAndMergeAsTheFirstPartsOfEachKind() {
        RunSummary bare = summary("call", range(5, 9), Map.of(), 10, null);
        RunSummary full = withFlights(bare, new TlsFlights(1420, 1955), null);
        RunSummary both = withFlights(bare, new TlsFlights(236, 867), new TlsFlights(268, 180));
        RunSummary back = RunSummary.parseSummaryJson(both.json());
        assertEquals(both.fullHandshake(), back.fullHandshake());
        assertEquals(both.resumedHandshake(), back.resumedHandshake());
        // a summary written before the lab measured them, or by a generator without TLS
        RunSummary none = RunSummary.parseSummaryJson(bare.json().replace(",\"fullHandshake\":null,\"resumedHandshake\":null", ""));
        assertNull(none.fullHandshake());
        assertNull(none.resumedHandshake());
        RunSummary merged = RunSummary.merge("call", List.of(bare, full, both));
        assertEquals(new TlsFlights(1420, 1955), merged.fullHandshake());
        assertEquals(new TlsFlights(268, 180), merged.resumedHandshake());
        assertTrue(merged.text().contains("first full tls handshake: ClientHello 1420 bytes (1 segment at MSS"
                + " 1460), server's first flight 1955 bytes (2 segments)"), merged.text());
        assertThrows(IllegalArgumentException.class, () -> RunSummary.parseSummaryJson(
                bare.json().replace("\"fullHandshake\":null", "\"fullHandshake\":{\"clientHelloBytes\":-1}")));
    }

    /** {@code s} with the latencies of these full and resumed handshakes in ms (none: null). */
    private static RunSummary withTimes(RunSummary s, long[] fullMs, long[] resumedMs) {
        return new RunSummary(s.description(), s.rate(), s.seconds(), s.offered(), s.started(), s.completed(),
                s.failed(), s.causes(), s.crtCount(), s.crtP50Ms(), s.crtP90Ms(), s.crtP99Ms(), s.crtMaxMs(),
                s.buckets(), s.bytesSent(), s.bytesReceived(), s.handshakes(), s.resumed(), s.retransmissions(),
                s.cpuPercent(), s.cores(), s.saturated(), s.maxArrivalLagMs(), s.stoppedEarly(), s.maxFailedPct(),
                s.challenges(), s.crtHistogram(), s.fullHandshake(), s.resumedHandshake(), times(fullMs),
                times(resumedMs));
    }

    private static String times(long[] ms) {
        if (ms == null) {
            return null;
        }
        Histogram h = CallTimer.newHistogram();
        for (long v : ms) {
            h.recordValue(v * 1000);
        }
        return RunSummary.encodeTimes(h);
    }

    @Test
    void handshakeLatenciesReadBackAndMergeAsAllOfThem() {
        RunSummary bare = summary("call", range(5, 9), Map.of(), 10, null);
        assertNull(bare.fullHandshakeTimes());
        assertEquals(0, bare.handshakeTimes(false).getTotalCount(), "none timed");
        assertNull(RunSummary.encodeTimes(CallTimer.newHistogram()), "an empty histogram is stored as none");
        RunSummary a = withTimes(bare, range(1, 90), range(1, 2));
        RunSummary b = withTimes(bare, range(200, 209), null);
        RunSummary back = RunSummary.parseSummaryJson(a.json());
        assertEquals(a.handshakeTimes(false), back.handshakeTimes(false));
        assertEquals(a.handshakeTimes(true), back.handshakeTimes(true));
        assertEquals(90, back.handshakeTimes(false).getTotalCount());
        // a summary written before the lab timed handshakes
        RunSummary old = RunSummary.parseSummaryJson(
                bare.json().replace(",\"fullHandshakeTimes\":null,\"resumedHandshakeTimes\":null", ""));
        assertNull(old.fullHandshakeTimes());
        assertNull(old.resumedHandshakeTimes());
        RunSummary merged = RunSummary.merge("call", List.of(a, bare, b));
        Histogram full = merged.handshakeTimes(false);
        assertEquals(100, full.getTotalCount());
        assertEquals(209_000, full.getMaxValue(), 209, "b's slowest");
        assertEquals(2, merged.handshakeTimes(true).getTotalCount());
        assertNull(RunSummary.merge("call", List.of(bare, bare)).fullHandshakeTimes(), "none timed in any part");
        double[] ms = RunSummary.percentilesMs(full);
        assertTrue(merged.text().contains(String.format(Locale.ROOT, "  full tls handshake latency ms"
                + " (ClientHello written to done): p50 %.2f p99 %.2f max %.2f (100 handshakes)", ms[0], ms[2], ms[3])),
                merged.text());
        assertThrows(IllegalArgumentException.class, () -> RunSummary.parseSummaryJson(
                bare.json().replace("\"fullHandshakeTimes\":null", "\"fullHandshakeTimes\":\"not base64!\"")));
    }

    @Test
    void theSummaryMemberOfAUacJsonFileIsRead() {
        RunSummary s = summary("call", range(5, 9), Map.of(), -1, null);
        String file = "{\"intervals\":[\n{\"second\":1.000,\"buckets\":{\"0-30\":5}}\n],\n\"summary\":" + s.json() + "}\n";
        RunSummary back = RunSummary.parseSummaryJson(file);
        assertEquals(5, back.crtCount());
        assertNull(back.stoppedEarly());
        assertThrows(IllegalArgumentException.class, () -> RunSummary.parseSummaryJson("{\"summary\":{}}"));
        assertThrows(IllegalArgumentException.class, () -> RunSummary.parseSummaryJson("{\"description\":"));
    }

    @Test
    void mergedPercentilesAreThoseOfAllResponseTimes() {
        RunSummary fast = summary("a", range(1, 900), Map.of("timeout", 1L), 20, null);
        RunSummary slow = summary("b", range(150, 249), Map.of("timeout", 2L, "status_503", 4L), 30,
                "stopped");
        RunSummary m = RunSummary.merge("both", List.of(fast, slow));
        Histogram all = CallTimer.newHistogram();
        for (long ms : range(1, 900)) {
            all.recordValue(ms * 1000);
        }
        for (long ms : range(150, 249)) {
            all.recordValue(ms * 1000);
        }
        assertEquals(1000, m.crtCount());
        assertEquals(all.getValueAtPercentile(50) / 1000.0, m.crtP50Ms());
        assertEquals(all.getValueAtPercentile(90) / 1000.0, m.crtP90Ms());
        assertEquals(all.getValueAtPercentile(99) / 1000.0, m.crtP99Ms());
        assertEquals(all.getMaxValue() / 1000.0, m.crtMaxMs());
        assertArrayEquals(CrtBuckets.of(all), m.buckets());
        assertArrayEquals(new long[] {30, 30, 30, 30, 30 + 1, 750 + 99}, m.buckets(),
                "1 to 150 ms of the fast part in the first five, 150 ms of the slow part in 121-150");
        assertEquals(all, m.histogram());
        assertEquals("both", m.description());
        assertEquals(Map.of("timeout", 3L, "status_503", 4L), m.causes());
        assertEquals(fast.offered() + slow.offered(), m.offered());
        assertEquals(fast.completed() + slow.completed(), m.completed());
        assertEquals(7, m.failed());
        assertEquals(2000, m.bytesSent());
        assertEquals(14, m.challenges());
        assertEquals(50.0, m.cpuPercent());
        assertEquals(20.0, m.rate());
        assertEquals(2.0, m.seconds());
        assertEquals("stopped", m.stoppedEarly());
        assertEquals(-1, RunSummary.merge("x", List.of(fast, summary("c", range(1, 2), Map.of(), -1, null)))
                .cpuPercent(), "unknown CPU in a part makes the sum unknown");
    }

    @Test
    void aSummaryWithoutItsHistogramCannotBeMerged() {
        RunSummary s = summary("a", range(1, 10), Map.of(), 1, null);
        RunSummary bare = new RunSummary("old", 10, 2, 10, 10, 10, 0, Map.of(), 10, 1, 2, 3, 4, new long[6], 0, 0, 0,
                0, 0, 1, 2, false, 0, null, 1.0);
        assertThrows(IllegalArgumentException.class, () -> RunSummary.merge("x", List.of(s, bare)));
        assertThrows(IllegalArgumentException.class, () -> RunSummary.merge("x", List.of()));
    }
}
