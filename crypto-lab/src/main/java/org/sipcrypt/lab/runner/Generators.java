package org.sipcrypt.lab.runner;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.sipcrypt.lab.loadgen.LegCounters;
import org.sipcrypt.lab.loadgen.Uac;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;

/**
 * Runs the UAC side of a point: one generator in the lab's own process, or several generator
 * processes started together (multi-to-one); meanwhile reads the server's CPU each interval and
 * takes the UAS's counters at the start and end of the measured part.
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
     */
    record Outcome(RunSummary summary, List<Sample> samples, long serverCpuMicros, double measuredSeconds,
                   long uasHandshakes, long uasResumed, long uasBytes) {
    }

    private final Path dir;
    private final Duration interval;

    Generators(Path dir, Duration interval) {
        this.dir = dir;
        this.interval = interval;
    }

    /** What the server and UAS had done at one moment. */
    private record Mark(long nanos, long cpu, long hs, long resumed, long bytes) {
        static Mark of(Bench b) {
            LegCounters c = b.uas != null ? b.uas.counters() : null;
            return new Mark(System.nanoTime(), b.serverCpuMicros(), c == null ? 0 : c.handshakes(),
                    c == null ? 0 : c.resumed(), c == null ? 0 : c.bytesSent() + c.bytesReceived());
        }
    }

    /** Runs {@code processes} generators with the same options against a bench. */
    Outcome run(Bench b, UacOptions o, int processes) throws Exception {
        List<Sample> samples = new ArrayList<>();
        Mark[] start = {Mark.of(b)};
        long[] lastCpu = {start[0].cpu()};
        long[] lastNanos = {start[0].nanos()};
        RunSummary summary = new Uac(o).run(i -> {
            Mark now = Mark.of(b);
            samples.add(new Sample(i, cpuPct(now.cpu() - lastCpu[0], now.nanos() - lastNanos[0], lastCpu[0])));
            lastCpu[0] = now.cpu();
            lastNanos[0] = now.nanos();
            if (i.warmup()) {
                start[0] = now;
            }
        });
        Mark end = Mark.of(b);
        long cpu = end.cpu() < 0 || start[0].cpu() < 0 ? -1 : end.cpu() - start[0].cpu();
        return new Outcome(summary, samples, cpu, (end.nanos() - start[0].nanos()) / 1e9, end.hs() - start[0].hs(),
                end.resumed() - start[0].resumed(), end.bytes() - start[0].bytes());
    }

    private static double cpuPct(long cpuMicros, long nanos, long before) {
        return before < 0 || cpuMicros < 0 || nanos <= 0 ? -1 : cpuMicros / 10.0 / (nanos / 1e6);
    }

    /** Work before the first point on a fresh bench; nothing for the workloads of this slice. */
    void prepare(Bench b, Path users) {
    }

    static Interval unused() {
        return null;
    }
}
