package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.scenario.LoadProfile;

/** The ramp's rule for a step, on steps of given numbers (a server whose queue grows from 400 calls/s). */
class PeakFinderTest {

    /** Every call answered up to 500 calls/s; the median response 2 ms up to 350, then seconds; failures from 500. */
    private static PointRun step(double rate) {
        double seconds = 10;
        long failed = rate >= 500 ? Math.round(rate * seconds * 0.05) : 0;
        long completed = Math.round(rate * seconds) - failed;
        double p50 = rate <= 350 ? 2 : 2_000;
        RunSummary s = Studies.summary(rate, seconds, completed, failed, p50);
        return new PointRun("chain", "aes", "step", 1, rate, s, 0, 0, 0, new ServerSample(1, 50, 100, 1L << 20),
                List.of(), null);
    }

    private static PeakSearch ramp(double maxMedianMs, List<Double> rates) throws Exception {
        LoadProfile.Ramp ramp = new LoadProfile.Ramp(100, 100, Duration.ofSeconds(1), 1000, 3, Duration.ofMinutes(5))
                .withMaxMedianMs(maxMedianMs);
        return PeakFinder.search("chain", "aes", 1, ramp, (rate, length) -> {
            rates.add(rate);
            return step(rate);
        });
    }

    @Test
    void withoutABoundAStepPassesOnItsFailedCallsAloneHoweverLateTheyAre() throws Exception {
        List<Double> rates = new ArrayList<>();
        PeakSearch s = ramp(0, rates);
        assertEquals(487, s.peakRate());
        assertEquals("failures", s.stoppedBy());
        assertEquals(List.of(100.0, 200.0, 300.0, 400.0, 500.0, 450.0, 475.0, 487.0), rates);
    }

    @Test
    void withABoundAStepWhoseMedianResponseIsAboveItFailsTheRamp() throws Exception {
        List<Double> rates = new ArrayList<>();
        PeakSearch s = ramp(50, rates);
        assertEquals(350, s.peakRate());
        assertEquals(PeakFinder.STOPPED_BY_LATENCY, s.stoppedBy());
        assertEquals(List.of(100.0, 200.0, 300.0, 400.0, 350.0, 375.0, 362.0), rates);
    }

    @Test
    void aNegativeBoundIsRefused() {
        LoadProfile.Ramp ramp = new LoadProfile.Ramp(100, 100, Duration.ofSeconds(1), 1000, 3, Duration.ofMinutes(5));
        assertThrows(IllegalArgumentException.class, () -> ramp.withMaxMedianMs(-1));
        assertEquals(0, ramp.maxMedianMs());
    }
}
