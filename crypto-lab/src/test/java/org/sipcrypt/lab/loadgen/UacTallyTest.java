package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * The saturation verdict of a run's tally: arrival lag counts in the measured part only; so do the
 * handshakes timed.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class UacTallyTest {

    private static final long MS = 1_000_000L;

    private static UacOptions options() {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return new UacOptions(new InetSocketAddress(loopback, 5060), Transport.UDP, ConnectionPattern.PERSISTENT,
                null, 100, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ZERO, 1.0,
                "sip:unused@127.0.0.1", loopback, Duration.ofSeconds(1));
    }

    private static RunSummary run(long warmupLagMs, long measuredLagMs) {
        UacTally t = new UacTally(new LegCounters());
        long now = System.nanoTime();
        t.begin(now, now + 1);
        t.offered(false, warmupLagMs * MS);
        t.offered(true, measuredLagMs * MS);
        t.started(true);
        t.completed(true);
        t.sample(System.nanoTime() + 2);
        return t.summary("test", options(), null);
    }

    @Test
    void handshakesAreTimedFromTheBeginningOfTheRunAndMeasuredByWhenTheirClientHelloWentOut() {
        LegCounters counters = new LegCounters();
        UacTally t = new UacTally(counters);
        long now = System.nanoTime();
        // a persistent connection's handshake, made before the run begins, is not timed
        counters.handshakeTime(false, now - 20 * MS, now - 10 * MS);
        t.begin(now, now + 100 * MS);
        counters.handshakeTime(false, now + 50 * MS, now + 150 * MS);
        counters.handshakeTime(false, now + 100 * MS, now + 104 * MS);
        counters.handshakeTime(true, now + 120 * MS, now + 122 * MS);
        counters.handshakeTime(true, now + 130 * MS, now + 132 * MS);
        RunSummary s = t.summary("test", options(), null);
        assertEquals(1, s.handshakeTimes(false).getTotalCount(), "the warm-up's handshake left out: " + s.text());
        assertEquals(4.0, RunSummary.percentilesMs(s.handshakeTimes(false))[0], 0.01);
        assertEquals(2, s.handshakeTimes(true).getTotalCount());
        assertEquals(2.0, RunSummary.percentilesMs(s.handshakeTimes(true))[2], 0.01);

        UacTally none = new UacTally(new LegCounters());
        none.begin(now, now);
        assertNull(none.summary("test", options(), null).fullHandshakeTimes(), "nothing timed: none stored");
    }

    @Test
    void aColdStartLateInTheWarmUpDoesNotMakeTheRunSaturated() {
        RunSummary s = run(275, 2);
        assertEquals(2.0, s.maxArrivalLagMs(), 1e-9);
        // the process's own CPU over this short run may still make it saturated on a busy machine;
        // the late warm-up arrival must not
        assertEquals(s.cpuPercent() > 90.0 * s.cores(), s.saturated(), s.text());
    }

    @Test
    void aMeasuredArrivalMoreThan100MsLateMakesTheRunSaturated() {
        RunSummary s = run(0, 150);
        assertTrue(s.saturated(), s.text());
        assertEquals(150.0, s.maxArrivalLagMs(), 1e-9);
    }
}
