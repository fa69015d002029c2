package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.runner.PeakFinder;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.RoleCpu;
import org.sipcrypt.lab.runner.ScenarioCipher;
import org.sipcrypt.lab.runner.ServerSample;
import org.sipcrypt.lab.runner.ServerTlsEngines;
import org.sipcrypt.lab.runner.Study;

/**
 * The repetitions of one scenario and cipher at a fixed rate, reduced to mean and 95 % confidence
 * interval per metric. Repetitions marked invalid (a saturated generator) are left out of every mean
 * and kept in {@link #invalidRuns()} so a report can say why; a metric a repetition did not measure
 * (-1: server CPU or heap of a target the lab did not start, resumption without handshakes, CRT
 * without calls) is left out of that metric's mean only. Ramps reduce to {@link Peak}.
 * Threading: immutable.
 *
 * @param scenario            scenario name
 * @param cipher              the cipher, or {@code udp} / {@code tcp}
 * @param offeredCps          calls per second offered (mean over the repetitions counted)
 * @param validRepetitions    repetitions counted
 * @param allRepetitions      repetitions run
 * @param completedCps        completed calls per second
 * @param failedPct           failed calls in % of those due
 * @param crtP50Ms            median call response time
 * @param crtP90Ms            90th percentile call response time
 * @param crtP99Ms            99th percentile call response time
 * @param kbps                signalling on the UAC leg, both directions
 * @param serverCpuPct        the server's CPU in % of one core
 * @param cpuMicrosPerCall    the server's CPU time per completed call
 * @param heapAfterGcMiB      the server's heap after the last collection, in MiB
 * @param gcPauseTotalMs      the server's collector pauses over a repetition's measured part, summed
 * @param gcPauseMaxMs        the longest of those pauses
 * @param generatorCpuPct     the UAC generator's CPU in % of one core (in the lab's process: the
 *                            whole process, the UAS with it)
 * @param generatorCpuMicrosPerCall the generator's CPU time per completed call ({@link RoleCpu})
 * @param uasCpuMicrosPerCall the UAS's CPU time per completed call ({@link RoleCpu})
 * @param handshakesPerSecond TLS handshakes per second on both legs
 * @param resumptionPct       resumed handshakes in % of all
 * @param crtBucketCounts     call response times per {@link CrtBuckets} bucket, summed over the
 *                            repetitions counted
 * @param invalidRuns         repetitions left out, with their reason in {@link PointRun#invalid()}
 * @param cpuPerCallWithinRun the server's CPU time per call over the study's complete rounds, its
 *                            interval with the rounds' shifts regressed out ({@link Rounds});
 *                            {@link Estimate#NONE} when the study has no two ciphers with five
 *                            complete rounds (or the aggregate was made from repetitions alone)
 * @param cpuRatioToTcp       the server's CPU per call as a ratio to tcp's in the same round, mean and
 *                            interval over the rounds where both counted ({@link SameRoundRatios}): the
 *                            figure the reports rank ciphers by; {@link Estimate#NONE} without a tcp
 *                            baseline in the study (or when made from repetitions alone)
 * @param serverTlsEngines    the TLS engines of the server's handshakes over every repetition, valid
 *                            or not ({@link ServerSample#tlsEngines()}, taken together), sorted
 */
public record Aggregate(String scenario, String cipher, double offeredCps, int validRepetitions, int allRepetitions,
                        Estimate completedCps, Estimate failedPct, Estimate crtP50Ms, Estimate crtP90Ms,
                        Estimate crtP99Ms, Estimate kbps, Estimate serverCpuPct, Estimate cpuMicrosPerCall,
                        Estimate heapAfterGcMiB, Estimate gcPauseTotalMs, Estimate gcPauseMaxMs,
                        Estimate generatorCpuPct, Estimate generatorCpuMicrosPerCall, Estimate uasCpuMicrosPerCall,
                        Estimate handshakesPerSecond,
                        Estimate resumptionPct, long[] crtBucketCounts, List<PointRun> invalidRuns,
                        Estimate cpuPerCallWithinRun, Estimate cpuRatioToTcp, List<String> serverTlsEngines)
        implements ScenarioCipher {

    /** The mode of fixed-rate points in {@link PointRun#mode()}. */
    public static final String FIXED = "fixed";
    /** {@link PeakSearch#stoppedBy()} of a ramp cut short by its own generator: not a peak of the server. */
    public static final String SATURATED_GENERATOR = "saturated generator";
    /** {@link PeakSearch#stoppedBy()} of a ramp that found the server's limit. */
    public static final String STOPPED_BY_FAILURES = "failures";

    private static final double BYTES_PER_MIB = 1024.0 * 1024.0;

    public Aggregate {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(cipher, "cipher");
        crtBucketCounts = crtBucketCounts.clone();
        invalidRuns = List.copyOf(invalidRuns);
        Objects.requireNonNull(cpuPerCallWithinRun, "cpuPerCallWithinRun");
        Objects.requireNonNull(cpuRatioToTcp, "cpuRatioToTcp");
        serverTlsEngines = List.copyOf(serverTlsEngines);
    }

    @Override
    public long[] crtBucketCounts() {
        return crtBucketCounts.clone();
    }

    /** Call response times per bucket in % of all recorded; NaN everywhere when none were recorded. */
    public double[] crtBucketPercents() {
        long total = 0;
        for (long c : crtBucketCounts) {
            total += c;
        }
        double[] out = new double[crtBucketCounts.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = total == 0 ? Double.NaN : crtBucketCounts[i] * 100.0 / total;
        }
        return out;
    }

    /** This cipher's CPU per call divided by the baseline's (1.7: 70 % more); NaN when either is unknown. */
    public double cpuRatio(Aggregate baseline) {
        return ratio(cpuMicrosPerCall, baseline.cpuMicrosPerCall);
    }

    /**
     * The roles of the lab whose mean CPU per call is more than {@link RoleCpu#MAX_SHARE_OF_SERVER} of
     * the server's mean: {@code generator}, {@code UAS}, both or none (none when the server's is unknown).
     */
    public List<String> labRolesOverShare() {
        return RoleCpu.over(cpuMicrosPerCall.mean(), generatorCpuMicrosPerCall.mean(), uasCpuMicrosPerCall.mean());
    }

    /** The repetitions of one scenario and cipher (fixed-rate points, all of the same scenario and cipher). */
    public static Aggregate of(List<PointRun> repetitions) {
        PointRun first = oneScenarioAndCipher(repetitions, "repetitions");
        List<PointRun> valid = new ArrayList<>();
        List<PointRun> invalid = new ArrayList<>();
        for (PointRun p : repetitions) {
            (p.invalid() == null ? valid : invalid).add(p);
        }
        long[] buckets = new long[CrtBuckets.NAMES.length];
        for (PointRun p : valid) {
            long[] b = p.uac().buckets();
            for (int i = 0; i < Math.min(b.length, buckets.length); i++) {
                buckets[i] += b[i];
            }
        }
        double offered = Stats.mean((valid.isEmpty() ? repetitions : valid).stream().mapToDouble(PointRun::rate).toArray());
        return new Aggregate(first.scenario(), first.cipher(), offered, valid.size(), repetitions.size(),
                all(valid, PointRun::completedPerSecond), all(valid, p -> p.uac().failedPct()),
                crt(valid, RunSummary::crtP50Ms), crt(valid, RunSummary::crtP90Ms), crt(valid, RunSummary::crtP99Ms),
                all(valid, PointRun::kbps), known(valid, p -> p.server().cpuPercent()),
                known(valid, p -> p.server().cpuMicrosPerCall()),
                known(valid, p -> p.server().heapAfterGcBytes() < 0 ? -1 : p.server().heapAfterGcBytes() / BYTES_PER_MIB),
                known(valid, p -> p.server().gcPauseTotalMs()), known(valid, p -> p.server().gcPauseMaxMs()),
                known(valid, p -> p.uac().cpuPercent()), known(valid, p -> p.labCpu().generatorMicrosPerCall()),
                known(valid, p -> p.labCpu().uasMicrosPerCall()), all(valid, PointRun::handshakesPerSecond),
                known(valid, PointRun::resumptionPct), buckets, invalid, Estimate.NONE, Estimate.NONE,
                ServerTlsEngines.union(repetitions.stream().map(p -> p.server().tlsEngines()).toList()));
    }

    /** This aggregate with the figures that take its study's rounds into account. */
    Aggregate withRoundFigures(Estimate withinRun, Estimate ratioToTcp) {
        return new Aggregate(scenario, cipher, offeredCps, validRepetitions, allRepetitions, completedCps, failedPct,
                crtP50Ms, crtP90Ms, crtP99Ms, kbps, serverCpuPct, cpuMicrosPerCall, heapAfterGcMiB, gcPauseTotalMs,
                gcPauseMaxMs, generatorCpuPct, generatorCpuMicrosPerCall,
                uasCpuMicrosPerCall, handshakesPerSecond, resumptionPct, crtBucketCounts, invalidRuns, withinRun,
                ratioToTcp, serverTlsEngines);
    }

    /**
     * The CPU per call the reports show for this cipher, and rank ciphers by when their study has no tcp
     * baseline (with one they rank by {@link #cpuRatioToTcp()}): {@link #cpuPerCallWithinRun()} when it
     * has an interval, the plain estimate over windows otherwise.
     */
    public Estimate cpuPerCallRanked() {
        return cpuPerCallWithinRun.hasInterval() ? cpuPerCallWithinRun : cpuMicrosPerCall;
    }

    /** One aggregate per scenario and cipher of a study's fixed-rate points, in the study's cipher order. */
    public static List<Aggregate> fixed(Study study) {
        List<PointRun> points = study.fixed().stream().filter(p -> FIXED.equals(p.mode())).toList();
        List<Aggregate> out = perScenarioAndCipher(study, points, Aggregate::of);
        // per scenario: each cipher's valid CPU per call by repetition (round)
        Map<String, Map<String, Map<Integer, Double>>> byScenario = new LinkedHashMap<>();
        for (PointRun p : points) {
            if (p.invalid() == null && p.server().cpuMicrosPerCall() > 0) {
                byScenario.computeIfAbsent(p.scenario(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(p.cipher(), k -> new LinkedHashMap<>())
                        .put(p.repetition(), p.server().cpuMicrosPerCall());
            }
        }
        Map<String, Map<String, Estimate>> within = new LinkedHashMap<>();
        byScenario.forEach((scenario, values) -> within.put(scenario, Rounds.withinRun(values)));
        Map<String, Map<String, Estimate>> ratios = new LinkedHashMap<>();
        for (PointRun p : points) {
            ratios.computeIfAbsent(p.scenario(), k -> SameRoundRatios.perCipher(
                    points.stream().filter(q -> q.scenario().equals(k)).toList()));
        }
        List<Aggregate> result = new ArrayList<>();
        for (Aggregate a : out) {
            Estimate e = within.getOrDefault(a.scenario(), Map.of()).getOrDefault(a.cipher(), Estimate.NONE);
            Estimate r = ratios.getOrDefault(a.scenario(), Map.of()).getOrDefault(a.cipher(), Estimate.NONE);
            result.add(a.withRoundFigures(e, r));
        }
        return result;
    }

    /** One peak per scenario and cipher of a study's ramps, in the study's cipher order. */
    public static List<Peak> peaks(Study study) {
        int serverCpus = study.environment() == null ? 0 : study.environment().serverCpus();
        return perScenarioAndCipher(study, study.peaks(), ramps -> Peak.of(ramps, serverCpus));
    }

    /** The aggregate of a cipher (or a baseline such as {@code udp}) among those of one study. */
    public static Optional<Aggregate> find(Collection<Aggregate> aggregates, String cipher) {
        return ofCipher(aggregates, cipher);
    }

    /**
     * The ramps of one scenario and cipher reduced to mean and 95 % confidence interval of the peak
     * (highest rate with under 1 % failed calls) and the sustainable rate. Ramps stopped by a saturated
     * generator measured the generator, not the server: they are left out and listed. When a counted
     * ramp ended for another reason than failures (its last step or its time budget) the server's
     * limit lies above its peak, so the peak is a lower bound.
     * Threading: immutable.
     *
     * @param scenario       scenario name
     * @param cipher         the cipher, or {@code udp} / {@code tcp}
     * @param validRamps     ramps counted
     * @param allRamps       ramps run
     * @param peakCps        peak throughput in calls per second
     * @param sustainableCps sustainable throughput in calls per second
     * @param lowerBound     whether a counted ramp ended before finding the limit
     * @param excludedRamps  ramps left out
     * @param limit          what limited the counted ramps at their first failing step
     */
    public record Peak(String scenario, String cipher, int validRamps, int allRamps, Estimate peakCps,
                       Estimate sustainableCps, boolean lowerBound, List<PeakSearch> excludedRamps, Limit limit)
            implements ScenarioCipher {

        public Peak {
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(cipher, "cipher");
            excludedRamps = List.copyOf(excludedRamps);
            Objects.requireNonNull(limit, "limit");
        }

        /** This cipher's peak divided by the baseline's (0.6: 60 % of it); NaN when either is unknown. */
        public double peakRatio(Peak baseline) {
            return ratio(peakCps, baseline.peakCps);
        }

        /** The peak of a cipher (or a baseline such as {@code udp}) among those of one study. */
        public static Optional<Peak> find(Collection<Peak> peaks, String cipher) {
            return ofCipher(peaks, cipher);
        }

        /** The ramps of one scenario and cipher, the server's CPUs unknown. */
        public static Peak of(List<PeakSearch> ramps) {
            return of(ramps, 0);
        }

        /** The ramps of one scenario and cipher, run with the server on {@code serverCpus} CPUs (0: unknown). */
        public static Peak of(List<PeakSearch> ramps, int serverCpus) {
            PeakSearch first = oneScenarioAndCipher(ramps, "ramps");
            List<Double> peak = new ArrayList<>();
            List<Double> sustainable = new ArrayList<>();
            List<PeakSearch> excluded = new ArrayList<>();
            List<PointRun> firstFailing = new ArrayList<>();
            boolean lowerBound = false;
            for (PeakSearch r : ramps) {
                if (SATURATED_GENERATOR.equals(r.stoppedBy())) {
                    excluded.add(r);
                    continue;
                }
                peak.add(r.peakRate());
                sustainable.add(r.sustainableRate());
                lowerBound |= !STOPPED_BY_FAILURES.equals(r.stoppedBy())
                        && !PeakFinder.STOPPED_BY_LATENCY.equals(r.stoppedBy());
                // every step above the peak failed the ramp's rule (its calls, or its median response time)
                r.steps().stream().filter(p -> p.rate() > r.peakRate()).min(Comparator.comparingDouble(PointRun::rate))
                        .ifPresent(firstFailing::add);
            }
            return new Peak(first.scenario(), first.cipher(), peak.size(), ramps.size(), Stats.estimate(peak),
                    Stats.estimate(sustainable), lowerBound, excluded, Limit.of(firstFailing, serverCpus));
        }
    }

    /**
     * What limited a peak, read from the first failing step of each counted ramp (the lowest rate at
     * which calls failed): how busy the server's CPUs and the lab's (generator and UAS) were there,
     * medians over the ramps. A peak measures the server when its CPUs were at least
     * {@value #FULL_PCT} % busy; otherwise the lab's CPUs, or neither (then queues, sockets, the
     * kernel or call timeouts failed the calls first, which the steps' failure causes tell).
     * Threading: immutable.
     *
     * @param serverBusyPct the server's CPU time in % of its CPUs; NaN when unknown (its CPUs or CPU
     *                      time unknown, or no ramp failed)
     * @param labBusyPct    the lab's CPU time in % of its CPUs; NaN when unknown
     * @param failingSteps  the first failing steps read (0: no counted ramp found a limit)
     */
    public record Limit(double serverBusyPct, double labBusyPct, int failingSteps) {

        /** CPUs this busy are full: a step failing there failed for want of them. */
        public static final double FULL_PCT = 90;

        static Limit of(List<PointRun> firstFailing, int serverCpus) {
            List<Double> server = new ArrayList<>();
            List<Double> lab = new ArrayList<>();
            for (PointRun p : firstFailing) {
                if (serverCpus > 0 && p.server().cpuPercent() >= 0) {
                    server.add(p.server().cpuPercent() / serverCpus);
                }
                if (p.uac().cpuPercent() >= 0 && p.uac().cores() > 0) {
                    lab.add(p.uac().cpuPercent() / p.uac().cores());
                }
            }
            return new Limit(median(server), median(lab), firstFailing.size());
        }

        /** The server, the lab, neither, or unknown, with the figures: one cell of a report. */
        public String describe() {
            if (failingSteps == 0) {
                return "not reached";
            }
            String lab = Double.isNaN(labBusyPct) ? "" : String.format(Locale.ROOT, "lab %.0f %%", labBusyPct);
            if (Double.isNaN(serverBusyPct)) {
                return "unknown (server CPUs not known" + (lab.isEmpty() ? ")" : "; " + lab + ")");
            }
            String both = String.format(Locale.ROOT, "server %.0f %%", serverBusyPct) + (lab.isEmpty() ? "" : ", " + lab);
            if (serverBusyPct >= FULL_PCT) {
                return "server CPU (" + both + ")";
            }
            if (labBusyPct >= FULL_PCT) {
                return "lab CPU, not the server (" + both + ")";
            }
            return "neither CPU full (" + both + ")";
        }

        private static double median(List<Double> values) {
            if (values.isEmpty()) {
                return Double.NaN;
            }
            List<Double> sorted = values.stream().sorted().toList();
            int n = sorted.size();
            return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        }
    }

    private static double ratio(Estimate a, Estimate b) {
        return a.known() && b.known() && b.mean() != 0 ? a.mean() / b.mean() : Double.NaN;
    }

    /**
     * Groups {@code items} by scenario and cipher (in the order first seen), reduces each group, and
     * sorts the reductions in the study's cipher order.
     */
    private static <T extends ScenarioCipher, R extends ScenarioCipher> List<R> perScenarioAndCipher(Study study,
            List<T> items, Function<List<T>, R> reduce) {
        Map<String, List<T>> groups = new LinkedHashMap<>();
        for (T item : items) {
            groups.computeIfAbsent(item.scenario() + '\n' + item.cipher(), k -> new ArrayList<>()).add(item);
        }
        List<R> out = new ArrayList<>();
        for (List<T> g : groups.values()) {
            out.add(reduce.apply(g));
        }
        out.sort(Comparator.comparingInt(r -> order(study, r.cipher())));
        return out;
    }

    /**
     * The first of {@code items}, after checking that there is one and that all are of its scenario and cipher.
     *
     * @param what what the items are, for the message
     */
    private static <T extends ScenarioCipher> T oneScenarioAndCipher(List<T> items, String what) {
        if (items.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        T first = items.get(0);
        for (T item : items) {
            if (!item.scenario().equals(first.scenario()) || !item.cipher().equals(first.cipher())) {
                throw new IllegalArgumentException(what + " mix " + first.scenario() + "/" + first.cipher()
                        + " with " + item.scenario() + "/" + item.cipher());
            }
        }
        return first;
    }

    private static <T extends ScenarioCipher> Optional<T> ofCipher(Collection<T> items, String cipher) {
        return items.stream().filter(i -> i.cipher().equals(cipher)).findFirst();
    }

    private static int order(Study study, String cipher) {
        int i = study.ciphers().indexOf(cipher);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    private static Estimate all(List<PointRun> runs, ToDoubleFunction<PointRun> metric) {
        return Stats.estimate(runs.stream().mapToDouble(metric).toArray());
    }

    /** Only the runs that measured the metric (-1 or any negative: unknown). */
    private static Estimate known(List<PointRun> runs, ToDoubleFunction<PointRun> metric) {
        return Stats.estimate(runs.stream().mapToDouble(metric).filter(v -> v >= 0).toArray());
    }

    /** Only the runs that recorded call response times. */
    private static Estimate crt(List<PointRun> runs, ToDoubleFunction<RunSummary> percentile) {
        return Stats.estimate(runs.stream().filter(p -> p.uac().crtCount() > 0)
                .mapToDouble(p -> percentile.applyAsDouble(p.uac())).toArray());
    }
}
