package org.sipcrypt.lab.report;

import java.util.Collection;

/**
 * Mean, sample standard deviation and the half-width of the 95 % confidence interval of repeated
 * measurements, with Student's t for small samples (a point is repeated three times by default, where
 * t is 4.303, not 1.96). Fewer than two values give no interval: its half-width is NaN.
 * Threading: immutable (static functions only).
 */
public final class Stats {

    /** t(0.975, df) for df = 1..30, two-sided 95 %. */
    private static final double[] T_975 = {
        12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
        2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
        2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};

    /** The normal quantile used above 30 degrees of freedom. */
    public static final double Z_975 = 1.96;

    private Stats() {
    }

    /** The arithmetic mean, NaN without values. */
    public static double mean(double... values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /** The sample standard deviation (n − 1 in the denominator), NaN for fewer than two values. */
    public static double sampleStdDev(double... values) {
        if (values.length < 2) {
            return Double.NaN;
        }
        double m = mean(values);
        double squares = 0;
        for (double v : values) {
            squares += (v - m) * (v - m);
        }
        return Math.sqrt(squares / (values.length - 1));
    }

    /** Student's t(0.975, df): the table for df 1..30, then 1.96. */
    public static double t975(int degreesOfFreedom) {
        if (degreesOfFreedom < 1) {
            throw new IllegalArgumentException("degreesOfFreedom must be at least 1: " + degreesOfFreedom);
        }
        return degreesOfFreedom <= T_975.length ? T_975[degreesOfFreedom - 1] : Z_975;
    }

    /** Half-width of the 95 % confidence interval of the mean, t·s/√n; NaN for fewer than two values. */
    public static double halfWidth95(double... values) {
        if (values.length < 2) {
            return Double.NaN;
        }
        return t975(values.length - 1) * sampleStdDev(values) / Math.sqrt(values.length);
    }

    /** All three of the values at once. */
    public static Estimate estimate(double... values) {
        return new Estimate(values.length, mean(values), sampleStdDev(values), halfWidth95(values));
    }

    /** All three of the values at once. */
    public static Estimate estimate(Collection<Double> values) {
        return estimate(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * The ratio of two independent means, {@code a / b}, with the half-width of its 95 % interval to
     * first order (the delta method): the ratio times the two relative half-widths added in quadrature.
     * Without an interval on either side, the ratio alone ({@code n} the smaller count, no spread);
     * {@link Estimate#NONE} when either mean is unknown or {@code b}'s is not above zero.
     */
    public static Estimate ratio(Estimate a, Estimate b) {
        if (!a.known() || !b.known() || !(b.mean() > 0)) {
            return Estimate.NONE;
        }
        double r = a.mean() / b.mean();
        int n = Math.min(a.n(), b.n());
        if (!a.hasInterval() || !b.hasInterval() || a.mean() == 0) {
            return new Estimate(n, r, Double.NaN, Double.NaN);
        }
        double relA = a.halfWidth95() / Math.abs(a.mean());
        double relB = b.halfWidth95() / b.mean();
        return new Estimate(n, r, Double.NaN, Math.abs(r) * Math.sqrt(relA * relA + relB * relB));
    }

    /**
     * A mean over repetitions with its spread.
     * Threading: immutable.
     *
     * @param n           values it was computed from (0: nothing known)
     * @param mean        their mean, NaN when n is 0
     * @param stdDev      sample standard deviation, NaN when n is below 2
     * @param halfWidth95 half-width of the 95 % confidence interval of the mean, NaN when n is below 2
     */
    public record Estimate(int n, double mean, double stdDev, double halfWidth95) {

        /** Nothing measured. */
        public static final Estimate NONE = new Estimate(0, Double.NaN, Double.NaN, Double.NaN);

        /** Whether there is a mean. */
        public boolean known() {
            return n > 0 && !Double.isNaN(mean);
        }

        /** Whether there is a confidence interval (two or more values). */
        public boolean hasInterval() {
            return n > 1 && !Double.isNaN(halfWidth95);
        }

        /** The interval's half-width in % of the mean; NaN without an interval or with a zero mean. */
        public double halfWidthPct() {
            return hasInterval() && mean != 0 ? 100 * halfWidth95 / Math.abs(mean) : Double.NaN;
        }

        /**
         * Whether the interval is wider than {@code limitPct} % of the mean either way, or there is
         * none (one value): a point too imprecise to rank by.
         */
        public boolean widerThan(double limitPct) {
            double w = halfWidthPct();
            return known() && (Double.isNaN(w) || w > limitPct);
        }
    }
}
