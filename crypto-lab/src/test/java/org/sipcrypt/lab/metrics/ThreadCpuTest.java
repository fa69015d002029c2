package org.sipcrypt.lab.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** CPU time of this JVM's threads by name prefix: busy threads with the prefix count, others do not. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThreadCpuTest {

    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    /** CPU time a busy thread spends, in ns: far above what an idle thread or a reading costs. */
    private static final long SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Spins on its own CPU clock until it has used {@link #SPIN_NANOS} more. */
    private static void spin() {
        long until = MX.getCurrentThreadCpuTime() + SPIN_NANOS;
        long sink = 0;
        while (MX.getCurrentThreadCpuTime() < until) {
            sink += System.nanoTime() & 1;
        }
        if (sink < 0) {
            throw new AssertionError("unreachable: " + sink);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void onlyLiveThreadsWithThePrefixCount() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread busy = new Thread(() -> {
            await(go);
            spin();
            spun.countDown();
            await(end);
        }, "cputest-role-busy");
        Thread idle = new Thread(() -> await(end), "cputest-role-idle");
        Thread other = new Thread(ThreadCpuTest::spin, "cputest-other-busy");
        busy.setDaemon(true);
        idle.setDaemon(true);
        busy.start();
        idle.start();
        try {
            // both role threads started and waiting: from now on only what they run counts
            while (busy.getState() != Thread.State.WAITING || idle.getState() != Thread.State.WAITING) {
                Thread.sleep(1);
            }
            long before = ThreadCpu.micros("cputest-role");
            other.start();
            other.join();
            long afterOther = ThreadCpu.micros("cputest-role");
            assertTrue(afterOther - before < SPIN_NANOS / 1000 / 2,
                    "a busy thread of another name and an idle one with the prefix count nothing: "
                            + (afterOther - before) + " µs");

            go.countDown();
            spun.await();
            long afterBusy = ThreadCpu.micros("cputest-role");
            assertTrue(afterBusy - afterOther >= SPIN_NANOS / 1000,
                    "the busy thread's CPU counts: " + (afterBusy - afterOther) + " µs");
        } finally {
            end.countDown();
        }
        busy.join();
        idle.join();
        assertEquals(0, ThreadCpu.micros("cputest-role"), "threads that ended no longer count");
    }

    @Test
    void noSuchThreadCountsNothing() {
        assertEquals(0, ThreadCpu.micros("no-thread-is-named-so-"));
    }
}
