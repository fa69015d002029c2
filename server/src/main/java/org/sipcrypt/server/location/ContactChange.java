package org.sipcrypt.server.location;

import java.time.Duration;
import java.util.Objects;

/**
 * One Contact of a REGISTER after the registrar's rules have run: the binding to add, refresh
 * ({@code expires > 0}) or remove ({@code expires == 0}).
 * Threading: immutable.
 *
 * @param contactKey canonical contact URI (comparison key)
 * @param contact    contact URI as sent
 * @param expires    granted lifetime; zero removes the binding
 * @param q          q value, or {@code -1}
 */
public record ContactChange(String contactKey, String contact, Duration expires, float q) {

    public ContactChange {
        Objects.requireNonNull(contactKey, "contactKey");
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(expires, "expires");
        if (expires.isNegative()) {
            throw new IllegalArgumentException("expires is negative: " + expires);
        }
    }
}
