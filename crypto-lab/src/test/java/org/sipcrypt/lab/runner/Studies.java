package org.sipcrypt.lab.runner;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.CallTimer;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;

/**
 * Studies made of given numbers, for tests of storage, reports and the cost model (the numbers are
 * inputs of those tests, not measurements).
 * Threading: immutable.
 */
public final class Studies {

    private Studies() {
    }

    /** The JDBC URL of an H2 lab database in {@code dir}. */
    public static String h2Url(Path dir) {
        return "jdbc:h2:file:" + dir.resolve("lab").toAbsolutePath();
    }

    /** A generator summary of a point: {@code completed} calls in {@code seconds}, CRT p50 as given. */
    public static RunSummary summary(double rate, double seconds, long completed, long failed, double p50Ms) {
        long started = completed + failed;
        return new RunSummary("test point", rate, seconds, started, started, completed, failed,
                failed > 0 ? Map.of("timeout", failed) : Map.of(), completed, p50Ms, p50Ms * 1.5, p50Ms * 3,
                p50Ms * 5, new long[] {completed, 0, 0, 0, 0, 0}, completed * 900, completed * 700, 0, 0, 0, 40, 2,
                false, 1.5, null, 1.0);
    }

    /** A passing generator summary of {@code handshakes} TLS handshakes, {@code resumed} of them resumed. */
    public static RunSummary summaryWithHandshakes(long handshakes, long resumed) {
        long completed = 200;
        return new RunSummary("test point", 20, 10, completed, completed, completed, 0, Map.of(), completed, 2, 3, 6,
                10, new long[] {completed, 0, 0, 0, 0, 0}, completed * 900, completed * 700, handshakes, resumed, 0,
                40, 2, false, 1.5, null, 1.0);
    }

    /**
     * A fixed-rate point whose server spent {@code cpuMicrosPerCall} per call, its generator a
     * quarter of that and its UAS a fifth.
     */
    public static PointRun point(String scenario, String cipher, int repetition, double rate, double cpuMicrosPerCall) {
        double seconds = 10;
        long completed = Math.round(rate * seconds);
        RunSummary s = summary(rate, seconds, completed, 0, 2 + cpuMicrosPerCall / 1000);
        List<Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            samples.add(new Sample(new Interval(i, i == 1, (long) rate, (long) rate, (long) rate, 0, 90_000, 70_000,
                    (long) rate, 2, 3, 6, 10, new long[] {(long) rate, 0, 0, 0, 0, 0}, 0, 0, 0, 40),
                    rate * cpuMicrosPerCall / 1e4));
        }
        return new PointRun(scenario, cipher, "fixed", repetition, rate, s, 0, 0, completed * 1600,
                new ServerSample(4242, rate * cpuMicrosPerCall / 1e4, cpuMicrosPerCall, 64L << 20),
                new RoleCpu(cpuMicrosPerCall / 4, cpuMicrosPerCall / 5), samples, null);
    }

    /** The same point with other CPU per call of the generator and the UAS. */
    public static PointRun withLabCpu(PointRun p, double generatorMicrosPerCall, double uasMicrosPerCall) {
        return new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), p.uac(), p.uasHandshakes(),
                p.uasResumed(), p.uasBytes(), p.server(), new RoleCpu(generatorMicrosPerCall, uasMicrosPerCall),
                p.samples(), p.invalid());
    }

    /**
     * The same point with these TLS handshakes in its measured part: {@code handshakes} of the
     * generator's connections ({@code resumed} of them resumed) and {@code uasHandshakes} of the
     * server's own to the UAS ({@code uasResumed} resumed).
     */
    public static PointRun withHandshakeCounts(PointRun p, long handshakes, long resumed, long uasHandshakes,
                                               long uasResumed) {
        RunSummary s = p.uac();
        RunSummary u = new RunSummary(s.description(), s.rate(), s.seconds(), s.offered(), s.started(), s.completed(),
                s.failed(), s.causes(), s.crtCount(), s.crtP50Ms(), s.crtP90Ms(), s.crtP99Ms(), s.crtMaxMs(),
                s.buckets(), s.bytesSent(), s.bytesReceived(), handshakes, resumed, s.retransmissions(),
                s.cpuPercent(), s.cores(), s.saturated(), s.maxArrivalLagMs(), s.stoppedEarly(), s.maxFailedPct(),
                s.challenges(), s.crtHistogram(), s.fullHandshake(), s.resumedHandshake(), s.fullHandshakeTimes(),
                s.resumedHandshakeTimes());
        return new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), u, uasHandshakes,
                uasResumed, p.uasBytes(), p.server(), p.labCpu(), p.samples(), p.invalid());
    }

    /** The same point with {@code completed} calls completed (and as many started). */
    public static PointRun withCompleted(PointRun p, long completed) {
        RunSummary s = p.uac();
        RunSummary u = new RunSummary(s.description(), s.rate(), s.seconds(), completed, completed, completed,
                s.failed(), s.causes(), s.crtCount(), s.crtP50Ms(), s.crtP90Ms(), s.crtP99Ms(), s.crtMaxMs(),
                s.buckets(), s.bytesSent(), s.bytesReceived(), s.handshakes(), s.resumed(), s.retransmissions(),
                s.cpuPercent(), s.cores(), s.saturated(), s.maxArrivalLagMs(), s.stoppedEarly(), s.maxFailedPct(),
                s.challenges(), s.crtHistogram(), s.fullHandshake(), s.resumedHandshake(), s.fullHandshakeTimes(),
                s.resumedHandshakeTimes());
        return new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), u, p.uasHandshakes(),
                p.uasResumed(), p.uasBytes(), p.server(), p.labCpu(), p.samples(), p.invalid());
    }

    /** The same point with the server's TLS engines as given ({@link ServerSample#tlsEngines()}). */
    public static PointRun withTlsEngines(PointRun p, String... engines) {
        return new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), p.uac(), p.uasHandshakes(),
                p.uasResumed(), p.uasBytes(), p.server().withTlsEngines(List.of(engines)), p.labCpu(), p.samples(),
                p.invalid());
    }

    /**
     * The study with the server's TLS engines of each fixed point and ramp step set by its cipher
     * and repetition: {@code engines.apply(cipher, repetition)}.
     */
    public static Study withTlsEngines(Study s, BiFunction<String, Integer, List<String>> engines) {
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : s.fixed()) {
            fixed.add(withTlsEngines(p, engines.apply(p.cipher(), p.repetition()).toArray(String[]::new)));
        }
        List<PeakSearch> peaks = new ArrayList<>();
        for (PeakSearch r : s.peaks()) {
            List<PointRun> steps = new ArrayList<>();
            for (PointRun p : r.steps()) {
                steps.add(withTlsEngines(p, engines.apply(p.cipher(), p.repetition()).toArray(String[]::new)));
            }
            peaks.add(new PeakSearch(r.scenario(), r.cipher(), r.repetition(), r.peakRate(), r.sustainableRate(),
                    r.stoppedBy(), steps));
        }
        return new Study(s.id(), s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment(), fixed,
                peaks);
    }

    /** The same point with its generator's first full and first resumed handshake of these sizes (null: none). */
    public static PointRun withHandshakes(PointRun p, TlsFlights full, TlsFlights resumed) {
        RunSummary s = p.uac();
        RunSummary u = new RunSummary(s.description(), s.rate(), s.seconds(), s.offered(), s.started(), s.completed(),
                s.failed(), s.causes(), s.crtCount(), s.crtP50Ms(), s.crtP90Ms(), s.crtP99Ms(), s.crtMaxMs(),
                s.buckets(), s.bytesSent(), s.bytesReceived(), s.handshakes(), s.resumed(), s.retransmissions(),
                s.cpuPercent(), s.cores(), s.saturated(), s.maxArrivalLagMs(), s.stoppedEarly(), s.maxFailedPct(),
                s.challenges(), s.crtHistogram(), full, resumed);
        return new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), u, p.uasHandshakes(),
                p.uasResumed(), p.uasBytes(), p.server(), p.labCpu(), p.samples(), p.invalid());
    }

    /**
     * The study under another handshake, with its generator's connections of every TLS cipher (not the
     * baselines) making {@code perCall} handshakes per completed call.
     */
    public static Study underHandshake(Study s, Handshake h, double perCall) {
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : s.fixed()) {
            if (HandshakeMatrix.baseline(p.cipher())) {
                fixed.add(p);
                continue;
            }
            RunSummary u = p.uac();
            RunSummary n = new RunSummary(u.description(), u.rate(), u.seconds(), u.offered(), u.started(),
                    u.completed(), u.failed(), u.causes(), u.crtCount(), u.crtP50Ms(), u.crtP90Ms(), u.crtP99Ms(),
                    u.crtMaxMs(), u.buckets(), u.bytesSent(), u.bytesReceived(), Math.round(u.completed() * perCall), 0,
                    u.retransmissions(), u.cpuPercent(), u.cores(), u.saturated(), u.maxArrivalLagMs(),
                    u.stoppedEarly(), u.maxFailedPct(), u.challenges(), u.crtHistogram(), u.fullHandshake(),
                    u.resumedHandshake(), u.fullHandshakeTimes(), u.resumedHandshakeTimes());
            fixed.add(new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), n, p.uasHandshakes(),
                    p.uasResumed(), p.uasBytes(), p.server(), p.labCpu(), p.samples(), p.invalid()));
        }
        return new Study(s.id(), s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment().withHandshake(h),
                fixed, List.of());
    }

    /**
     * The study with its fixed points of {@code cipher} given these handshake sizes, the server's
     * first flight one byte longer from repetition 2 on (as an ECDSA signature's length varies).
     */
    public static Study withHandshakes(Study s, String cipher, TlsFlights full, TlsFlights resumed) {
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : s.fixed()) {
            fixed.add(!p.cipher().equals(cipher) ? p : withHandshakes(p, p.repetition() == 1 ? full
                    : new TlsFlights(full.clientHelloBytes(), full.serverFlightBytes() + 1), resumed));
        }
        return new Study(s.id(), s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment(), fixed,
                s.peaks());
    }

    /**
     * The study with its fixed points of {@code cipher} given handshake latencies: at repetition r,
     * 100 full handshakes of r·fullMaxMs·k/100 ms and 100 resumed ones of r·resumedMaxMs·k/100 ms, k = 1 to 100.
     */
    public static Study withHandshakeTimes(Study s, String cipher, long fullMaxMs, long resumedMaxMs) {
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : s.fixed()) {
            if (!p.cipher().equals(cipher)) {
                fixed.add(p);
                continue;
            }
            RunSummary u = p.uac();
            RunSummary timed = new RunSummary(u.description(), u.rate(), u.seconds(), u.offered(), u.started(),
                    u.completed(), u.failed(), u.causes(), u.crtCount(), u.crtP50Ms(), u.crtP90Ms(), u.crtP99Ms(),
                    u.crtMaxMs(), u.buckets(), u.bytesSent(), u.bytesReceived(), u.handshakes(), u.resumed(),
                    u.retransmissions(), u.cpuPercent(), u.cores(), u.saturated(), u.maxArrivalLagMs(),
                    u.stoppedEarly(), u.maxFailedPct(), u.challenges(), u.crtHistogram(), u.fullHandshake(),
                    u.resumedHandshake(), times(p.repetition() * fullMaxMs), times(p.repetition() * resumedMaxMs));
            fixed.add(new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), timed,
                    p.uasHandshakes(), p.uasResumed(), p.uasBytes(), p.server(), p.labCpu(), p.samples(), p.invalid()));
        }
        return new Study(s.id(), s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment(), fixed,
                s.peaks());
    }

    /** 100 latencies of maxMs·k/100 ms, k = 1 to 100, encoded. */
    private static String times(long maxMs) {
        Histogram h = CallTimer.newHistogram();
        for (int k = 1; k <= 100; k++) {
            h.recordValue(maxMs * 1000 * k / 100);
        }
        return RunSummary.encodeTimes(h);
    }

    /** A ramp whose steps pass up to {@code peak} and fail above it. */
    public static PeakSearch ramp(String scenario, String cipher, int repetition, double start, double step, double peak,
                                  double cpuMicrosPerCall) {
        List<PointRun> steps = new ArrayList<>();
        for (double r = start; r <= peak + step; r += step) {
            PointRun p = point(scenario, cipher, repetition, r, cpuMicrosPerCall);
            if (r > peak) {
                long c = Math.round(r * 10 * 0.9);
                p = new PointRun(scenario, cipher, "step", repetition, r, summary(r, 10, c, Math.round(r * 10) - c, 200),
                        0, 0, 0, p.server(), p.samples(), null);
            } else {
                p = new PointRun(scenario, cipher, "step", repetition, r, p.uac(), 0, 0, p.uasBytes(), p.server(),
                        p.labCpu(), p.samples(), null);
            }
            steps.add(p);
        }
        return new PeakSearch(scenario, cipher, repetition, peak, peak, "failures", steps);
    }

    /**
     * A study of one scenario: every cipher at {@code rate} with the given CPU per call (one value per
     * cipher, in order), three repetitions each differing by ±2 %, and one ramp per cipher.
     */
    public static Study study(String scenario, List<String> ciphers, double rate, double... cpuMicrosPerCall) {
        List<PointRun> fixed = new ArrayList<>();
        List<PeakSearch> peaks = new ArrayList<>();
        for (int c = 0; c < ciphers.size(); c++) {
            for (int rep = 1; rep <= 3; rep++) {
                double cpu = cpuMicrosPerCall[c] * (1 + (rep - 2) * 0.02);
                fixed.add(point(scenario, ciphers.get(c), rep, rate, cpu));
            }
            peaks.add(ramp(scenario, ciphers.get(c), 1, 100, 100, Math.floor(1e6 / cpuMicrosPerCall[c] / 100) * 100,
                    cpuMicrosPerCall[c]));
        }
        return new Study(0, scenario, "name: " + scenario + "\n", ciphers, Instant.parse("2026-11-22T10:00:00Z"),
                new Environment("test JVM", "test CPU", 2, "Linux", "lab-host", "0.1.0"), fixed, peaks);
    }
}
