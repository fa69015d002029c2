package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.report.Stats.Estimate;

/** Mean, sample standard deviation and the 95 % interval against values worked out by hand. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StatsTest {

    @Test
    void threeRepetitionsUseStudentsTWithTwoDegreesOfFreedom() {
        Estimate e = Stats.estimate(10, 12, 14);
        assertEquals(3, e.n());
        assertEquals(12.0, e.mean(), 1e-12);
        assertEquals(2.0, e.stdDev(), 1e-12);
        assertEquals(4.303 * 2 / Math.sqrt(3), e.halfWidth95(), 1e-3);
        assertTrue(e.hasInterval());
    }

    @Test
    void sampleStandardDeviationDividesByNMinusOne() {
        // squares about the mean 5: 9 + 1 + 1 + 9 = 20; 20 / 3
        assertEquals(Math.sqrt(20.0 / 3), Stats.sampleStdDev(2, 4, 6, 8), 1e-12);
        assertEquals(3.182 * Math.sqrt(20.0 / 3) / 2, Stats.halfWidth95(2, 4, 6, 8), 1e-3);
    }

    @Test
    void oneValueHasAMeanButNoInterval() {
        Estimate e = Stats.estimate(7.5);
        assertEquals(7.5, e.mean(), 0);
        assertTrue(Double.isNaN(e.stdDev()));
        assertTrue(Double.isNaN(e.halfWidth95()));
        assertTrue(e.known());
        assertFalse(e.hasInterval());
    }

    @Test
    void noValuesAreUnknown() {
        Estimate e = Stats.estimate(List.of());
        assertEquals(0, e.n());
        assertTrue(Double.isNaN(e.mean()));
        assertFalse(e.known());
        assertTrue(Double.isNaN(Stats.mean()));
    }

    @Test
    void tComesFromTheTableUpToThirtyDegreesThenIsNormal() {
        assertEquals(12.706, Stats.t975(1), 1e-3);
        assertEquals(4.303, Stats.t975(2), 1e-3);
        assertEquals(2.042, Stats.t975(30), 1e-3);
        assertEquals(1.96, Stats.t975(31), 0);
        assertEquals(1.96, Stats.t975(1000), 0);
        assertThrows(IllegalArgumentException.class, () -> Stats.t975(0));
    }

    @Test
    void identicalValuesHaveAZeroWideInterval() {
        Estimate e = Stats.estimate(List.of(5.0, 5.0, 5.0));
        assertEquals(0, e.halfWidth95(), 0);
        assertTrue(e.hasInterval());
    }

    @Test
    void aRatioOfTwoMeansCarriesBothRelativeHalfWidthsInQuadrature() {
        Estimate a = new Estimate(3, 300, 10, 30);   // ±10 %
        Estimate b = new Estimate(5, 400, 10, 20);   // ±5 %
        Estimate r = Stats.ratio(a, b);
        assertEquals(0.75, r.mean(), 1e-12);
        assertEquals(0.75 * Math.sqrt(0.01 + 0.0025), r.halfWidth95(), 1e-12);
        assertEquals(3, r.n());
        assertTrue(r.hasInterval());
        // one side without an interval: the ratio alone
        Estimate single = Stats.ratio(a, new Estimate(1, 400, Double.NaN, Double.NaN));
        assertEquals(0.75, single.mean(), 1e-12);
        assertFalse(single.hasInterval());
        // nothing to divide by, or nothing known
        assertFalse(Stats.ratio(a, new Estimate(3, 0, 1, 1)).known());
        assertFalse(Stats.ratio(Estimate.NONE, b).known());
    }
}
