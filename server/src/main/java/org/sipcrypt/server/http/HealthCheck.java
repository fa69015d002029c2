package org.sipcrypt.server.http;

import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers {@code /health} without blocking its caller: the database is checked on the one
 * {@code sipcrypt-health} thread (a pooled connection and {@link Connection#isValid}); a check that
 * fails, or takes longer than {@code http.healthTimeout}, makes the server not ready. The check
 * itself ends within the pool's connection timeout plus the validation timeout. Requests arriving
 * while a check runs share it, so a flood of {@code /health} requests costs one check at a time.
 * Threading: thread-safe; {@link #check} never blocks; futures complete on {@code sipcrypt-health}.
 */
public final class HealthCheck implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthCheck.class);

    private final Supplier<Map<String, String>> listeners;
    private final BooleanSupplier listening;
    private final BooleanSupplier draining;
    private final DataSource dataSource;
    private final Duration timeout;
    private final ThreadPoolExecutor executor;
    private final AtomicReference<CompletableFuture<Health>> inFlight = new AtomicReference<>();

    /**
     * @param listeners  the listeners by transport name, with their addresses
     * @param listening  whether every listener is bound
     * @param draining   whether the server is shutting down
     * @param dataSource the database pool to check
     * @param timeout    how long the database check may take ({@code http.healthTimeout})
     */
    public HealthCheck(Supplier<Map<String, String>> listeners, BooleanSupplier listening, BooleanSupplier draining,
                       DataSource dataSource, Duration timeout) {
        this.listeners = Objects.requireNonNull(listeners, "listeners");
        this.listening = Objects.requireNonNull(listening, "listening");
        this.draining = Objects.requireNonNull(draining, "draining");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        // one check at a time; requests arriving meanwhile share it
        this.executor = NamedThreads.named("sipcrypt-health").boundedPool(1, 1);
    }

    /** The server's health now; the database part from a check started or joined by this call. */
    public CompletableFuture<Health> check() {
        while (true) {
            CompletableFuture<Health> running = inFlight.get();
            if (running != null && !running.isDone()) {
                return running;
            }
            CompletableFuture<Health> mine = new CompletableFuture<>();
            if (inFlight.compareAndSet(running, mine)) {
                start(mine);
                return mine;
            }
        }
    }

    private void start(CompletableFuture<Health> result) {
        try {
            executor.execute(() -> {
                long started = System.nanoTime();
                String failure = ping();
                long tookNanos = System.nanoTime() - started;
                if (failure.isEmpty() && tookNanos > timeout.toNanos()) {
                    finish(result, Health.Database.TIMEOUT, "answered after " + tookNanos / 1_000_000 + " ms");
                } else {
                    finish(result, failure.isEmpty() ? Health.Database.UP : Health.Database.DOWN, failure);
                }
            });
        } catch (RejectedExecutionException e) {
            finish(result, Health.Database.DOWN, "health check stopped");
        }
    }

    private void finish(CompletableFuture<Health> result, Health.Database state, String detail) {
        result.complete(new Health(listeners.get(), listening.getAsBoolean(), draining.getAsBoolean(), state, detail));
    }

    /**
     * Empty when a pooled connection is valid; otherwise what went wrong. Blocks on the health thread
     * only, and for a bounded time: the pool's connection timeout, then {@code isValid}'s.
     */
    private String ping() {
        int seconds = (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(seconds) ? "" : "connection not valid";
        } catch (Exception e) {
            log.debug("health: database check failed: {}", e.toString());
            return e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
        }
    }

    /** Stops the health thread, interrupting a check that still runs, and waits up to 5 s for it. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("health: the database check did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
