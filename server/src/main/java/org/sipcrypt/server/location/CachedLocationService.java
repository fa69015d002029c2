package org.sipcrypt.server.location;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A location service that answers lookups from memory what its store answered before (Kamailio's
 * usrloc keeps its bindings in memory the same way): a call to a registered user then costs no
 * database round trip and no hand-off to a database thread. Correct only while every change to the
 * bindings passes through this service, which is why the server uses it with its embedded database
 * and not with one other servers share ({@code location.cache}).
 * <ul>
 *   <li>An answer is kept until the first of its bindings lapses; a lookup at or after that instant
 *       goes to the store again (which also drops what a purge deleted).</li>
 *   <li>A REGISTER forgets the answer for its address-of-record when it starts and again when it ends,
 *       and an answer read while any REGISTER was under way is not kept: a lookup never returns
 *       bindings older than the last REGISTER that completed before it began.</li>
 *   <li>At most {@code maxEntries} addresses-of-record are kept, the least used dropped first.</li>
 * </ul>
 * Threading: thread-safe; never blocks (misses and every write run on the store's threads).
 */
public final class CachedLocationService implements LocationService {

    private final LocationService store;
    private final Cache<String, LookupResult> answers;
    /** REGISTERs begun plus REGISTERs ended: an answer read while it moved may be stale. */
    private final AtomicLong writes = new AtomicLong();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();

    /**
     * @param store      where the bindings are kept; every change to them must come through this service
     * @param maxEntries most addresses-of-record kept in memory
     */
    public CachedLocationService(LocationService store, int maxEntries) {
        this.store = Objects.requireNonNull(store, "store");
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1: " + maxEntries);
        }
        this.answers = Caffeine.newBuilder().maximumSize(maxEntries).executor(Runnable::run).build();
    }

    @Override
    public CompletableFuture<RegisterOutcome> register(RegisterChange change) {
        writes.incrementAndGet();
        answers.invalidate(change.aor());
        return store.register(change).whenComplete((outcome, failure) -> {
            answers.invalidate(change.aor());
            writes.incrementAndGet();
        });
    }

    @Override
    public CompletableFuture<LookupResult> lookup(String aor, Instant now) {
        LookupResult kept = answers.getIfPresent(aor);
        if (kept != null && liveAt(kept, now)) {
            hits.increment();
            return CompletableFuture.completedFuture(kept);
        }
        misses.increment();
        long before = writes.get();
        return store.lookup(aor, now).whenComplete((result, failure) -> {
            if (result != null && writes.get() == before) {
                answers.put(aor, result);
            }
        });
    }

    /** Whether every binding of {@code r} is still live at {@code now}, so that the answer is still whole. */
    private static boolean liveAt(LookupResult r, Instant now) {
        for (Binding b : r.bindings()) {
            if (!b.expiresAt().isAfter(now)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public CompletableFuture<Integer> purgeExpired(Instant now) {
        return store.purgeExpired(now);
    }

    /** The store behind the cache. */
    public LocationService store() {
        return store;
    }

    /** Lookups answered from memory. */
    public long hits() {
        return hits.sum();
    }

    /** Lookups that went to the store. */
    public long misses() {
        return misses.sum();
    }

    @Override
    public void close() {
        answers.invalidateAll();
        store.close();
    }
}
