package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.Await;

/**
 * The lanes' bound in bytes: real lanes, each held busy by a task waiting on a latch, so that what
 * waits in their queues is exactly what the test queued.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SipWorkersBytesTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final CountDownLatch release = new CountDownLatch(1);
    private SipWorkers workers;

    /** One lane, held busy by a task that waits on {@link #release}. */
    private SipWorkers busyLane(int queueCapacity, long maxQueuedBytes) throws InterruptedException {
        workers = new SipWorkers(1, queueCapacity, maxQueuedBytes, e -> { });
        CountDownLatch running = new CountDownLatch(1);
        assertTrue(workers.execute("block", () -> {
            running.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(running.await(20, TimeUnit.SECONDS), "the lane did not start the blocking task");
        return workers;
    }

    @AfterEach
    void freeLanes() {
        release.countDown();
        if (workers != null) {
            workers.close();
        }
    }

    @Test
    void messagesBeyondTheByteBudgetAreRefusedUntilQueuedOnesStart() throws Exception {
        SipWorkers w = busyLane(100, 1000);
        assertTrue(w.execute("call-1", 400, () -> { }));
        assertTrue(w.execute("call-2", 400, () -> { }));
        assertEquals(800, w.queuedBytes());

        assertFalse(w.execute("call-3", 400, () -> { }), "800 + 400 bytes is past the budget of 1000");
        assertEquals(800, w.queuedBytes(), "a refused message holds nothing");
        assertEquals(1, w.refusedForBytes());
        assertTrue(w.execute("call-4", 200, () -> { }), "exactly the budget");
        assertFalse(w.execute("call-5", 1, () -> { }));
        assertTrue(w.execute("call-6", () -> { }), "a task of the server's own carries no bytes");

        release.countDown();
        Await.until(() -> w.queuedBytes() == 0, WAIT, () -> w.queuedBytes() + " bytes still queued");
        assertTrue(w.execute("call-3", 400, () -> { }), "the bytes came back when the messages were taken");
    }

    @Test
    void aMessageRefusedByAFullQueueReturnsItsBytes() throws Exception {
        SipWorkers w = busyLane(1, 1000);
        assertTrue(w.execute("call-1", 100, () -> { }));
        assertFalse(w.execute("call-2", 100, () -> { }), "the lane's queue holds one task");
        assertEquals(100, w.queuedBytes());
        assertEquals(0, w.refusedForBytes(), "refused for the count, not the bytes");
    }

    @Test
    void theBudgetHoldsForAllLanesTogether() throws Exception {
        SipWorkers w = new SipWorkers(4, 1000, 10_000, e -> { });
        workers = w;
        CountDownLatch gate = new CountDownLatch(1);
        // every lane blocked: the first task of each key's lane waits on the gate
        int accepted = 0;
        for (int i = 0; i < 100; i++) {
            if (w.execute("call-" + i, 1_000, () -> {
                try {
                    gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            })) {
                accepted++;
            }
            assertTrue(w.queuedBytes() <= 10_000, w.queuedBytes() + " bytes queued");
        }
        // the lanes took up to four tasks off their queues (running, their bytes returned): at most 14 in all
        assertTrue(accepted >= 10 && accepted <= 14, accepted + " accepted");
        gate.countDown();
        Await.until(() -> w.queuedBytes() == 0, WAIT, () -> w.queuedBytes() + " bytes still queued");
    }

    @Test
    void theByteBudgetIsChecked() {
        assertThrows(IllegalArgumentException.class, () -> new SipWorkers(1, 1, 0, e -> { }));
    }
}
