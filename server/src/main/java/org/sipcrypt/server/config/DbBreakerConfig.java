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

    /** Least and most {@code db.connectTimeout}; HikariCP raises anything below 250 ms to 250 ms. */
    private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(250);
    private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(60);
    /** Least and most {@code db.probeInterval}. */
    private static final Duration MIN_PROBE_INTERVAL = Duration.ofMillis(10);
    private static final Duration MAX_PROBE_INTERVAL = Duration.ofSeconds(60);

    /**
     * The defaults: wait up to 1 s for a connection, probe every 250 ms while the database is down.
     * Declared after the bounds it is checked against.
     */
    public static final DbBreakerConfig DEFAULTS = new DbBreakerConfig(Duration.ofSeconds(1), Duration.ofMillis(250));

    public DbBreakerConfig {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(probeInterval, "probeInterval");
        // refused rather than silently corrected
        check("db.connectTimeout", connectTimeout, MIN_CONNECT_TIMEOUT, MAX_CONNECT_TIMEOUT);
        check("db.probeInterval", probeInterval, MIN_PROBE_INTERVAL, MAX_PROBE_INTERVAL);
    }

    private static void check(String key, Duration d, Duration min, Duration max) {
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(key + ": \"" + ConfigValues.format(d) + "\" is out of range (expected "
                    + ConfigValues.format(min) + " to " + ConfigValues.format(max) + ")");
        }
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().connectTimeout(connectTimeout).probeInterval(probeInterval);
    }

    /**
     * Named settings for a {@link DbBreakerConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private Duration connectTimeout = DEFAULTS.connectTimeout;
        private Duration probeInterval = DEFAULTS.probeInterval;

        public Builder connectTimeout(Duration v) { connectTimeout = v; return this; }
        public Builder probeInterval(Duration v) { probeInterval = v; return this; }

        public DbBreakerConfig build() {
            return new DbBreakerConfig(connectTimeout, probeInterval);
        }
    }
}
