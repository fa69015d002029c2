package org.sipcrypt.lab.runner;

import java.util.Locale;

/**
 * {@code compare --peak-fraction F}: every compared cipher's fixed-rate points run at F of that
 * cipher's own peak on the server under test, found by a ramp ({@link PeakFinder}) just before them,
 * so that two servers under test (sipcrypt and Kamailio) are compared at the same load relative to
 * what each can carry rather than at one rate one of them may be near the end of.
 * Threading: immutable.
 *
 * @param fraction the share of the peak, more than 0 and at most 1
 */
public record PeakFraction(double fraction) {

    /** Rates derived from a peak are rounded down to a multiple of this, in calls per second. */
    public static final double ROUND_TO = 10;

    /** The option's name in messages. */
    public static final String OPTION = "--peak-fraction";

    public PeakFraction {
        if (!(fraction > 0 && fraction <= 1)) {
            throw new IllegalArgumentException(OPTION + ": " + fraction + " (expected more than 0 and at most 1)");
        }
    }

    /**
     * The fixed rate at this fraction of {@code peak}, rounded down to tens of calls per second (0 when
     * that is under ten: no fixed-rate point can run). The product is nudged up by a billionth before
     * rounding, so that a product which is a multiple of ten in decimals but falls just below it in
     * binary (0.7 × 300 = 209.99999999999997) is not rounded down a whole step.
     */
    public double rate(double peak) {
        if (!(peak > 0)) {
            return 0;
        }
        return Math.floor(peak * fraction / ROUND_TO + 1e-9) * ROUND_TO;
    }

    /** The fraction as the reports and progress lines give it: {@code 0.5}. */
    public String text() {
        return text(fraction);
    }

    /** A fraction as the reports give it: {@code 0.5}, {@code 0.25}. */
    public static String text(double fraction) {
        return java.math.BigDecimal.valueOf(fraction).stripTrailingZeros().toPlainString();
    }

    /** What a cipher's fixed-rate points derive from: {@code 450/s, 0.5 × its peak of 900/s}. */
    public String describe(double peak) {
        return String.format(Locale.ROOT, "%.0f/s, %s × its peak of %.0f/s", rate(peak), text(), peak);
    }
}
