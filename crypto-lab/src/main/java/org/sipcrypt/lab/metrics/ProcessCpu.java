package org.sipcrypt.lab.metrics;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * CPU time (user plus system) from {@code /proc}, in the kernel's clock ticks of 10 ms (USER_HZ, 100
 * on Linux for every architecture the lab runs on); -1 where there is no {@code /proc}. Used to flag
 * a generator that was itself saturated, and to measure the server under test from outside its
 * process. The server's CPU leaves out its JIT compiler threads: compiling is a warm-up transient of
 * a JVM that a few seconds of warm-up do not end, not a cost of the calls.
 * Threading: thread-safe; reads files.
 */
public final class ProcessCpu {

    private static final long MICROS_PER_TICK = 10_000;
    private static final Path STAT = Path.of("/proc/self/stat");
    /** HotSpot's compiler threads, as {@code comm} shows them (cut to 15 characters). */
    private static final String[] JIT_THREADS = {"C1 CompilerThre", "C2 CompilerThre"};

    private ProcessCpu() {
    }

    /** CPU time used so far in microseconds, or -1 when unknown. */
    public static long micros() {
        return micros(STAT);
    }

    /** CPU time another process (the server under test) used so far, or -1 when unknown or gone. */
    public static long micros(long pid) {
        return micros(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /**
     * CPU time another process used so far less what its JIT compiler threads used, or -1 when
     * unknown or gone. A process without such threads (a server not on a JVM) counts whole. The JVM
     * must keep its compiler threads ({@code -XX:-UseDynamicNumberOfCompilerThreads}): the time of a
     * thread that exited leaves the per-thread counts but not the process's.
     */
    public static long microsWithoutJit(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        long total = micros(proc.resolve("stat"));
        return total < 0 ? -1 : total - jitMicros(proc.resolve("task"));
    }

    /** CPU time the JIT compiler threads of another process used so far; 0 when it has none or is gone. */
    public static long jitMicros(long pid) {
        return jitMicros(Path.of("/proc", Long.toString(pid), "task"));
    }

    /** The thread IDs of another process's JIT compiler threads; empty when it has none or is gone. */
    public static List<Long> jitThreads(long pid) {
        List<Long> ids = new ArrayList<>();
        forEachJitThread(Path.of("/proc", Long.toString(pid), "task"), (id, stat) -> ids.add(id));
        return ids;
    }

    /** CPU time of the JIT compiler threads among the threads of a {@code /proc/PID/task} directory. */
    static long jitMicros(Path taskDir) {
        long[] sum = {0};
        forEachJitThread(taskDir, (id, stat) -> sum[0] += cpuMicros(stat));
        return sum[0];
    }

    private static void forEachJitThread(Path taskDir, BiConsumer<Long, String> action) {
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(taskDir)) {
            for (Path t : threads) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended while listed
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                for (String jit : JIT_THREADS) {
                    if (comm.startsWith(jit)) {
                        action.accept(Long.parseLong(t.getFileName().toString()), stat);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such process, or not Linux: no JIT threads to speak of
        }
    }

    private static long micros(Path stat) {
        try {
            return cpuMicros(Files.readString(stat));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** utime + stime of a {@code stat} line, in microseconds. */
    private static long cpuMicros(String stat) {
        // the command name (field 2) may hold spaces: fields are counted after its closing paren
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // utime and stime are fields 14 and 15, i.e. 11 and 12 after the state (field 3)
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * MICROS_PER_TICK;
    }
}
