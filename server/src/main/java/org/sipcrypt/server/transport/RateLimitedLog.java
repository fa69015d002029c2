package org.sipcrypt.server.transport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;

/**
 * Logs a warning at most once per reason per minute, so a flood of malformed packets, or of
 * failures of a database that went away, cannot flood the log (STYLE.md, "Bad input"). The one
 * rate-limited logger of the server: transports, the overload guard and the location service use it.
 * Threading: thread-safe; never blocks.
 */
public final class RateLimitedLog {

    private static final long INTERVAL_NANOS = 60_000_000_000L;

    private final Logger log;
    private final ConcurrentMap<String, Long> lastLogged = new ConcurrentHashMap<>();

    public RateLimitedLog(Logger log) {
        this.log = log;
    }

    /** Logs at WARN unless the same reason was logged during the last minute. */
    public void warn(String reason, String format, Object... args) {
        long now = System.nanoTime();
        Long last = lastLogged.get(reason);
        if (last != null && now - last < INTERVAL_NANOS) {
            return;
        }
        if (last == null ? lastLogged.putIfAbsent(reason, now) == null : lastLogged.replace(reason, last, now)) {
            log.warn(format, args);
        }
    }
}
