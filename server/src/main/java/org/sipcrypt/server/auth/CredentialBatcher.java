package org.sipcrypt.server.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.location.DatabaseBreaker;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asynchronous, batched credential lookups. Callers get a future at once; {@code threads} lookup
 * threads ({@code sipcrypt-auth-N}, as many as the database pool has connections) each take up
 * to {@code batchSize} waiting user names and fetch them in one
 * {@code SELECT ... WHERE username IN (...)}. A thread sends a partial batch once its oldest name
 * has waited {@code batchWait}, so a lone request waits at most that long; under load the queue
 * fills while all threads are busy and every round trip carries a full batch, which is what hides
 * the latency of a remote database. Waiting lookups are bounded by {@code queueCapacity}; beyond it
 * a lookup fails at once with {@link RejectedExecutionException}.
 * An optional cache keeps found subscribers for a time-to-live, bounded in size, and drops an
 * entry when a {@link SubscriberStore} of this process changes that subscriber.
 * While the database's {@link DatabaseBreaker} is open, a lookup the cache cannot answer fails at
 * once with a {@link org.sipcrypt.server.location.DatabaseUnavailableException} (the request gets
 * 503), and so does a batch queued before it opened; a batch failing for want of the database
 * opens it.
 * Metrics: {@code auth.lookups}, {@code auth.batch.size}, {@code auth.lookup.latency},
 * {@code auth.queue.length}, {@code auth.cache{result=hit|miss}}, {@code auth.lookups.failed},
 * {@code auth.lookups.rejected}.
 * Threading: thread-safe; {@link #lookup} never blocks; futures complete on the lookup threads
 * (or at once on the caller's thread for a cache hit or a rejection).
 */
public final class CredentialBatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CredentialBatcher.class);

    private record Pending(String username, CompletableFuture<Optional<Subscriber>> future, long enqueuedNanos) {
    }

    private final SubscriberStore store;
    private final DatabaseBreaker breaker;
    private final String realm;
    private final int batchSize;
    private final long batchWaitNanos;
    private final int queueCapacity;
    private final Cache<String, Subscriber> cache;
    private final AutoCloseable changeSubscription;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean closed;
    private final List<Thread> threads = new ArrayList<>();

    private final Counter lookups;
    private final Counter failed;
    private final Counter rejected;
    private final Counter cacheHits;
    private final Counter cacheMisses;
    private final DistributionSummary batchSizes;
    private final Timer latency;

    /**
     * @param threadCount   lookup threads, at most the database pool size
     * @param batchSize     most names per query, at least 1
     * @param batchWait     how long the oldest name may wait for a batch to fill; zero sends at once
     * @param queueCapacity most lookups waiting at once
     * @param cacheSize     most cached subscribers; 0 turns the cache off
     * @param cacheTtl      how long a cached subscriber is trusted
     * @param breaker       the circuit breaker of the database {@code store} reads
     */
    public CredentialBatcher(SubscriberStore store, String realm, int threadCount, int batchSize, Duration batchWait,
                             int queueCapacity, int cacheSize, Duration cacheTtl, MeterRegistry registry,
                             DatabaseBreaker breaker) {
        this.store = Objects.requireNonNull(store, "store");
        this.breaker = Objects.requireNonNull(breaker, "breaker");
        this.realm = Objects.requireNonNull(realm, "realm");
        if (threadCount < 1 || batchSize < 1 || queueCapacity < 1 || cacheSize < 0) {
            throw new IllegalArgumentException("threads, batchSize and queueCapacity must be at least 1 and cacheSize"
                    + " at least 0: " + threadCount + ", " + batchSize + ", " + queueCapacity + ", " + cacheSize);
        }
        this.batchSize = batchSize;
        this.batchWaitNanos = batchWait.toNanos();
        this.queueCapacity = queueCapacity;
        this.cache = cacheSize == 0 ? null
                : Caffeine.newBuilder().maximumSize(cacheSize).expireAfterWrite(cacheTtl).build();
        this.changeSubscription = cache == null ? null : SubscriberStore.onChange((changedRealm, username) -> {
            if (realm.equals(changedRealm)) {
                cache.invalidate(username);
            }
        });
        lookups = registry.counter("auth.lookups");
        failed = registry.counter("auth.lookups.failed");
        rejected = registry.counter("auth.lookups.rejected");
        cacheHits = registry.counter("auth.cache", "result", "hit");
        cacheMisses = registry.counter("auth.cache", "result", "miss");
        batchSizes = DistributionSummary.builder("auth.batch.size").publishPercentiles(0.5, 0.99).register(registry);
        latency = Timer.builder("auth.lookup.latency").publishPercentiles(0.5, 0.99).register(registry);
        Gauge.builder("auth.queue.length", this, CredentialBatcher::queueLength).register(registry);
        NamedThreads factory = NamedThreads.numbered("sipcrypt-auth");
        for (int i = 0; i < threadCount; i++) {
            threads.add(factory.newThread(this::runLookups));
        }
        threads.forEach(Thread::start);
    }

    /**
     * The subscriber named {@code username} in our realm, empty when there is none. Fails with
     * {@link RejectedExecutionException} when too many lookups wait, with a
     * {@link org.sipcrypt.server.location.DatabaseUnavailableException} while the database is known
     * to be down, or with the database's exception.
     */
    public CompletableFuture<Optional<Subscriber>> lookup(String username) {
        Objects.requireNonNull(username, "username");
        if (cache != null) {
            Subscriber cached = cache.getIfPresent(username);
            if (cached != null) {
                cacheHits.increment();
                return CompletableFuture.completedFuture(Optional.of(cached));
            }
            cacheMisses.increment();
        }
        CompletableFuture<Optional<Subscriber>> future = new CompletableFuture<>();
        Exception refused = breaker.refusal("credentials");
        if (refused != null) {
            future.completeExceptionally(refused);
            return future;
        }
        lock.lock();
        try {
            if (closed || queue.size() >= queueCapacity) {
                rejected.increment();
                future.completeExceptionally(new RejectedExecutionException(closed
                        ? "credential lookups are closed" : "credential lookup queue full (" + queueCapacity + ")"));
                return future;
            }
            queue.addLast(new Pending(username, future, System.nanoTime()));
            if (queue.size() == 1 || queue.size() >= batchSize) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
        return future;
    }

    /** Lookups waiting for a thread. */
    public int queueLength() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private void runLookups() {
        List<Pending> batch;
        while ((batch = nextBatch()) != null) {
            runBatch(batch);
        }
    }

    /** Blocks until a batch is due (full, or its oldest entry waited long enough); null once closed. */
    private List<Pending> nextBatch() {
        lock.lock();
        try {
            while (!closed) {
                if (queue.isEmpty()) {
                    work.awaitUninterruptibly();
                    continue;
                }
                long waitLeft = queue.peekFirst().enqueuedNanos() + batchWaitNanos - System.nanoTime();
                if (queue.size() >= batchSize || waitLeft <= 0) {
                    List<Pending> batch = new ArrayList<>(Math.min(batchSize, queue.size()));
                    while (batch.size() < batchSize && !queue.isEmpty()) {
                        batch.add(queue.pollFirst());
                    }
                    if (!queue.isEmpty()) {
                        work.signal();
                    }
                    return batch;
                }
                try {
                    work.awaitNanos(waitLeft);
                } catch (InterruptedException e) {
                    // close() interrupts nothing; keep the loop's own exit condition
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    private void runBatch(List<Pending> batch) {
        Set<String> names = new HashSet<>();
        for (Pending p : batch) {
            names.add(p.username());
        }
        Exception refused = breaker.refusal("credentials");
        if (refused != null) {
            // queued before the breaker opened: fail now rather than wait on the pool's timeout
            for (Pending p : batch) {
                p.future().completeExceptionally(refused);
            }
            return;
        }
        batchSizes.record(names.size());
        lookups.increment(names.size());
        Map<String, Subscriber> found;
        long started = breaker.now();
        try {
            found = store.find(realm, names);
        } catch (Exception e) {
            breaker.failed(e, started);
            failed.increment(batch.size());
            log.debug("credential lookup of {} names failed: {}", names.size(), e.toString());
            for (Pending p : batch) {
                p.future().completeExceptionally(e);
            }
            return;
        }
        long now = System.nanoTime();
        for (Pending p : batch) {
            Subscriber s = found.get(p.username());
            if (s != null && cache != null) {
                cache.put(p.username(), s);
            }
            latency.record(now - p.enqueuedNanos(), TimeUnit.NANOSECONDS);
            p.future().complete(Optional.ofNullable(s));
        }
    }

    /** Stops the lookup threads; waiting lookups fail. Blocks until the threads have ended. */
    @Override
    public void close() {
        List<Pending> left;
        lock.lock();
        try {
            closed = true;
            left = new ArrayList<>(queue);
            queue.clear();
            work.signalAll();
        } finally {
            lock.unlock();
        }
        for (Pending p : left) {
            p.future().completeExceptionally(new RejectedExecutionException("credential lookups are closed"));
        }
        for (Thread t : threads) {
            try {
                t.join(Duration.ofSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (changeSubscription != null) {
            try {
                changeSubscription.close();
            } catch (Exception e) {
                throw new IllegalStateException("cannot remove the cache's change listener", e);
            }
        }
    }
}
