package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.stack.SIPStackTimerTask;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wheel runs JAIN-SIP's timers: one-shot and fixed-delay, cancelled ones never (checked by a
 * later timer having run, as the wheel fires in deadline order on its one thread), and nothing
 * after stop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WheelSipTimerTest {

    private static final long WAIT_S = 30;

    private final WheelSipTimer timer = new WheelSipTimer();

    @AfterEach
    void stop() {
        timer.stop();
    }

    @Test
    void oneShotTimersFireInDeadlineOrderAndACancelledOneNever() throws Exception {
        timer.start(null, new Properties());
        assertTrue(timer.isStarted());
        List<String> fired = new CopyOnWriteArrayList<>();
        CountDownLatch last = new CountDownLatch(1);
        Task late = new Task(() -> {
            fired.add("late");
            last.countDown();
        });
        Task cancelled = new Task(() -> fired.add("cancelled"));
        Task early = new Task(() -> fired.add("early"));
        timer.schedule(late, 200);
        timer.schedule(cancelled, 100);
        timer.schedule(early, 20);
        assertTrue(timer.cancel(cancelled));
        assertNull(cancelled.getSipTimerTask(), "the handle is dropped on cancel");
        assertTrue(cancelled.cleanedUp, "JAIN-SIP's clean-up ran");
        assertFalse(timer.cancel(cancelled), "a second cancel finds nothing");

        assertTrue(last.await(WAIT_S, TimeUnit.SECONDS));
        assertEquals(List.of("early", "late"), fired);
    }

    @Test
    void aFixedDelayTimerRepeatsUntilCancelled() throws Exception {
        timer.start(null, new Properties());
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch three = new CountDownLatch(3);
        Task periodic = new Task(() -> {
            runs.incrementAndGet();
            three.countDown();
        });
        timer.scheduleWithFixedDelay(periodic, 10, 20);
        assertTrue(three.await(WAIT_S, TimeUnit.SECONDS));
        timer.cancel(periodic);
        int atCancel = runs.get();

        CountDownLatch after = new CountDownLatch(1);
        timer.schedule(new Task(after::countDown), 200);
        assertTrue(after.await(WAIT_S, TimeUnit.SECONDS));
        assertTrue(runs.get() <= atCancel + 1, "runs after cancel: " + (runs.get() - atCancel));
    }

    @Test
    void aFailingTaskLeavesTheTimerRunning() throws Exception {
        timer.start(null, new Properties());
        timer.schedule(new Task(() -> {
            throw new IllegalStateException("a timer task failed on purpose");
        }), 10);
        CountDownLatch next = new CountDownLatch(1);
        timer.schedule(new Task(next::countDown), 50);
        assertTrue(next.await(WAIT_S, TimeUnit.SECONDS));
    }

    @Test
    void afterStopNothingIsScheduled() {
        timer.start(null, new Properties());
        timer.stop();
        assertFalse(timer.isStarted());
        assertThrows(IllegalStateException.class, () -> timer.schedule(new Task(() -> { }), 10));
    }

    /** A JAIN-SIP timer task running {@code body}. */
    private static final class Task extends SIPStackTimerTask {
        private final Runnable body;
        volatile boolean cleanedUp;

        Task(Runnable body) {
            this.body = body;
        }

        @Override
        public void runTask() {
            body.run();
        }

        @Override
        public void cleanUpBeforeCancel() {
            cleanedUp = true;
        }

        @Override
        public Object getThreadHash() {
            return null;
        }
    }
}
