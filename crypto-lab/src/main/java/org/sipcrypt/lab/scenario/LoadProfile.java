package org.sipcrypt.lab.scenario;

import java.time.Duration;
import java.util.Objects;

/**
 * The load a scenario offers: a fixed open-loop rate for a duration after a warm-up, and the ramp
 * that finds peak throughput.
 * Threading: immutable.
 *
 * @param rate         calls (or operations) per second at a fixed rate
 * @param duration     measured time at that rate
 * @param warmup       time at that rate before measuring (the server's JIT settles in it)
 * @param hold         time between ACK and BYE
 * @param callTimeout  a call without its 200 within this fails as {@code timeout}
 * @param maxFailedPct failed calls above this % stop a run (and fail a ramp step); the literature's 1 %
 * @param ramp         the ramp
 */
public record LoadProfile(double rate, Duration duration, Duration warmup, Duration hold, Duration callTimeout,
                          double maxFailedPct, Ramp ramp) {

    public LoadProfile {
        Objects.requireNonNull(ramp, "ramp");
        if (!(rate > 0)) {
            throw new IllegalArgumentException("load.rate: " + rate + " (expected more than 0)");
        }
        positive("load.duration", duration);
        notNegative("load.warmup", warmup);
        notNegative("load.hold", hold);
        positive("load.callTimeout", callTimeout);
        if (maxFailedPct < 0 || maxFailedPct > 100) {
            throw new IllegalArgumentException("load.maxFailedPct: " + maxFailedPct + " (expected 0 to 100)");
        }
    }

    static void positive(String key, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + ": " + d.toMillis() / 1000.0 + " (expected more than 0 seconds)");
        }
    }

    static void notNegative(String key, Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException(key + ": " + d.toMillis() / 1000.0 + " (expected 0 or more seconds)");
        }
    }

    /** A copy at another rate. */
    public LoadProfile withRate(double r) {
        return new LoadProfile(r, duration, warmup, hold, callTimeout, maxFailedPct, ramp);
    }

    /** A copy with another measured duration and warm-up. */
    public LoadProfile withTimes(Duration d, Duration w) {
        return new LoadProfile(rate, d, w, hold, callTimeout, maxFailedPct, ramp);
    }

    /** A copy with another ramp. */
    public LoadProfile withRamp(Ramp r) {
        return new LoadProfile(rate, duration, warmup, hold, callTimeout, maxFailedPct, r);
    }

    /**
     * Peak finding: steps of {@code step} calls/s from {@code start} up to {@code max}, each
     * {@code stepLength} long, until a step fails; then {@code refine} bisections between the last
     * step that passed and the first that failed. The whole ramp stops after {@code budget}.
     * Threading: immutable.
     *
     * @param start      first rate
     * @param step       increment
     * @param stepLength measured time per step
     * @param max        highest rate tried
     * @param refine     bisection steps after the first failure
     * @param budget     longest time the ramp may take
     * @param maxMedianMs a step also fails when its calls' median response time is above this, ms;
     *                    0: no bound (a step passes on its failed calls alone)
     */
    public record Ramp(double start, double step, Duration stepLength, double max, int refine, Duration budget,
                       double maxMedianMs) {

        /** A ramp with no bound on the median response time. */
        public Ramp(double start, double step, Duration stepLength, double max, int refine, Duration budget) {
            this(start, step, stepLength, max, refine, budget, 0);
        }

        public Ramp {
            if (!(maxMedianMs >= 0) || Double.isInfinite(maxMedianMs)) {
                throw new IllegalArgumentException("load.ramp.maxMedianMs: " + maxMedianMs + " (expected 0 or more; 0: no bound)");
            }
            if (!(start > 0) || !(step > 0) || max < start) {
                throw new IllegalArgumentException("load.ramp: start " + start + ", step " + step + ", max " + max
                        + " (expected start > 0, step > 0, max >= start)");
            }
            positive("load.ramp.stepLength", stepLength);
            positive("load.ramp.budget", budget);
            if (refine < 0 || refine > 10) {
                throw new IllegalArgumentException("load.ramp.refine: " + refine + " (expected 0 to 10)");
            }
        }

        /** The same ramp with this bound on a step's median response time (0: none). */
        public Ramp withMaxMedianMs(double ms) {
            return new Ramp(start, step, stepLength, max, refine, budget, ms);
        }
    }
}
