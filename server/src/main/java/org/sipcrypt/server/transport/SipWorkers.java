package org.sipcrypt.server.transport;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SIP worker lanes: parsing, the JAIN-SIP transaction layer and the application run here, off
 * the event loops. Each lane is one thread with a bounded queue; a message goes to the lane of its
 * Call-ID, so the messages of one call are handled in arrival order and never concurrently.
 * Rejection policy: a task offered to a full lane is refused ({@link #execute} returns false) and
 * the caller counts the dropped message. A received message also counts its bytes against a budget
 * for all lanes together ({@code overload.maxQueuedBytes}) until its task starts: one that would
 * pass it is refused the same way, so that the lanes hold a bounded number of bytes whatever their
 * count of tasks (10,000 messages of 50 KB per lane filled a 512 MiB heap). Every queued task
 * carries the time it was queued, so the {@link OverloadGuard} can read how long the oldest one in a
 * lane has waited.
 * Threading: thread-safe; never blocks.
 */
public final class SipWorkers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SipWorkers.class);
    /** The lane whose task the current thread runs, or null off the lanes. */
    private static final ThreadLocal<ThreadPoolExecutor> CURRENT = new ThreadLocal<>();

    private final ThreadPoolExecutor[] lanes;
    private final Consumer<Throwable> failureCounter;
    private final Ticker ticker;
    private final long maxQueuedBytes;
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong refusedForBytes = new AtomicLong();

    /** Lanes on the system ticker, with no bound on the bytes queued. */
    public SipWorkers(int laneCount, int queueCapacity, Consumer<Throwable> failureCounter) {
        this(laneCount, queueCapacity, Long.MAX_VALUE, failureCounter, Ticker.systemTicker());
    }

    /** Lanes on the system ticker. */
    public SipWorkers(int laneCount, int queueCapacity, long maxQueuedBytes, Consumer<Throwable> failureCounter) {
        this(laneCount, queueCapacity, maxQueuedBytes, failureCounter, Ticker.systemTicker());
    }

    /** Lanes with no bound on the bytes queued. */
    public SipWorkers(int laneCount, int queueCapacity, Consumer<Throwable> failureCounter, Ticker ticker) {
        this(laneCount, queueCapacity, Long.MAX_VALUE, failureCounter, ticker);
    }

    /**
     * @param laneCount      number of lanes (threads {@code sipcrypt-sip-0..})
     * @param queueCapacity  bound of each lane's queue
     * @param maxQueuedBytes most bytes of messages waiting in all lanes together ({@link #execute(String, int, Runnable)})
     * @param failureCounter told of every exception a task throws (the lane survives it)
     * @param ticker         stamps queued tasks, for {@link #queueDelayNanos}
     */
    public SipWorkers(int laneCount, int queueCapacity, long maxQueuedBytes, Consumer<Throwable> failureCounter,
                      Ticker ticker) {
        if (laneCount < 1) {
            throw new IllegalArgumentException("laneCount must be at least 1: " + laneCount);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1: " + queueCapacity);
        }
        if (maxQueuedBytes < 1) {
            throw new IllegalArgumentException("maxQueuedBytes must be at least 1: " + maxQueuedBytes);
        }
        this.maxQueuedBytes = maxQueuedBytes;
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
        return execute(key, 0, task);
    }

    /**
     * Runs the task handling a received message of {@code bytes} bytes on the lane of {@code key};
     * the bytes count against {@code maxQueuedBytes} until the task starts.
     *
     * @return false when the lane's queue is full, the bytes would pass the budget, or the workers are
     *         shut down; the task did not run
     */
    public boolean execute(String key, int bytes, Runnable task) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        if (bytes > 0 && queuedBytes.addAndGet(bytes) > maxQueuedBytes) {
            queuedBytes.addAndGet(-bytes);
            refusedForBytes.incrementAndGet();
            return false;
        }
        try {
            ThreadPoolExecutor lane = laneOf(key);
            lane.execute(new Queued(lane, ticker.read(), bytes, task));
            return true;
        } catch (RejectedExecutionException e) {
            queuedBytes.addAndGet(-bytes);
            return false;
        }
    }

    /** Bytes of received messages waiting in all lanes now. */
    public long queuedBytes() {
        return queuedBytes.get();
    }

    /** The bound on {@link #queuedBytes()}. */
    public long maxQueuedBytes() {
        return maxQueuedBytes;
    }

    /** Messages refused so far because their bytes would have passed {@code maxQueuedBytes}. */
    public long refusedForBytes() {
        return refusedForBytes.get();
    }

    /** The lane of {@code key} as an executor that throws {@link RejectedExecutionException} when full. */
    public Executor lane(String key) {
        ThreadPoolExecutor lane = laneOf(key);
        return task -> lane.execute(new Queued(lane, ticker.read(), 0, task));
    }

    /** Tasks waiting in the lane of {@code key}. */
    public int queued(String key) {
        return laneOf(key).getQueue().size();
    }

    /** How long the oldest task waiting in the lane of {@code key} has waited, in nanoseconds; 0 when none waits. */
    public long queueDelayNanos(String key) {
        return queueDelayNanos(laneIndex(key), ticker.read());
    }

    /** As {@link #queueDelayNanos(String)} for lane {@code lane} ({@link #laneIndex}) at {@code now} ({@link #ticks}). */
    public long queueDelayNanos(int lane, long now) {
        Runnable head = lanes[lane].getQueue().peek();
        return head instanceof Queued q ? Math.max(0, now - q.queuedAt) : 0;
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

    /**
     * Whether the calling thread is running a task of the lane of {@code key}: work for that key may
     * then run at once, in order with the key's messages, instead of queueing behind them.
     */
    public boolean onLaneOf(String key) {
        return CURRENT.get() == laneOf(key);
    }

    /** The index (0 to {@link #laneCount()} - 1) of the lane of {@code key}. */
    public int laneIndex(String key) {
        int h = key == null ? 0 : key.hashCode();
        h ^= (h >>> 16);
        return Math.floorMod(h, lanes.length);
    }

    /** The time on the ticker that stamps queued tasks, in nanoseconds. */
    public long ticks() {
        return ticker.read();
    }

    private ThreadPoolExecutor laneOf(String key) {
        return lanes[laneIndex(key)];
    }

    /** A task with the time it was queued; failures are counted and logged, and the lane survives them. */
    private final class Queued implements Runnable {
        final ThreadPoolExecutor lane;
        final long queuedAt;
        final int bytes;
        final Runnable task;

        Queued(ThreadPoolExecutor lane, long queuedAt, int bytes, Runnable task) {
            this.lane = lane;
            this.queuedAt = queuedAt;
            this.bytes = bytes;
            this.task = task;
        }

        @Override
        public void run() {
            if (bytes > 0) {
                queuedBytes.addAndGet(-bytes);
            }
            CURRENT.set(lane);
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                failureCounter.accept(e);
                log.warn("SIP worker task failed: {}", e.toString(), e);
            } finally {
                CURRENT.remove();
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
