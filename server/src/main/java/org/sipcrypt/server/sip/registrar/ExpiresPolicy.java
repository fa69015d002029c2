package org.sipcrypt.server.sip.registrar;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a registration may last (RFC 3261 §10.3 step 7): requests below the minimum are refused
 * with 423 Interval Too Brief, requests above the maximum are shortened, and a contact that asks
 * for nothing gets the default.
 * Threading: immutable.
 */
public record ExpiresPolicy(Duration min, Duration max, Duration defaultExpires) {

    public ExpiresPolicy {
        Objects.requireNonNull(min, "min");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(defaultExpires, "defaultExpires");
        if (min.compareTo(defaultExpires) > 0 || defaultExpires.compareTo(max) > 0) {
            throw new IllegalArgumentException("expected min <= default <= max: " + min + ", " + defaultExpires + ", " + max);
        }
    }

    /** The outcome for one contact: the seconds granted, or the minimum to demand with 423. */
    public record Grant(long seconds, boolean tooBrief) {
    }

    /**
     * Grants a requested lifetime.
     *
     * @param requestedSeconds the contact's expires parameter, else the Expires header, else -1
     */
    public Grant grant(long requestedSeconds) {
        if (requestedSeconds < 0) {
            return new Grant(defaultExpires.toSeconds(), false);
        }
        if (requestedSeconds == 0) {
            return new Grant(0, false);
        }
        if (requestedSeconds < min.toSeconds()) {
            return new Grant(min.toSeconds(), true);
        }
        return new Grant(Math.min(requestedSeconds, max.toSeconds()), false);
    }
}
