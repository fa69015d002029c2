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
    static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(250);
    static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(60);
    /** Least and most {@code db.probeInterval}. */
    static final Duration MIN_PROBE_INTERVAL = Duration.ofMillis(10);
    static final Duration MAX_PROBE_INTERVAL = Duration.ofSeconds(60);

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

    /** A duration setting read from text and checked against its range; the message names the key and the value. */
    static Duration duration(String key, String text, Duration min, Duration max) throws ConfigException {
        Duration d = ConfigValues.duration(key, text, false);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new ConfigException(key + ": \"" + text.trim() + "\" is out of range (expected "
                    + ConfigValues.format(min) + " to " + ConfigValues.format(max) + ")");
        }
        return d;
    }
}
