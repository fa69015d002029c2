package org.sipcrypt.server.concurrent;

import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the process's threads: daemon threads with a name that says what they run (the thread
 * tables in the package-info of {@code org.sipcrypt.server} and in docs/architecture.md list them),
 * and the executors that own them, each with a bounded queue that refuses work with a
 * {@link RejectedExecutionException} when full rather than growing. Threads are daemons: the
 * server's or the tool's own stop ends them, and a forgotten one never holds the JVM up.
 * Threading: thread-safe; never blocks.
 */
public final class NamedThreads implements ThreadFactory {

    private final String name;
    private final boolean numbered;
    private final AtomicInteger next = new AtomicInteger();

    private NamedThreads(String name, boolean numbered) {
        this.name = Objects.requireNonNull(name, "name");
        this.numbered = numbered;
    }

    /** Threads named {@code prefix-0}, {@code prefix-1}, ... in the order they are made. */
    public static NamedThreads numbered(String prefix) {
        return new NamedThreads(prefix, true);
    }

    /** Threads all named {@code name}: for a single-thread executor, whose thread may be replaced. */
    public static NamedThreads named(String name) {
        return new NamedThreads(name, false);
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, numbered ? name + "-" + next.getAndIncrement() : name);
        t.setDaemon(true);
        return t;
    }

    /** Makes a thread running {@code task} and starts it. */
    public Thread start(Runnable task) {
        Thread t = newThread(task);
        t.start();
        return t;
    }

    /**
     * A fixed pool of {@code threads} threads from this factory, started as work arrives, whose
     * queue holds at most {@code queueCapacity} tasks; beyond it {@code execute} throws
     * {@link RejectedExecutionException} (the caller counts and answers it, e.g. with 503).
     */
    public ThreadPoolExecutor boundedPool(int threads, int queueCapacity) {
        if (threads < 1) {
            throw new IllegalArgumentException(name + ": threads must be at least 1: " + threads);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException(name + ": queueCapacity must be at least 1: " + queueCapacity);
        }
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity), this, new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * A one-thread scheduler from this factory; cancelled tasks leave its queue at once. Its queue is
     * bounded by what its owner schedules (periodic tasks and one timer per pending event, each
     * removed when cancelled), which the owner's thread-table entry states.
     */
    public ScheduledThreadPoolExecutor scheduler() {
        ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, this, new ThreadPoolExecutor.AbortPolicy());
        s.setRemoveOnCancelPolicy(true);
        return s;
    }
}
