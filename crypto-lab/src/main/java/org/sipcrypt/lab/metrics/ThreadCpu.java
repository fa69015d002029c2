package org.sipcrypt.lab.metrics;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Objects;

/**
 * CPU time (user plus system) of the live threads of this JVM whose names begin with a prefix, from
 * the JVM's {@link ThreadMXBean} (on Linux the kernel's per-thread clock, to the nanosecond, and the
 * whole thread name, which {@code /proc/self/task/N/comm} would cut to 15 characters). Used to tell
 * the UAS's CPU time ({@code lab-uas-…} threads) from the generator's when both run in the lab's
 * process. A thread that has ended no longer counts, so the difference of two readings is the CPU
 * time of the part between them only for threads that live through it (the UAS's live as long as its
 * bench); JVM threads that are not Java threads (the garbage collector's, the JIT compiler's) never
 * count.
 * Threading: thread-safe; never blocks.
 */
public final class ThreadCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {
    }

    /**
     * CPU time used so far by the live threads whose names begin with {@code prefix}, in
     * microseconds; 0 when there is no such thread, -1 when this JVM cannot measure thread CPU time.
     */
    public static long micros(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (!THREADS.isThreadCpuTimeSupported() || !THREADS.isThreadCpuTimeEnabled()) {
            return -1;
        }
        long nanos = 0;
        // without a stack trace (depth 0) a thread's info is its name and state, cheap to take
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds(), 0)) {
            if (t != null && t.getThreadName().startsWith(prefix)) {
                long cpu = THREADS.getThreadCpuTime(t.getThreadId());
                // -1: the thread ended since it was listed; it no longer counts
                if (cpu > 0) {
                    nanos += cpu;
                }
            }
        }
        return nanos / 1000;
    }
}
