package org.sipcrypt.server.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class NamedThreadsTest {

    @Test
    void numberedThreadsAreNamedInOrderAndAreDaemons() {
        NamedThreads threads = NamedThreads.numbered("sipcrypt-test");
        Thread first = threads.newThread(() -> { });
        Thread second = threads.newThread(() -> { });
        assertEquals("sipcrypt-test-0", first.getName());
        assertEquals("sipcrypt-test-1", second.getName());
        assertTrue(first.isDaemon() && second.isDaemon());
        assertEquals("sipcrypt-one", NamedThreads.named("sipcrypt-one").newThread(() -> { }).getName());
    }

    @Test
    void boundedPoolRefusesWorkBeyondItsQueue() throws Exception {
        ThreadPoolExecutor pool = NamedThreads.numbered("sipcrypt-test").boundedPool(1, 2);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            pool.execute(() -> {
                running.countDown();
                awaitQuietly(release);
            });
            assertTrue(running.await(20, TimeUnit.SECONDS));
            pool.execute(() -> { });
            pool.execute(() -> { });
            assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
            assertEquals(2, pool.getQueue().size());
        } finally {
            release.countDown();
            pool.shutdown();
            assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
        }
    }

    @Test
    void schedulerRunsOnItsNamedThreadAndDropsCancelledTasks() throws Exception {
        ScheduledThreadPoolExecutor scheduler = NamedThreads.named("sipcrypt-test-timer").scheduler();
        try {
            scheduler.schedule(() -> { }, 1, TimeUnit.HOURS).cancel(false);
            assertEquals(0, scheduler.getQueue().size());
            assertEquals("sipcrypt-test-timer", scheduler.submit(() -> Thread.currentThread().getName())
                    .get(20, TimeUnit.SECONDS));
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void badSizesAreRefusedNamingThePool() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NamedThreads.numbered("sipcrypt-x").boundedPool(1, 0));
        assertTrue(e.getMessage().startsWith("sipcrypt-x: queueCapacity"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NamedThreads.numbered("sipcrypt-x").boundedPool(0, 1));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
