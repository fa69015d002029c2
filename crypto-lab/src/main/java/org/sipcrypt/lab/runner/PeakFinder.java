package org.sipcrypt.lab.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.sipcrypt.lab.scenario.LoadProfile;

/**
 * Finds peak and sustainable throughput with a ramp: steps of rising offered rate until one fails
 * (more than the failure threshold of its calls failed, the run stopped early, the generator
 * saturated, or, with the ramp's {@code maxMedianMs}, its calls' median response time above that),
 * then a few bisections between the last rate that passed and the first that failed.
 * Peak throughput is the highest offered rate that passed; sustainable throughput the highest whose
 * completions during the step kept up with the offered rate (within 2 %).
 * Threading: one caller thread.
 */
public final class PeakFinder {

    /** Runs one step at a rate. */
    @FunctionalInterface
    public interface Step {
        /** Runs one step; {@code mode} is {@code step}. */
        PointRun run(double rate, Duration length) throws Exception;
    }

    /** {@link PeakSearch#stoppedBy()} of a ramp whose first failing step failed on its median response time alone. */
    public static final String STOPPED_BY_LATENCY = "latency";
    private static final double KEEP_UP = 0.98;

    private PeakFinder() {
    }

    /** Runs a ramp. */
    public static PeakSearch search(String scenario, String cipher, int repetition, LoadProfile.Ramp ramp, Step step)
            throws Exception {
        long deadline = System.nanoTime() + ramp.budget().toNanos();
        List<PointRun> steps = new ArrayList<>();
        double passed = 0;
        double failedAt = -1;
        String stoppedBy = "last step";
        for (double r = ramp.start(); r <= ramp.max() + 1e-9; r += ramp.step()) {
            if (System.nanoTime() > deadline) {
                stoppedBy = "budget";
                break;
            }
            PointRun p = step.run(r, ramp.stepLength());
            steps.add(p);
            if (p.invalid() != null) {
                stoppedBy = "saturated generator";
                break;
            }
            if (!passes(p, ramp)) {
                failedAt = r;
                stoppedBy = p.passed() ? STOPPED_BY_LATENCY : "failures";
                break;
            }
            passed = r;
        }
        for (int i = 0; i < ramp.refine() && failedAt > 0 && System.nanoTime() < deadline; i++) {
            double mid = Math.floor((passed + failedAt) / 2);
            if (mid <= passed || mid >= failedAt) {
                break;
            }
            PointRun p = step.run(mid, ramp.stepLength());
            steps.add(p);
            if (passes(p, ramp)) {
                passed = mid;
            } else {
                failedAt = mid;
            }
        }
        double sustainable = 0;
        for (PointRun p : steps) {
            if (passes(p, ramp) && keptUp(p)) {
                sustainable = Math.max(sustainable, p.rate());
            }
        }
        return new PeakSearch(scenario, cipher, repetition, passed, sustainable, stoppedBy, steps);
    }

    /**
     * Whether a step passes the ramp's rule: its calls passed ({@link PointRun#passed()}) and, with a
     * bound, their median response time was within it.
     */
    static boolean passes(PointRun p, LoadProfile.Ramp ramp) {
        return p.passed() && (ramp.maxMedianMs() <= 0 || p.uac().crtP50Ms() <= ramp.maxMedianMs());
    }

    /** Whether completions during the measured intervals kept up with the offered rate. */
    static boolean keptUp(PointRun p) {
        long completed = 0;
        int n = 0;
        for (Sample s : p.samples()) {
            if (!s.generator().warmup() && s.generator().second() <= p.uac().seconds() + 1e-6) {
                completed += s.generator().completed();
                n++;
            }
        }
        if (n == 0) {
            return false;
        }
        // the first interval has calls due that complete in the next one: compare over whole intervals
        return completed >= KEEP_UP * p.rate() * n - p.rate();
    }
}
