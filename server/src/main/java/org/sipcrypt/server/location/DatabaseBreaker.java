package org.sipcrypt.server.location;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A circuit breaker around the database. It opens when an operation fails for want of the database
 * (no connection within the pool's timeout, a broken or refused connection: SQL state class 08 and
 * the JDBC connection exceptions), never for what a statement did (a constraint, a lock timeout).
 * While it is open, {@link #refusal} hands callers a {@link DatabaseUnavailableException} at once,
 * so requests needing the database are answered 503 without waiting on the pool, and one probe
 * every {@code probeInterval} checks the database on a connection of its own (outside the pool);
 * the first probe that succeeds closes the breaker. Failures of operations that began before the
 * breaker last closed are the old outage's and do not open it again.
 * Opening is logged once at WARN, closing once at INFO with how long the outage lasted.
 * The probe runs on the one {@code sipcrypt-db-probe} thread, whose queue holds at most one task
 * (the next probe).
 * Threading: thread-safe; never blocks (the probe blocks its own thread only).
 */
public final class DatabaseBreaker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DatabaseBreaker.class);

    /** The operations refusals are counted by: location service calls and credential lookups. */
    public static final List<String> OPERATIONS = List.of("register", "lookup", "purge", "credentials");

    /** Checks that the database answers; throws when it does not. Blocks for at most its own timeout. */
    @FunctionalInterface
    public interface Probe {
        void check() throws SQLException;
    }

    private final String name;
    private final Probe probe;
    private final long probeIntervalNanos;
    private final LongSupplier nanoTime;
    private final ScheduledThreadPoolExecutor prober;
    private final AtomicBoolean open = new AtomicBoolean();
    private volatile long openedAtNanos;
    /** When the breaker last closed; operations begun before it report the old outage. */
    private volatile long closedAtNanos;
    private volatile boolean stopped;
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong reclosed = new AtomicLong();
    private final AtomicLong probesFailed = new AtomicLong();
    private final Map<String, LongAdder> refused;

    /**
     * @param name          what the database is called in log lines (its masked URL)
     * @param probe         the check run while the breaker is open
     * @param probeInterval time between the end of one probe and the start of the next
     * @param nanoTime      the clock operations are timed with ({@code System::nanoTime})
     */
    public DatabaseBreaker(String name, Probe probe, Duration probeInterval, LongSupplier nanoTime) {
        this.name = Objects.requireNonNull(name, "name");
        this.probe = Objects.requireNonNull(probe, "probe");
        if (probeInterval.isNegative() || probeInterval.isZero()) {
            throw new IllegalArgumentException("probeInterval must be positive: " + probeInterval);
        }
        this.probeIntervalNanos = probeInterval.toNanos();
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        this.closedAtNanos = nanoTime.getAsLong();
        this.prober = NamedThreads.named("sipcrypt-db-probe").scheduler();
        this.refused = OPERATIONS.stream().collect(Collectors.toUnmodifiableMap(op -> op, op -> new LongAdder()));
    }

    /** Whether the database is known to be down. */
    public boolean isOpen() {
        return open.get();
    }

    /**
     * The exception to fail {@code operation} with at once while the breaker is open (counted), or
     * {@code null} when the operation may go to the database.
     *
     * @param operation one of {@link #OPERATIONS}
     */
    public DatabaseUnavailableException refusal(String operation) {
        if (!open.get()) {
            return null;
        }
        LongAdder n = refused.get(operation);
        if (n == null) {
            throw new IllegalArgumentException("unknown operation " + operation + " (expected one of " + OPERATIONS + ")");
        }
        n.increment();
        return new DatabaseUnavailableException(name + " is unreachable; " + operation + " refused until it is back");
    }

    /** The clock reading to pass to {@link #failed} for an operation starting now. */
    public long now() {
        return nanoTime.getAsLong();
    }

    /**
     * Reports a failed operation that began at {@code startedNanos} ({@link #now()}); opens the
     * breaker when the failure says the database cannot be reached.
     */
    public void failed(Throwable failure, long startedNanos) {
        if (!isOutage(failure) || startedNanos - closedAtNanos < 0 || stopped) {
            return;
        }
        if (open.compareAndSet(false, true)) {
            openedAtNanos = nanoTime.getAsLong();
            opened.incrementAndGet();
            log.warn("database {} unreachable ({}): requests needing it get 503 until it answers again,"
                    + " checked every {} ms", name, oneLine(failure), TimeUnit.NANOSECONDS.toMillis(probeIntervalNanos));
            schedule();
        }
    }

    /** Whether a failure means the database cannot be reached (as against a statement's own error). */
    static boolean isOutage(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 20; t = t.getCause(), depth++) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException || t instanceof DatabaseUnavailableException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
        }
        return false;
    }

    private void schedule() {
        if (stopped) {
            return;
        }
        try {
            prober.schedule(this::probeOnce, probeIntervalNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // stopped concurrently: nobody needs the answer any more
            log.debug("database {} probe not scheduled: the breaker is stopped", name);
        }
    }

    private void probeOnce() {
        try {
            probe.check();
        } catch (SQLException | RuntimeException e) {
            probesFailed.incrementAndGet();
            log.debug("database {} still unreachable: {}", name, oneLine(e));
            schedule();
            return;
        }
        closedAtNanos = nanoTime.getAsLong();
        if (open.compareAndSet(true, false)) {
            reclosed.incrementAndGet();
            log.info("database {} answers again after {} ms; requests go to it again", name,
                    TimeUnit.NANOSECONDS.toMillis(closedAtNanos - openedAtNanos));
        }
    }

    /** Times the breaker opened ({@code to=open}) or closed again ({@code to=closed}). */
    public long transitions(boolean toOpen) {
        return toOpen ? opened.get() : reclosed.get();
    }

    /** Operations of one kind refused while the breaker was open. */
    public long refused(String operation) {
        LongAdder n = refused.get(operation);
        if (n == null) {
            throw new IllegalArgumentException("unknown operation " + operation + " (expected one of " + OPERATIONS + ")");
        }
        return n.sum();
    }

    /** Probes that found the database still unreachable. */
    public long probesFailed() {
        return probesFailed.get();
    }

    private static String oneLine(Throwable t) {
        String s = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
        return s.replace('\n', ' ').replace('\r', ' ');
    }

    /** Stops probing; the breaker then stays as it is. Idempotent. */
    @Override
    public void close() {
        stopped = true;
        prober.shutdownNow();
    }

    @Override
    public String toString() {
        return "DatabaseBreaker[" + name + (open.get() ? ", open]" : ", closed]");
    }
}
