package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/** The saturation verdict of a run's tally: arrival lag counts in the measured part only. */
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
