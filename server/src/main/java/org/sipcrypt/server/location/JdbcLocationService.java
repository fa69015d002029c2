package org.sipcrypt.server.location;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.sipcrypt.server.location.BindingsTable.Row;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The location service kept in a SQL database (H2 or PostgreSQL, see {@link Database}), so
 * registrations survive a restart and several servers can share them. Each REGISTER is one
 * transaction that locks the AOR, applies RFC 3261 §10.3 step 7 to its bindings and commits
 * all of it or, when a CSeq is out of order, nothing. The statements themselves are in
 * {@link BindingsTable}.
 * <p>
 * Every JDBC call runs on the {@code sipcrypt-db-N} executor: a fixed pool of {@code threads}
 * threads with a queue bounded at {@code queueCapacity} tasks ({@value #DEFAULT_QUEUE_CAPACITY}
 * by default). Rejection policy: when the queue is full, or the service is closed, the call does
 * not queue and its future completes at once, exceptionally, with a
 * {@link RejectedExecutionException}. A failing database completes futures exceptionally with the
 * {@link SQLException} as the cause, after at most {@code db.connectTimeout} waiting for
 * a connection; lock conflicts between concurrent transactions are retried a few times first.
 * While the database's {@link DatabaseBreaker} is open, calls fail at once with a
 * {@link DatabaseUnavailableException}, whether they arrive then or were queued before it opened;
 * failures that say the database cannot be reached are reported to the breaker.
 * <p>
 * State is bounded: an address-of-record holds at most {@code maxContacts} bindings (a change adding
 * one beyond it is refused whole with {@link RegisterOutcome.TooManyContacts}), lookups and REGISTER
 * outcomes list at most that many (the most preferred), and the service holds at most
 * {@code maxBindings} in all ({@link RegisterOutcome.Full}). The total is counted in the database
 * when first needed and after every purge, and kept up to date in memory in between; concurrent
 * REGISTERs on several threads (or several servers sharing the database) may pass it by at most
 * what they add together.
 * Threading: thread-safe; never blocks (close waits up to 2 s); futures complete on the sipcrypt-db executor.
 */
public final class JdbcLocationService implements LocationService {

    private static final Logger log = LoggerFactory.getLogger(JdbcLocationService.class);

    /** Default bound of the executor's queue, in tasks. */
    public static final int DEFAULT_QUEUE_CAPACITY = 10_000;

    /** How long {@link #close()} lets queued work finish. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

    /** Attempts of one call when transactions collide (deadlock, lock timeout, first-insert race). */
    private static final int MAX_ATTEMPTS = 5;

    /**
     * SQL states of collisions between transactions, worth a retry: serialization failure or
     * deadlock (40001, PostgreSQL 40P01), H2 lock timeout (HYT00) and concurrent update (90131).
     */
    private static final Set<String> RETRYABLE_STATES = Set.of("40001", "40P01", "HYT00", "90131");

    /** Live bindings first by q (highest first), then most recently written first. */
    private static final Comparator<Row> PREFERENCE = Comparator
            .comparingDouble((Row r) -> r.q()).reversed()
            .thenComparing(Comparator.comparingLong(Row::updatedAt).reversed())
            .thenComparing(Row::contactKey);

    private final Database db;
    private final int queueCapacity;
    private final ThreadPoolExecutor executor;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final RateLimitedLog failures = new RateLimitedLog(log);
    private final int maxContacts;
    private final int maxBindings;
    /** Bindings stored, as last counted plus changes since; -1 until first counted. */
    private final AtomicLong stored = new AtomicLong(-1);

    /** A service with {@code db.poolSize()} threads, the default queue bound and no limits on bindings. */
    public JdbcLocationService(Database db) {
        this(db, db.poolSize(), DEFAULT_QUEUE_CAPACITY);
    }

    /** A service with no limits on bindings (for tools and tests of other behaviour). */
    public JdbcLocationService(Database db, int threads, int queueCapacity) {
        this(db, threads, queueCapacity, Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    /**
     * @param db            the database; the service uses it and never closes it
     * @param threads       threads of the {@code sipcrypt-db} executor, usually the pool size
     * @param queueCapacity bound of the executor's queue, in tasks
     * @param maxContacts   most bindings per address-of-record ({@code registrar.maxContacts})
     * @param maxBindings   most bindings in all ({@code registrar.maxBindings})
     */
    public JdbcLocationService(Database db, int threads, int queueCapacity, int maxContacts, int maxBindings) {
        this.db = Objects.requireNonNull(db, "db");
        if (maxContacts < 1 || maxBindings < 1) {
            throw new IllegalArgumentException("maxContacts and maxBindings must be at least 1: "
                    + maxContacts + ", " + maxBindings);
        }
        this.maxContacts = maxContacts;
        this.maxBindings = maxBindings;
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1: " + queueCapacity);
        }
        this.queueCapacity = queueCapacity;
        AtomicInteger next = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity),
                r -> {
                    Thread t = new Thread(r, "sipcrypt-db-" + next.getAndIncrement());
                    t.setDaemon(true);
                    return t;
                },
                new ThreadPoolExecutor.AbortPolicy());
    }

    @Override
    public CompletableFuture<RegisterOutcome> register(RegisterChange change) {
        Objects.requireNonNull(change, "change");
        return submit("register", () -> registerOnce(change));
    }

    @Override
    public CompletableFuture<LookupResult> lookup(String aor, Instant now) {
        Objects.requireNonNull(aor, "aor");
        Objects.requireNonNull(now, "now");
        return submit("lookup", () -> lookupOnce(aor, now.toEpochMilli()));
    }

    @Override
    public CompletableFuture<Integer> purgeExpired(Instant now) {
        Objects.requireNonNull(now, "now");
        return submit("purge", () -> purgeOnce(now.toEpochMilli()));
    }

    /**
     * Stops taking work, lets queued work finish for up to 2 s, then abandons the rest (their
     * futures complete with a {@link RejectedExecutionException}). The database stays open: its
     * owner closes it. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                abandon(executor.shutdownNow());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(executor.shutdownNow());
        }
    }

    private void abandon(List<Runnable> notStarted) {
        for (Runnable r : notStarted) {
            if (r instanceof DbTask<?> task) {
                task.future.completeExceptionally(
                        new RejectedExecutionException("location service closed before " + task.op + " ran"));
            }
        }
        log.warn("location service on {} closed with {} requests abandoned", db.url(), notStarted.size());
    }

    // ---- register: RFC 3261 §10.3 steps 6-8 in one transaction -------------------------------

    private RegisterOutcome registerOnce(RegisterChange change) throws SQLException {
        long now = change.now().toEpochMilli();
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                Written written = new Written();
                RegisterOutcome outcome = registerIn(c, change, now, written);
                if (outcome instanceof RegisterOutcome.Applied) {
                    c.commit();
                    stored.addAndGet(written.inserted - written.deleted);
                } else {
                    // Step 7 (out of order) or a limit: the whole request fails and nothing it asked for is kept.
                    c.rollback();
                }
                return outcome;
            } catch (SQLException | RuntimeException e) {
                SqlTransactions.rollbackAfter(c, e);
                throw e;
            }
        }
    }

    /** Rows a committed change inserted and deleted, for the running total. */
    private static final class Written {
        int inserted;
        int deleted;
    }

    private RegisterOutcome registerIn(Connection c, RegisterChange change, long now, Written written)
            throws SQLException {
        String aor = change.aor();
        BindingsTable.touchAor(c, aor, now);
        // A lapsed binding counts as absent and is deleted now.
        Map<String, Row> live = new LinkedHashMap<>();
        List<String> lapsed = new ArrayList<>();
        BindingsTable.lockBindings(c, aor, now, live, lapsed);

        // Decisions are taken against the bindings as stored before this request; when a request
        // names one contact twice, the last occurrence wins.
        Map<String, Row> after = new HashMap<>(live);
        Set<String> writtenKeys = new HashSet<>();
        if (change.removeAll()) {
            // RFC 3261 §10.3 step 7, Contact "*": a binding of another Call-ID is removed; one of the
            // same Call-ID only if the request's CSeq is higher, else the request is aborted.
            for (Row stored : live.values()) {
                if (stored.callId().equals(change.callId()) && change.cseq() <= stored.cseq()) {
                    return new RegisterOutcome.OutOfOrder(stored.contact(), stored.cseq());
                }
                after.remove(stored.contactKey());
            }
        }
        for (ContactChange cc : change.contacts()) {
            String key = cc.contactKey();
            Row stored = live.get(key);
            // RFC 3261 §10.3 step 7: same Call-ID needs a higher CSeq, else abort the whole request.
            if (stored != null && stored.callId().equals(change.callId()) && change.cseq() <= stored.cseq()) {
                return new RegisterOutcome.OutOfOrder(cc.contact(), stored.cseq());
            }
            if (cc.expires().isZero()) {
                // Removes an existing binding; for an absent one it does nothing.
                after.remove(key);
                writtenKeys.remove(key);
            } else {
                if (cc.instance() != null && cc.regId() > 0) {
                    // RFC 5626 §6 step 3: a binding of the same instance and reg-id is replaced, not added to
                    after.values().removeIf(r -> !r.contactKey().equals(key) && cc.instance().equals(r.instance())
                            && r.regId() == cc.regId());
                    writtenKeys.removeIf(k -> !after.containsKey(k));
                }
                after.put(key, new Row(key, cc.contact(), now + cc.expires().toMillis(),
                        change.callId(), change.cseq(), cc.q(), change.received(), now, change.flow(), cc.nat(),
                        cc.instance(), cc.regId(), change.path()));
                writtenKeys.add(key);
            }
        }

        List<String> deletes = new ArrayList<>(lapsed);
        for (String key : live.keySet()) {
            if (!after.containsKey(key)) {
                deletes.add(key);
            }
        }
        List<Row> updates = new ArrayList<>();
        List<Row> inserts = new ArrayList<>();
        for (String key : writtenKeys) {
            (live.containsKey(key) ? updates : inserts).add(after.get(key));
        }
        if (!inserts.isEmpty()) {
            // Refreshes and removals always pass; only new bindings are bounded. An AOR already above
            // the limit (it was lowered) keeps its bindings but gets no new one.
            if (after.size() > maxContacts) {
                return new RegisterOutcome.TooManyContacts(maxContacts);
            }
            if (storedBindings(c) - deletes.size() + inserts.size() > maxBindings) {
                return new RegisterOutcome.Full(maxBindings);
            }
        }
        written.inserted = inserts.size();
        written.deleted = deletes.size();
        BindingsTable.delete(c, aor, deletes);
        BindingsTable.update(c, aor, updates);
        BindingsTable.insert(c, aor, inserts);

        return new RegisterOutcome.Applied(toBindings(aor, after.values(), now, maxContacts));
    }

    /** Bindings stored in all, as last counted plus changes since; -1 until first counted. */
    public long bindingsStored() {
        return stored.get();
    }

    /** The bindings stored in all, counted in the database the first time. */
    private long storedBindings(Connection c) throws SQLException {
        long n = stored.get();
        if (n >= 0) {
            return n;
        }
        n = BindingsTable.count(c);
        stored.compareAndSet(-1, n);
        return n;
    }

    // ---- lookup and purge ------------------------------------------------------------------

    private LookupResult lookupOnce(String aor, long now) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            List<Row> rows = BindingsTable.lookup(c, aor, now);
            return rows == null ? new LookupResult(false, List.of())
                    : new LookupResult(true, toBindings(aor, rows, now, maxContacts));
        }
    }

    private int purgeOnce(long now) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            int n = BindingsTable.purge(c, now);
            stored.set(BindingsTable.count(c));
            log.debug("purged {} lapsed bindings from {}", n, db.url());
            return n;
        }
    }

    /** The live bindings, most preferred first, at most {@code limit} of them. */
    private static List<Binding> toBindings(String aor, Iterable<Row> rows, long now, int limit) {
        List<Row> liveRows = new ArrayList<>();
        for (Row r : rows) {
            if (r.expiresAt() > now) {
                liveRows.add(r);
            }
        }
        liveRows.sort(PREFERENCE);
        if (liveRows.size() > limit) {
            liveRows = liveRows.subList(0, limit);
        }
        List<Binding> bindings = new ArrayList<>(liveRows.size());
        for (Row r : liveRows) {
            bindings.add(new Binding(aor, r.contactKey(), r.contact(), Instant.ofEpochMilli(r.expiresAt()),
                    r.callId(), r.cseq(), r.q(), r.received(), r.flow(), r.nat(), r.instance(), r.regId(), r.path()));
        }
        return bindings;
    }

    // ---- the executor -----------------------------------------------------------------------

    private <T> CompletableFuture<T> submit(String op, SqlWork<T> work) {
        DbTask<T> task = new DbTask<>(op, work);
        DatabaseUnavailableException refused = db.breaker().refusal(op);
        if (refused != null) {
            task.future.completeExceptionally(refused);
            return task.future;
        }
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            RejectedExecutionException why = new RejectedExecutionException(executor.isShutdown()
                    ? "location service closed; " + op + " refused"
                    : "location service queue full (" + queueCapacity + " tasks); " + op + " refused", e);
            logFailure(op, why);
            task.future.completeExceptionally(why);
        }
        return task.future;
    }

    /** Runs one call, retrying collisions between transactions with a short random back-off. */
    private static <T> T withRetries(String op, SqlWork<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return work.run();
            } catch (SQLException e) {
                if (attempt >= MAX_ATTEMPTS || !isRetryable(e)) {
                    throw e;
                }
                log.debug("{} attempt {} collided with another transaction ({}); retrying", op, attempt, e.toString());
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * attempt + 1));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(interrupted);
                    throw e;
                }
            }
        }
    }

    private static boolean isRetryable(SQLException e) {
        return e instanceof SQLTransactionRollbackException
                || (e.getSQLState() != null && RETRYABLE_STATES.contains(e.getSQLState()));
    }

    /** One JDBC call, run on a {@code sipcrypt-db} thread. */
    @FunctionalInterface
    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    /** A queued call and the future it completes. */
    private final class DbTask<T> implements Runnable {
        final String op;
        final SqlWork<T> work;
        final CompletableFuture<T> future = new CompletableFuture<>();

        DbTask(String op, SqlWork<T> work) {
            this.op = op;
            this.work = work;
        }

        @Override
        public void run() {
            // Queued before the breaker opened: fail at once rather than wait on the pool's timeout.
            DatabaseUnavailableException refused = db.breaker().refusal(op);
            if (refused != null) {
                future.completeExceptionally(refused);
                return;
            }
            long started = db.breaker().now();
            try {
                future.complete(withRetries(op, work));
            } catch (SQLException e) {
                db.breaker().failed(e, started);
                logFailure(op, e);
                future.completeExceptionally(e);
            } catch (RuntimeException e) {
                log.error("location {} failed unexpectedly on {}", op, db.url(), e);
                future.completeExceptionally(e);
            } catch (Error e) {
                future.completeExceptionally(e);
                throw e;
            }
        }
    }

    /** Logs a failure at DEBUG, and at WARN at most once a minute per exception class. */
    private void logFailure(String op, Exception e) {
        log.debug("location {} on {} failed", op, db.url(), e);
        failures.warn(e.getClass().getName(), "location {} on {} failed: {} (logged once a minute per kind of failure)",
                op, db.url(), e.toString());
    }
}
