package org.sipcrypt.lab.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's CPU time (user plus system) from {@code /proc/self/stat}, in the kernel's clock
 * ticks of 10 ms (USER_HZ, 100 on Linux for every architecture the lab runs on); -1 where there is
 * no {@code /proc}. Used to flag a generator that was itself saturated, and to measure the server
 * under test from outside its process.
 * Threading: thread-safe; reads a file.
 */
public final class ProcessCpu {

    private static final long MICROS_PER_TICK = 10_000;
    private static final Path STAT = Path.of("/proc/self/stat");

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

    private static long micros(Path stat) {
        try {
            String s = Files.readString(stat);
            // the command name (field 2) may hold spaces: fields are counted after its closing paren
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            // utime and stime are fields 14 and 15, i.e. 11 and 12 after the state (field 3)
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * MICROS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
