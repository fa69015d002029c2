package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How the server notices that its database has gone away and that it is back; keys
 * {@code db.connectTimeout} and {@code db.probeInterval}. A request waits at most
 * {@code connectTimeout} for a pooled connection; when that fails for want of the database, the
 * circuit breaker opens and requests needing the database get 503 at once, without touching the
 * pool, until a probe every {@code probeInterval} finds the database answering again.
 * Threading: immutable.
 *
 * @param connectTimeout longest wait for a database connection (HikariCP {@code connectionTimeout});
 *                       250 ms to 60 s
 * @param probeInterval  how often an open breaker checks whether the database is back; 10 ms to 60 s
 */
public record DbBreakerConfig(Duration connectTimeout, Duration probeInterval) {

    /** The defaults: wait up to 1 s for a connection, probe every 250 ms while the database is down. */
    public static final DbBreakerConfig DEFAULTS = new DbBreakerConfig(Duration.ofSeconds(1), Duration.ofMillis(250));

    public DbBreakerConfig {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(probeInterval, "probeInterval");
        // HikariCP raises anything below 250 ms to 250 ms; refused rather than silently corrected.
        if (connectTimeout.compareTo(Duration.ofMillis(250)) < 0 || connectTimeout.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("db.connectTimeout: " + ConfigValues.format(connectTimeout)
                    + " (expected 250ms to 60s)");
        }
        if (probeInterval.compareTo(Duration.ofMillis(10)) < 0 || probeInterval.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("db.probeInterval: " + ConfigValues.format(probeInterval)
                    + " (expected 10ms to 60s)");
        }
    }
}
