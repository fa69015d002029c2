package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code compare --peak-fraction}: the fixed rate a fraction of a peak comes to, rounded down to tens
 * of calls per second, and the fractions refused.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PeakFractionTest {

    @ParameterizedTest(name = "{0} of a peak of {1}/s is {2}/s")
    @CsvSource({"0.5, 900, 450", "0.5, 905, 450", "0.5, 999, 490", "1, 1234, 1230", "0.25, 1000, 250",
            // 0.7 × 300 is 209.99999999999997 in binary: still 210, not 200
            "0.7, 300, 210", "0.1, 300, 30", "0.3, 700, 210",
            // under ten: no fixed-rate point
            "0.5, 19, 0", "0.5, 20, 10", "0.5, 0, 0"})
    void theRateIsTheFractionOfThePeakRoundedDownToTens(double fraction, double peak, double rate) {
        assertEquals(rate, new PeakFraction(fraction).rate(peak));
    }

    @Test
    void aRampThatFoundNoPeakGivesNoRate() {
        assertEquals(0, new PeakFraction(0.5).rate(0));
        assertEquals(0, new PeakFraction(0.5).rate(Double.NaN));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(doubles = {0, -0.5, 1.01, 2, Double.NaN, Double.POSITIVE_INFINITY})
    void aFractionOutsideZeroToOneIsRefusedNamingTheOption(double fraction) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PeakFraction(fraction));
        assertEquals("--peak-fraction: " + fraction + " (expected more than 0 and at most 1)", e.getMessage());
    }

    @Test
    void itSaysWhatARateDerivesFrom() {
        assertEquals("450/s, 0.5 × its peak of 900/s", new PeakFraction(0.5).describe(900));
        assertEquals("0.25", new PeakFraction(0.25).text());
        assertEquals("1", new PeakFraction(1.0).text());
    }
}
