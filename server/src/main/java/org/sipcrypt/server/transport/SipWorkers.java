package org.sipcrypt.server.transport;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SIP worker lanes: parsing, the JAIN-SIP transaction layer and the application run here, off
 * the event loops. Each lane is one thread with a bounded queue; a message goes to the lane of its
 * Call-ID, so the messages of one call are handled in arrival order and never concurrently.
 * Rejection policy: a task offered to a full lane is refused ({@link #execute} returns false) and
 * the caller counts the dropped message. Every queued task carries the time it was queued, so the
 * {@link OverloadGuard} can read how long the oldest one in a lane has waited.
 * Threading: thread-safe; never blocks.
 */
public final class SipWorkers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SipWorkers.class);

    private final ThreadPoolExecutor[] lanes;
    private final Consumer<Throwable> failureCounter;
    private final Ticker ticker;

    /** Lanes on the system ticker. */
    public SipWorkers(int laneCount, int queueCapacity, Consumer<Throwable> failureCounter) {
        this(laneCount, queueCapacity, failureCounter, Ticker.systemTicker());
    }

    /**
     * @param laneCount      number of lanes (threads {@code sipcrypt-sip-0..})
     * @param queueCapacity  bound of each lane's queue
     * @param failureCounter told of every exception a task throws (the lane survives it)
     * @param ticker         stamps queued tasks, for {@link #queueDelayNanos}
     */
    public SipWorkers(int laneCount, int queueCapacity, Consumer<Throwable> failureCounter, Ticker ticker) {
        if (laneCount < 1) {
            throw new IllegalArgumentException("laneCount must be at least 1: " + laneCount);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1: " + queueCapacity);
        }
        this.failureCounter = Objects.requireNonNull(failureCounter, "failureCounter");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.lanes = new ThreadPoolExecutor[laneCount];
        for (int i = 0; i < laneCount; i++) {
            lanes[i] = NamedThreads.named("sipcrypt-sip-" + i).boundedPool(1, queueCapacity);
        }
    }

    /** Number of lanes. */
    public int laneCount() {
        return lanes.length;
    }

    /**
     * Runs the task on the lane of {@code key} (a Call-ID, or any string when there is none).
     *
     * @return false when the lane's queue is full or the workers are shut down; the task did not run
     */
    public boolean execute(String key, Runnable task) {
        try {
            laneOf(key).execute(guarded(task));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The lane of {@code key} as an executor that throws {@link RejectedExecutionException} when full. */
    public Executor lane(String key) {
        ThreadPoolExecutor lane = laneOf(key);
        return task -> lane.execute(guarded(task));
    }

    /** Tasks waiting in the lane of {@code key}. */
    public int queued(String key) {
        return laneOf(key).getQueue().size();
    }

    /** How long the oldest task waiting in the lane of {@code key} has waited, in nanoseconds; 0 when none waits. */
    public long queueDelayNanos(String key) {
        Runnable head = laneOf(key).getQueue().peek();
        return head instanceof Queued q ? Math.max(0, ticker.read() - q.queuedAt) : 0;
    }

    /** Tasks waiting in lane {@code lane} (0 to {@link #laneCount()} - 1). */
    public int queuedInLane(int lane) {
        return lanes[lane].getQueue().size();
    }

    /** Tasks waiting in all lanes. */
    public int queued() {
        int n = 0;
        for (ThreadPoolExecutor lane : lanes) {
            n += lane.getQueue().size();
        }
        return n;
    }

    private ThreadPoolExecutor laneOf(String key) {
        int h = key == null ? 0 : key.hashCode();
        h ^= (h >>> 16);
        return lanes[Math.floorMod(h, lanes.length)];
    }

    private Runnable guarded(Runnable task) {
        return new Queued(ticker.read(), task);
    }

    /** A task with the time it was queued; failures are counted and logged, and the lane survives them. */
    private final class Queued implements Runnable {
        final long queuedAt;
        final Runnable task;

        Queued(long queuedAt, Runnable task) {
            this.queuedAt = queuedAt;
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                failureCounter.accept(e);
                log.warn("SIP worker task failed: {}", e.toString(), e);
            }
        }
    }

    /** Stops taking tasks and waits up to {@code timeout} for queued ones to finish. */
    public void shutdown(Duration timeout) {
        for (ThreadPoolExecutor lane : lanes) {
            lane.shutdown();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ThreadPoolExecutor lane : lanes) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !lane.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                    lane.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                lane.shutdownNow();
            }
        }
    }

    @Override
    public void close() {
        shutdown(Duration.ofSeconds(2));
    }
}
