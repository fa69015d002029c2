package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The machine-speed probe: its unit of work, the median over a window, and the real probe process. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpeedProbeTest {

    @Test
    void theTablesWalkVisitsEveryEntryOnceBeforeComingBack() {
        int[] next = SpeedProbe.table(1 << 12, 7);
        boolean[] seen = new boolean[next.length];
        int i = 0;
        for (int k = 0; k < next.length; k++) {
            assertTrue(!seen[i], "entry " + i + " visited twice");
            seen[i] = true;
            i = next[i];
        }
        assertEquals(0, i, "one cycle through every entry");
    }

    @Test
    void theMedianIsOverTheUnitsReadWithinTheWindowAndNeedsFiveOfThem() {
        SpeedProbe fed = fed(new long[] {100, 200, 300, 400, 500, 600, 700},
                new long[] {1_000_000, 9_000_000, 1_100_000, 1_300_000, 1_200_000, 1_400_000, 5_000_000});
        // units read at 200..600 ns: 9, 1.1, 1.3, 1.2, 1.4 ms; median 1.3 ms
        assertEquals(1300.0, fed.medianMicros(200, 600), 1e-9);
        assertEquals(-1.0, fed.medianMicros(200, 500), 1e-9, "four units are too few");
        assertEquals(-1.0, SpeedProbe.NONE.medianMicros(0, Long.MAX_VALUE), 1e-9, "a probe that never ran");
    }

    @Test
    void theProbeProcessOnTheServersCpuTimesItsUnitSeveralTimesASecond() throws Exception {
        CpuPinning pinning = CpuPinning.plan("auto");
        Assumptions.assumeTrue(pinning.pinned(), "nothing to pin here: " + pinning.describe());
        try (SpeedProbe probe = SpeedProbe.start(pinning)) {
            long from = System.nanoTime();
            double median = -1;
            // the probe's JVM starts and warms up first; then 4 units a second
            for (int i = 0; i < 40 && median < 0; i++) {
                Thread.sleep(500);
                median = probe.medianMicros(from, System.nanoTime());
            }
            assertTrue(median > 0, "no units from the probe within 20 s");
            // the unit is about 1.5 ms on the build machine; a machine 20 times slower or faster is not expected
            assertTrue(median > 75 && median < 30_000, "unit of " + median + " µs");
        }
    }

    private static SpeedProbe fed(long[] at, long[] nanos) {
        SpeedProbe p = new SpeedProbe(null);
        for (int i = 0; i < at.length; i++) {
            p.add(at[i], nanos[i]);
        }
        return p;
    }
}
