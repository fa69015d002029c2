package org.sipcrypt.lab.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Handshake latencies: the measured part only, full and resumed apart, from several threads at once. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HandshakeTimerTest {

    private static final long MS = 1_000_000L;

    @Test
    void onlyHandshakesWhoseClientHelloWentOutInTheMeasuredPartCount() {
        long from = 5_000 * MS;
        HandshakeTimer t = new HandshakeTimer(from);
        // began in the warm-up and done after it: a warm-up handshake, as a call due in the warm-up is
        t.record(from - 1, from + 3 * MS, false);
        t.record(from, from + 3 * MS, false);
        t.record(from + 10 * MS, from + 12 * MS, true);
        Histogram full = t.total(false);
        assertEquals(1, full.getTotalCount());
        assertEquals(3000, full.getValueAtPercentile(50), 3, "3 ms in microseconds, three significant digits");
        Histogram resumed = t.total(true);
        assertEquals(1, resumed.getTotalCount());
        assertEquals(2000, resumed.getMaxValue(), 2);
    }

    @Test
    void theTotalKeepsWhatEarlierReadingsTookAndClampsToTheRange() {
        HandshakeTimer t = new HandshakeTimer(Long.MIN_VALUE + 1);
        t.record(-10 * MS, -9 * MS, false);
        assertEquals(1, t.total(false).getTotalCount());
        t.record(0, 7_200_000 * MS, false);
        Histogram twice = t.total(false);
        assertEquals(2, twice.getTotalCount(), "the first reading's handshake kept");
        assertEquals(3_600_000_000L, twice.getMaxValue(), 3_600_000_000L / 1000, "two hours clamped to one");
        assertEquals(0, t.total(true).getTotalCount());
    }

    @Test
    void handshakesRecordedFromSeveralThreadsAllCount() throws InterruptedException {
        HandshakeTimer t = new HandshakeTimer(0);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            boolean resumed = i % 2 == 1;
            Thread th = new Thread(() -> {
                for (int n = 1; n <= 10_000; n++) {
                    t.record(MS, MS + n * 1000L, resumed);
                }
            }, "handshake-timer-test-" + i);
            th.start();
            threads.add(th);
        }
        // a reading while they record takes what is there so far and loses nothing
        long early = t.total(false).getTotalCount();
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(20_000, t.total(false).getTotalCount(), "early reading: " + early);
        assertEquals(20_000, t.total(true).getTotalCount());
    }
}
