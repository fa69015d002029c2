package org.sipcrypt.server.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A UTC clock that stands still until the test moves it: injected into the server (nonce ages,
 * binding expiry) or a unit under test, so a test fires a lifetime by hand instead of sleeping.
 * Threading: thread-safe; the server's threads read it while the test moves it.
 */
public final class ManualClock extends Clock {

    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
    }

    /** A clock standing at the current wall-clock time. */
    public static ManualClock atSystemTime() {
        return new ManualClock(Instant.now());
    }

    /** Moves the clock forward by {@code d}. */
    public synchronized void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("a clock only moves forward: " + d);
        }
        now = now.plus(d);
    }

    /** Sets the clock to {@code instant}. */
    public void set(Instant instant) {
        now = Objects.requireNonNull(instant, "instant");
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
