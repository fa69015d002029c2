package org.sipcrypt.lab.runner;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How fast the server's CPUs are while the server is measured: a small JVM of its own, pinned to the
 * server's CPUs, takes the CPU time of a fixed unit of work ({@value #LOADS} dependent loads over a
 * 2 MiB table and {@value #ROUNDS} integer rounds, about 1.5 ms) {@value #PER_SECOND} times a second,
 * less than 1 % of a core. CPU time, because the server's threads preempt the probe: the unit's elapsed
 * time grew five-fold beside a busy server and followed the server's load rather than the machine. On a virtual machine the same work takes longer in some seconds than in others (on the
 * build machine, idle, 10-second means of it ranged over 18 %: neighbours on the host), and the
 * server's CPU per call may move with it; the median unit time over a
 * measured window says how fast the machine was then, so that windows, rounds and runs can be set
 * side by side with the machine's speed beside them.
 * Threading: {@link #start} and {@link #close} on the caller's thread; a daemon thread reads the
 * probe's lines; {@link #medianMicros} is thread-safe.
 */
public final class SpeedProbe implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SpeedProbe.class);

    /** Dependent loads per unit over the table. */
    static final int LOADS = 40_000;
    /** Integer rounds per unit. */
    static final int ROUNDS = 400_000;
    /** Units timed per second. */
    public static final int PER_SECOND = 4;
    /** Units a window needs for a median. */
    static final int MIN_UNITS = 5;
    private static final int TABLE = 1 << 19;
    private static final int KEPT = 100_000;
    private static final int WARMUP_UNITS = 300;

    /** Where the probe's sums go, so that its work is not optimised away. */
    static volatile long result;

    /** A probe that measures nothing (nothing pinned, or the probe could not start). */
    public static final SpeedProbe NONE = new SpeedProbe(null);

    private final Process process;
    /** Pairs of (the lab's nanoTime when read, the unit's time in ns), oldest dropped beyond {@link #KEPT}. */
    private final long[] readAt = new long[KEPT];
    private final long[] unitNanos = new long[KEPT];
    private long count;

    /** A probe reading {@code process}'s lines once started; null for one that is fed its units by hand. */
    SpeedProbe(Process process) {
        this.process = process;
    }

    /**
     * Starts the probe on the server's CPUs; {@link #NONE} when nothing is pinned (the probe would
     * measure some other CPU) or the probe cannot start, which is logged and does not stop a run.
     */
    public static SpeedProbe start(CpuPinning pinning) {
        if (!pinning.pinned()) {
            return NONE;
        }
        List<String> cmd = new ArrayList<>(pinning.serverLauncher());
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx32m",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                SpeedProbe.class.getName()));
        try {
            Process p = ChildProcesses.track(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start());
            SpeedProbe probe = new SpeedProbe(p);
            Thread reader = new Thread(probe::read, "lab-speed-probe");
            reader.setDaemon(true);
            reader.start();
            return probe;
        } catch (IOException e) {
            log.warn("the machine-speed probe did not start ({}); windows are reported without it", e.toString());
            return NONE;
        }
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.US_ASCII))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                long ns;
                try {
                    ns = Long.parseLong(line.trim());
                } catch (NumberFormatException e) {
                    continue;
                }
                add(System.nanoTime(), ns);
            }
        } catch (IOException e) {
            log.debug("speed probe: {}", e.toString());
        }
    }

    synchronized void add(long at, long ns) {
        int i = (int) (count % KEPT);
        readAt[i] = at;
        unitNanos[i] = ns;
        count++;
    }

    /**
     * The median time of a unit of work, in µs, over the units timed between two {@link System#nanoTime}
     * readings of the lab; -1 with fewer than {@value #MIN_UNITS} units (no probe, or a short window).
     */
    public synchronized double medianMicros(long fromNanos, long toNanos) {
        long[] in = new long[(int) Math.min(count, KEPT)];
        int n = 0;
        for (long k = Math.max(0, count - KEPT); k < count; k++) {
            int i = (int) (k % KEPT);
            if (readAt[i] - fromNanos >= 0 && toNanos - readAt[i] >= 0) {
                in[n++] = unitNanos[i];
            }
        }
        if (n < MIN_UNITS) {
            return -1;
        }
        long[] sorted = Arrays.copyOf(in, n);
        Arrays.sort(sorted);
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        return median / 1000.0;
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            ChildProcesses.forget(process);
        }
    }

    /** One unit of work from {@code seed}: the walk over {@code next}, then the integer rounds. */
    static long unit(int[] next, long seed) {
        int i = (int) (seed & (next.length - 1));
        for (int k = 0; k < LOADS; k++) {
            i = next[i];
        }
        long x = seed | 1;
        for (int k = 0; k < ROUNDS; k++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            x *= 0x9E3779B97F4A7C15L;
        }
        return x + i;
    }

    /** A table whose walk visits every entry once in a random order (one cycle). */
    static int[] table(int size, long seed) {
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Random r = new Random(seed);
        for (int i = size - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int[] next = new int[size];
        for (int i = 0; i < size; i++) {
            next[order[i]] = order[(i + 1) % size];
        }
        return next;
    }

    /**
     * The probe's own process: after a warm-up, prints the nanoseconds of one unit {@value #PER_SECOND}
     * times a second until the lab closes its standard input (or stops it).
     */
    public static void main(String[] args) throws Exception {
        Thread watch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; end of input is the lab gone
                }
            } catch (IOException e) {
                // the lab is gone too
            }
            System.exit(0);
        }, "lab-speed-probe-stdin");
        watch.setDaemon(true);
        watch.start();
        int[] next = table(TABLE, 42);
        long sink = 0;
        for (int w = 0; w < WARMUP_UNITS; w++) {
            sink += unit(next, w);
        }
        long period = TimeUnit.SECONDS.toNanos(1) / PER_SECOND;
        long due = System.nanoTime();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (long s = 0; ; s++) {
            // the unit's CPU time, not its elapsed time: the server's threads on the same CPU preempt
            // the probe, and elapsed time would measure how busy the server was instead of the machine
            long t0 = threads.getCurrentThreadCpuTime();
            sink += unit(next, s);
            long took = threads.getCurrentThreadCpuTime() - t0;
            result = sink;
            System.out.println(took);
            due += period;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            } else {
                due = System.nanoTime();
            }
        }
    }
}
