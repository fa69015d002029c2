package org.sipcrypt.lab.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * processes for multi-to-one ({@code uac-serve} JVMs of their own, started on the first run and kept
 * warm until {@link #close}, each handed a {@code uac} command line per run with its share of the rate
 * and a common {@code --start-at}); meanwhile reads the server's CPU each interval, and the UAS's
 * counters, the UAS's CPU and the lab process's CPU at the start and end of the measured part.
 * Threading: one caller thread; interval callbacks arrive on it.
 */
final class Generators implements AutoCloseable {

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
     *                        lab's process: the process's CPU time less the UAS's threads' and less
     *                        the JIT compiler's, as the server's is counted, so it carries the JVM's
     *                        garbage collector and the runner's own thread too (a conservative figure:
     *                        the generator alone costs less). In
     *                        generator processes: their own CPU as they report it (their summaries'
     *                        {@link RunSummary#cpuPercent()}, added up) over the measured part's time.
     */
    record Outcome(RunSummary summary, List<Sample> samples, long serverCpuMicros, double measuredSeconds,
                   long uasHandshakes, long uasResumed, long uasBytes, long uasCpuMicros, long generatorCpuMicros) {
    }

    /** Time the generator JVMs get to start before their common start. */
    private static final Duration PROCESS_START = Duration.ofSeconds(4);
    /** Time generator processes already running get to read their run before its common start. */
    private static final Duration WARM_PROCESS_START = Duration.ofSeconds(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path dir;
    private final List<GeneratorProcess> processes = new ArrayList<>();
    private int runs;

    Generators(Path dir) {
        this.dir = dir;
    }

    /**
     * What the server, the UAS and this process had done at one moment; {@code uasCpu} is -1 without
     * a UAS, {@code labCpu} and {@code cpu} (the server's) -1 when unknown; {@code labJit} is what
     * this process's JIT compiler threads used so far.
     */
    private record Mark(long nanos, long cpu, long hs, long resumed, long bytes, long uasCpu, long labCpu,
                        long labJit) {
        private static final long SELF = ProcessHandle.current().pid();

        static Mark of(Bench b) {
            LegCounters c = b.uas != null ? b.uas.counters() : null;
            return new Mark(System.nanoTime(), b.serverCpuMicros(), c == null ? 0 : c.handshakes(),
                    c == null ? 0 : c.resumed(), c == null ? 0 : c.bytesSent() + c.bytesReceived(),
                    b.uas != null ? ThreadCpu.micros(Uas.THREADS) : -1, ProcessCpu.micros(), ProcessCpu.jitMicros(SELF));
        }

        /**
         * This process's CPU time since {@code start} less its JIT compiler's, -1 when unknown. A
         * compiler thread that ended meanwhile (the JVM stops idle ones) takes its time out of the
         * threads' sum: the compiler's part is then taken as 0, which can only overstate the rest.
         */
        long labCpuWithoutJitSince(Mark start) {
            long lab = since(start.labCpu, labCpu);
            return lab < 0 ? -1 : lab - Math.max(0, labJit - start.labJit);
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
        long lab = end.labCpuWithoutJitSince(start[0]);
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
     * The processes are kept from one run to the next ({@code uac-serve}), so only the first run
     * finds them cold.
     */
    private Outcome inProcesses(Bench b, UacOptions o, int n) throws Exception {
        Path runDir = dir.resolve(String.format(Locale.ROOT, "run-%03d", ++runs));
        Files.createDirectories(runDir);
        boolean cold = processes.size() < n || processes.stream().anyMatch(p -> !p.process().isAlive());
        Instant startAt = Instant.now().plus(cold ? PROCESS_START : WARM_PROCESS_START);
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path json = runDir.resolve("uac-" + i + ".json");
            files.add(json);
            process(i).run(uacArgs(o, o.rate() / n, json, startAt), done(json));
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
        while (files.stream().anyMatch(f -> !Files.exists(done(f)))) {
            for (int i = 0; i < n; i++) {
                GeneratorProcess g = processes.get(i);
                if (!g.process().isAlive() && !Files.exists(done(files.get(i)))) {
                    throw new IOException("generator process " + i + " ended (exit " + g.process().exitValue() + "): "
                            + tail(g.log()));
                }
            }
            if (System.nanoTime() > deadline) {
                close();
                throw new IOException("generator processes still running after their run; logs in " + dir);
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
            int exit = Integer.parseInt(Files.readString(done(files.get(i)), StandardCharsets.UTF_8).strip());
            if (exit > 1 || !Files.exists(files.get(i))) {
                throw new IOException("generator process " + i + " failed its run (exit " + exit + "): "
                        + tail(processes.get(i).log()));
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
    }

    /** Where a generator process says that the run writing {@code json} has ended, and its exit code. */
    private static Path done(Path json) {
        return Path.of(json + ".rc");
    }

    /** Generator process {@code i}, started (again) when it is not running. */
    private GeneratorProcess process(int i) throws IOException {
        while (processes.size() <= i) {
            processes.add(null);
        }
        GeneratorProcess g = processes.get(i);
        if (g == null || !g.process().isAlive()) {
            if (g != null) {
                g.stop();
            }
            Files.createDirectories(dir);
            Path log = dir.resolve("uac-" + i + ".log");
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "org.sipcrypt.lab.LabMain", "uac-serve");
            Process p = ChildProcesses.track(new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start());
            g = new GeneratorProcess(p, new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), log);
            processes.set(i, g);
        }
        return g;
    }

    /** The last lines of a generator process's log, for an error message. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())).strip();
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Ends the generator processes: the end of their input, then a kill after 5 s. */
    @Override
    public void close() {
        for (GeneratorProcess g : processes) {
            if (g != null) {
                g.stop();
            }
        }
        processes.clear();
    }

    /**
     * A {@code uac-serve} process and the writer of its input.
     * Threading: the runner's thread only.
     */
    private record GeneratorProcess(Process process, Writer in, Path log) {

        /** Hands it one run: its {@code uac} arguments and the file for its exit code, as one JSON line. */
        void run(List<String> args, Path done) throws IOException {
            in.write(JSON.writeValueAsString(Map.of("uac", args, "done", done.toString())));
            in.write('\n');
            in.flush();
        }

        void stop() {
            try {
                in.close();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException e) {
                // it has gone already: nothing left to end
                process.destroyForcibly();
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            } finally {
                ChildProcesses.forget(process);
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
        if (!o.oneWayDelay().isZero()) {
            add(a, "--one-way-delay", String.format(Locale.ROOT, "%.6fs", o.oneWayDelay().toNanos() / 1e9));
        }
        if (o.transport().secure()) {
            TlsOptions t = o.tls();
            add(a, "--cipher", String.join(",", t.ciphers()));
            add(a, "--tls-versions", String.join(",", t.versions()));
            if (!t.groups().isEmpty()) {
                add(a, "--tls-groups", String.join(",", t.groups()));
            }
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
