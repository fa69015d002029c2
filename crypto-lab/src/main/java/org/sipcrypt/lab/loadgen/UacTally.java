package org.sipcrypt.lab.loadgen;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.CallTimer;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.HandshakeTimer;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.ProcessCpu;
import org.sipcrypt.lab.metrics.RunSummary;

/**
 * What a {@link Uac} run counts and how it reports it: operations offered, started, completed and
 * failed (all, and those due after the warm-up, which alone make the summary), failure causes,
 * challenges answered, response times and the generator's largest arrival lag in the measured part;
 * one {@link Interval} per sample and the {@link RunSummary} at the end, with the process CPU and the
 * transport counters of the measured part, the run's first handshake sizes of each kind and the
 * latencies of the handshakes whose ClientHello went out after the warm-up. The
 * generator counts as saturated when its CPU passes 90 % of the cores or a measured arrival ran more
 * than {@value #SATURATED_LAG_MS} ms late: a verdict in the report, not a failure.
 * Threading: the counting methods are thread-safe and never block; {@link #begin}, {@link #sample}
 * and {@link #summary} run on the run's sampling thread.
 */
final class UacTally {

    private static final double SATURATED_LAG_MS = 100;

    private final LegCounters counters;
    private final CallTimer crt = new CallTimer();
    private final Map<String, LongAdder> causes = new ConcurrentHashMap<>();
    private final LongAdder offered = new LongAdder();
    private final LongAdder started = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder mOffered = new LongAdder();
    private final LongAdder mStarted = new LongAdder();
    private final LongAdder mCompleted = new LongAdder();
    private final LongAdder mFailed = new LongAdder();
    private final LongAdder mChallenges = new LongAdder();
    private final AtomicLong maxLagNanos = new AtomicLong();
    private long startNanos;
    private long warmupEndNanos;
    private boolean measuring;
    private long cpuLast;
    private long lastNanos;
    private long[] last = new long[9];
    private long cpuMeasuredStart = -1;
    private long measuredBytesSent;
    private long measuredBytesReceived;
    private long measuredHandshakes;
    private long measuredResumed;
    private long measuredRetransmissions;
    private HandshakeTimer handshakeTimer;

    /** @param counters the run's transport counters, sampled with the operations */
    UacTally(LegCounters counters) {
        this.counters = counters;
    }

    /**
     * Counts an operation due; {@code lagNanos} is how late the schedule offered it. Only a measured
     * operation's lag counts towards the saturation verdict: a generator process that has just
     * started runs its warm-up cold (class loading, its JIT compiler), and arrivals late then do not
     * make the measured part late; a backlog that outlasts the warm-up makes measured arrivals late too.
     */
    void offered(boolean measured, long lagNanos) {
        offered.increment();
        if (measured) {
            maxLagNanos.accumulateAndGet(lagNanos, Math::max);
            mOffered.increment();
        }
    }

    /** Counts an operation whose first request is being sent. */
    void started(boolean measured) {
        started.increment();
        if (measured) {
            mStarted.increment();
        }
    }

    /** Counts an operation that ended as expected. */
    void completed(boolean measured) {
        completed.increment();
        if (measured) {
            mCompleted.increment();
        }
    }

    /** Counts an operation that failed by {@code cause}. */
    void failed(boolean measured, String cause) {
        failed.increment();
        if (measured) {
            mFailed.increment();
            causes.computeIfAbsent(cause, k -> new LongAdder()).increment();
        }
    }

    /** Counts a digest challenge answered. */
    void challengeAnswered(boolean measured) {
        if (measured) {
            mChallenges.increment();
        }
    }

    /** Records one response time. */
    void responseTime(long micros, boolean measured) {
        crt.record(micros, measured);
    }

    /**
     * Why the run stops early, or null: at least {@link UacOptions#MIN_FAILED_TO_STOP} measured
     * operations failed and they are more than {@code maxFailedPct} of those started.
     */
    String failuresAbove(double maxFailedPct) {
        long mf = mFailed.sum();
        if (mf >= UacOptions.MIN_FAILED_TO_STOP && mf * 100.0 > maxFailedPct * Math.max(1, mStarted.sum())) {
            return String.format(Locale.ROOT, "%d of %d measured calls failed (above %.2f %%)", mf, mStarted.sum(),
                    maxFailedPct);
        }
        return null;
    }

    /** Starts the samples at {@code startNanos}; what is due from {@code warmupEndNanos} on is measured. */
    void begin(long startNanos, long warmupEndNanos) {
        this.startNanos = startNanos;
        this.warmupEndNanos = warmupEndNanos;
        // a handshake is measured as an operation is: by when it began, the ClientHello's first byte
        handshakeTimer = new HandshakeTimer(warmupEndNanos);
        counters.timeHandshakes(handshakeTimer);
        cpuLast = ProcessCpu.micros();
        lastNanos = startNanos;
        measuring = warmupEndNanos == startNanos;
        if (measuring) {
            cpuMeasuredStart = cpuLast;
        }
    }

    /** The interval from the last sample to {@code now}; the first one after the warm-up starts the measured part. */
    Interval sample(long now) {
        if (!measuring && now >= warmupEndNanos) {
            measuring = true;
            cpuMeasuredStart = ProcessCpu.micros();
            measuredBytesSent = counters.bytesSent();
            measuredBytesReceived = counters.bytesReceived();
            measuredHandshakes = counters.handshakes();
            measuredResumed = counters.resumed();
            measuredRetransmissions = counters.retransmissions();
        }
        long cpu = ProcessCpu.micros();
        double cpuPct = cpu < 0 || cpuLast < 0 ? -1 : (cpu - cpuLast) / 10.0 / ((now - lastNanos) / 1e6);
        // an interval that began within the warm-up is a warm-up sample
        boolean warmupSample = lastNanos < warmupEndNanos;
        cpuLast = cpu;
        lastNanos = now;
        long[] cur = {offered.sum(), started.sum(), completed.sum(), failed.sum(), counters.bytesSent(),
            counters.bytesReceived(), counters.handshakes(), counters.resumed(), counters.retransmissions()};
        Histogram h = crt.takeInterval();
        double[] pct = RunSummary.percentilesMs(h);
        Interval interval = new Interval((now - startNanos) / 1e9, warmupSample, cur[0] - last[0],
                cur[1] - last[1], cur[2] - last[2], cur[3] - last[3], cur[4] - last[4], cur[5] - last[5],
                h.getTotalCount(), pct[0], pct[1], pct[2], pct[3], CrtBuckets.of(h), cur[6] - last[6],
                cur[7] - last[7], cur[8] - last[8], cpuPct);
        last = cur;
        return interval;
    }

    /** The summary of the measured part of the run, which has just ended. */
    RunSummary summary(String description, UacOptions o, String stoppedEarly) {
        double seconds = Math.max(0, (System.nanoTime() - Math.max(warmupEndNanos, startNanos)) / 1e9);
        seconds = Math.min(seconds, o.duration().toNanos() / 1e9);
        long cpuEnd = ProcessCpu.micros();
        double wall = (System.nanoTime() - warmupEndNanos) / 1e9;
        double cpuPct = cpuMeasuredStart < 0 || cpuEnd < 0 || wall <= 0 ? -1 : (cpuEnd - cpuMeasuredStart) / 1e4 / wall;
        int cores = Runtime.getRuntime().availableProcessors();
        double lagMs = maxLagNanos.get() / 1e6;
        Histogram total = crt.total();
        double[] pct = RunSummary.percentilesMs(total);
        Map<String, Long> why = new HashMap<>();
        causes.forEach((k, v) -> why.put(k, v.sum()));
        return new RunSummary(description, o.rate(), seconds, mOffered.sum(), mStarted.sum(), mCompleted.sum(),
                mFailed.sum(), why, total.getTotalCount(), pct[0], pct[1], pct[2], pct[3], CrtBuckets.of(total),
                counters.bytesSent() - measuredBytesSent, counters.bytesReceived() - measuredBytesReceived,
                counters.handshakes() - measuredHandshakes, counters.resumed() - measuredResumed,
                counters.retransmissions() - measuredRetransmissions, cpuPct, cores,
                cpuPct > 90.0 * cores || lagMs > SATURATED_LAG_MS, lagMs, stoppedEarly, o.maxFailedPct(),
                mChallenges.sum(), CallTimer.encode(total), counters.fullHandshake(), counters.resumedHandshake(),
                handshakeTimes(false), handshakeTimes(true));
    }

    /** The encoded latencies of the measured handshakes of one kind; null when none (or before {@link #begin}). */
    private String handshakeTimes(boolean resumed) {
        return handshakeTimer == null ? null : RunSummary.encodeTimes(handshakeTimer.total(resumed));
    }
}
