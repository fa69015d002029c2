package org.sipcrypt.lab.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.lab.loadgen.LegCounters;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.lab.loadgen.Uac;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.ProcessCpu;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.ThreadCpu;
import org.sipcrypt.server.transport.Transport;

/**
 * Runs the UAC side of a point: one generator in the lab's own process, or several generator
 * processes ({@code uac} commands in JVMs of their own, started together with {@code --start-at},
 * each offering its share of the rate) for multi-to-one; meanwhile reads the server's CPU each
 * interval, and the UAS's counters, the UAS's CPU and the lab process's CPU at the start and end of
 * the measured part.
 * Threading: one caller thread; interval callbacks arrive on it.
 */
final class Generators {

    /**
     * What a generator run measured.
     * Threading: immutable.
     *
     * @param summary         the generators' summary (merged over processes)
     * @param samples         per-interval samples with the server's CPU
     * @param serverCpuMicros server CPU over the measured part, -1 unknown
     * @param measuredSeconds wall time of the measured part (warm-up excluded, drain included)
     * @param uasHandshakes   TLS handshakes at the UAS in the measured part
     * @param uasResumed      of them resumed
     * @param uasBytes        bytes the UAS sent and received in the measured part
     * @param uasCpuMicros    CPU time of the UAS's threads ({@link Uas#THREADS}) over the measured
     *                        part, -1 without a UAS in this process or when unknown
     * @param generatorCpuMicros the generators' CPU time over the measured part, -1 unknown. In the
     *                        lab's process: the process's CPU time less the UAS's threads', so it
     *                        carries the JVM's garbage collector, JIT compiler and the runner's own
     *                        thread too (a conservative figure: the generator alone costs less). In
     *                        generator processes: their own CPU as they report it (their summaries'
     *                        {@link RunSummary#cpuPercent()}, added up) over the measured part's time.
     */
    record Outcome(RunSummary summary, List<Sample> samples, long serverCpuMicros, double measuredSeconds,
                   long uasHandshakes, long uasResumed, long uasBytes, long uasCpuMicros, long generatorCpuMicros) {
    }

    /** Time the generator JVMs get to start before their common start. */
    private static final Duration PROCESS_START = Duration.ofSeconds(4);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private int runs;

    Generators(Path dir) {
        this.dir = dir;
    }

    /**
     * What the server, the UAS and this process had done at one moment; {@code uasCpu} is -1 without
     * a UAS, {@code labCpu} and {@code cpu} (the server's) -1 when unknown.
     */
    private record Mark(long nanos, long cpu, long hs, long resumed, long bytes, long uasCpu, long labCpu) {
        static Mark of(Bench b) {
            LegCounters c = b.uas != null ? b.uas.counters() : null;
            return new Mark(System.nanoTime(), b.serverCpuMicros(), c == null ? 0 : c.handshakes(),
                    c == null ? 0 : c.resumed(), c == null ? 0 : c.bytesSent() + c.bytesReceived(),
                    b.uas != null ? ThreadCpu.micros(Uas.THREADS) : -1, ProcessCpu.micros());
        }

        /** {@code end - start}, or -1 when either is unknown. */
        static long since(long start, long end) {
            return start < 0 || end < 0 ? -1 : end - start;
        }

        double cpuPctSince(Mark before) {
            return before.cpu < 0 || cpu < 0 || nanos <= before.nanos ? -1 : (cpu - before.cpu) / 10.0 / ((nanos - before.nanos) / 1e6);
        }
    }

    /** Runs {@code processes} generators with the same options against a bench. */
    Outcome run(Bench b, UacOptions o, int processes) throws Exception {
        return processes <= 1 ? inProcess(b, o) : inProcesses(b, o, processes);
    }

    private Outcome inProcess(Bench b, UacOptions o) throws Exception {
        List<Sample> samples = new ArrayList<>();
        Mark[] start = {Mark.of(b)};
        Mark[] last = {start[0]};
        RunSummary summary = new Uac(o).run(i -> {
            Mark now = Mark.of(b);
            samples.add(new Sample(i, now.cpuPctSince(last[0])));
            last[0] = now;
            if (i.warmup()) {
                start[0] = now;
            }
        });
        Mark end = Mark.of(b);
        long uas = Mark.since(start[0].uasCpu(), end.uasCpu());
        long lab = Mark.since(start[0].labCpu(), end.labCpu());
        // the process's CPU is counted in ticks of 10 ms, the UAS's threads to the microsecond: over a
        // short part the difference can dip below 0 by up to a tick
        long generator = lab < 0 || (b.uas != null && uas < 0) ? -1 : Math.max(0, lab - Math.max(0, uas));
        return outcome(summary, samples, start[0], end, generator);
    }

    private static Outcome outcome(RunSummary summary, List<Sample> samples, Mark start, Mark end,
                                   long generatorCpuMicros) {
        return new Outcome(summary, samples, Mark.since(start.cpu(), end.cpu()), (end.nanos() - start.nanos()) / 1e9,
                end.hs() - start.hs(), end.resumed() - start.resumed(), end.bytes() - start.bytes(),
                Mark.since(start.uasCpu(), end.uasCpu()), generatorCpuMicros);
    }

    /**
     * Several generator processes: each runs {@code uac} with its share of the rate and writes its
     * samples and summary as JSON; the summaries merge exactly (their response-time histograms
     * add), the samples add by interval (percentiles of a merged sample are the worst process's).
     */
    private Outcome inProcesses(Bench b, UacOptions o, int n) throws Exception {
        Path runDir = dir.resolve(String.format(Locale.ROOT, "run-%03d", ++runs));
        Files.createDirectories(runDir);
        Instant startAt = Instant.now().plus(PROCESS_START);
        List<Process> procs = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Path json = runDir.resolve("uac-" + i + ".json");
                files.add(json);
                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), "org.sipcrypt.lab.LabMain", "uac"));
                cmd.addAll(uacArgs(o, o.rate() / n, json, startAt));
                procs.add(ChildProcesses.track(new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(runDir.resolve("uac-" + i + ".log").toFile()).start()));
            }
            // the server's CPU is sampled here every interval, from the common start on
            long startNanos = System.nanoTime() + Duration.between(Instant.now(), startAt).toNanos();
            long warmupEnd = startNanos + o.warmup().toNanos();
            long intervalNanos = o.interval().toNanos();
            long deadline = warmupEnd + o.duration().toNanos() + o.callTimeout().multipliedBy(3).plus(o.hold())
                    .plus(PROCESS_START).toNanos();
            List<Double> serverCpu = new ArrayList<>();
            Mark start = null;
            Mark last = null;
            long next = startNanos;
            while (procs.stream().anyMatch(Process::isAlive)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("generator processes still running after their run; logs in " + runDir);
                }
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(200)));
                    continue;
                }
                Mark now = Mark.of(b);
                if (last != null) {
                    serverCpu.add(now.cpuPctSince(last));
                }
                if (start == null || next <= warmupEnd) {
                    start = now;
                }
                last = now;
                next += intervalNanos;
            }
            if (start == null) {
                start = Mark.of(b);
            }
            List<RunSummary> parts = new ArrayList<>();
            List<List<Interval>> intervals = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (procs.get(i).exitValue() > 1 || !Files.exists(files.get(i))) {
                    throw new IOException("generator process " + i + " failed (exit " + procs.get(i).exitValue()
                            + "): " + Files.readString(runDir.resolve("uac-" + i + ".log"), StandardCharsets.UTF_8).strip());
                }
                String text = Files.readString(files.get(i), StandardCharsets.UTF_8);
                parts.add(RunSummary.parseSummaryJson(text));
                intervals.add(intervals(JSON.readTree(text).path("intervals")));
            }
            RunSummary merged = RunSummary.merge(parts.get(0).description() + " ×" + n + " processes", parts);
            Mark end = Mark.of(b);
            double seconds = (end.nanos() - start.nanos()) / 1e9;
            // the processes' CPU in % of one core, added up, over the measured part's time
            long generator = merged.cpuPercent() < 0 ? -1 : Math.round(merged.cpuPercent() * 1e4 * seconds);
            return outcome(merged, samples(intervals, serverCpu), start, end, generator);
        } finally {
            for (Process p : procs) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
                ChildProcesses.forget(p);
            }
        }
    }

    /** The {@code uac} command line for options at a rate. */
    static List<String> uacArgs(UacOptions o, double rate, Path json, Instant startAt) {
        List<String> a = new ArrayList<>();
        add(a, "--target", o.target().getAddress().getHostAddress() + ":" + o.target().getPort());
        add(a, "--transport", o.transport().configName());
        add(a, "--connection", o.connection().configName());
        add(a, "--workload", o.workload().configName());
        if (o.domain() != null) {
            add(a, "--domain", o.domain());
        }
        add(a, "--rate", fmt(rate));
        add(a, "--duration", fmt(o.duration().toMillis() / 1000.0));
        add(a, "--warmup", fmt(o.warmup().toMillis() / 1000.0));
        add(a, "--hold", fmt(o.hold().toMillis() / 1000.0));
        add(a, "--call-timeout", fmt(o.callTimeout().toMillis() / 1000.0));
        add(a, "--max-failed-pct", fmt(o.maxFailedPct()));
        add(a, "--uri", o.requestUri());
        add(a, "--interval", fmt(o.interval().toMillis() / 1000.0));
        add(a, "--json", json.toString());
        add(a, "--start-at", Long.toString(startAt.toEpochMilli()));
        if (o.transport() == Transport.TLS) {
            TlsOptions t = o.tls();
            add(a, "--cipher", String.join(",", t.ciphers()));
            add(a, "--tls-versions", String.join(",", t.versions()));
            add(a, "--session-reuse", t.sessionReuse() ? "on" : "off");
            if (t.engine() != null) {
                add(a, "--tls-engine", t.engine());
            }
            if (t.trust() != null) {
                add(a, "--trust", t.trust().toString());
            }
            if (t.cert() != null) {
                add(a, "--cert", t.cert().toString());
                add(a, "--key", t.key().toString());
            }
            if (t.allowInsecure()) {
                a.add("--allow-insecure");
            }
        }
        return a;
    }

    private static void add(List<String> a, String option, String value) {
        a.add(option);
        a.add(value);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    static List<Interval> intervals(JsonNode array) {
        List<Interval> out = new ArrayList<>();
        for (JsonNode i : array) {
            long[] buckets = new long[CrtBuckets.NAMES.length];
            for (int k = 0; k < buckets.length; k++) {
                buckets[k] = i.path("buckets").path(CrtBuckets.NAMES[k]).asLong();
            }
            out.add(new Interval(i.path("second").asDouble(), i.path("warmup").asBoolean(), i.path("offered").asLong(),
                    i.path("started").asLong(), i.path("completed").asLong(), i.path("failed").asLong(),
                    i.path("bytesSent").asLong(), i.path("bytesReceived").asLong(), i.path("crtCount").asLong(),
                    i.path("crtP50Ms").asDouble(), i.path("crtP90Ms").asDouble(), i.path("crtP99Ms").asDouble(),
                    i.path("crtMaxMs").asDouble(), buckets, i.path("handshakes").asLong(), i.path("resumed").asLong(),
                    i.path("retransmissions").asLong(), i.path("cpuPercent").asDouble()));
        }
        return out;
    }

    /** Adds the processes' intervals by position; the server's CPU of the same interval beside them. */
    static List<Sample> samples(List<List<Interval>> perProcess, List<Double> serverCpu) {
        int n = perProcess.stream().mapToInt(List::size).max().orElse(0);
        List<Sample> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Interval m = null;
            for (List<Interval> p : perProcess) {
                if (k < p.size()) {
                    m = m == null ? p.get(k) : add(m, p.get(k));
                }
            }
            out.add(new Sample(m, k < serverCpu.size() ? serverCpu.get(k) : -1));
        }
        return out;
    }

    private static Interval add(Interval a, Interval b) {
        long[] buckets = a.buckets();
        long[] more = b.buckets();
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] += more[i];
        }
        return new Interval(Math.max(a.second(), b.second()), a.warmup() && b.warmup(), a.offered() + b.offered(),
                a.started() + b.started(), a.completed() + b.completed(), a.failed() + b.failed(),
                a.bytesSent() + b.bytesSent(), a.bytesReceived() + b.bytesReceived(), a.crtCount() + b.crtCount(),
                Math.max(a.crtP50Ms(), b.crtP50Ms()), Math.max(a.crtP90Ms(), b.crtP90Ms()),
                Math.max(a.crtP99Ms(), b.crtP99Ms()), Math.max(a.crtMaxMs(), b.crtMaxMs()), buckets,
                a.handshakes() + b.handshakes(), a.resumed() + b.resumed(), a.retransmissions() + b.retransmissions(),
                a.cpuPercent() < 0 || b.cpuPercent() < 0 ? -1 : a.cpuPercent() + b.cpuPercent());
    }
}
