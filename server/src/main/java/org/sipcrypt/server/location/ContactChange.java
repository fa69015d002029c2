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
 * @param nat        whether the registrar detected a NAT between the phone and itself for this contact
 * @param instance   the contact's {@code +sip.instance} (RFC 5626 §4.1), or null
 * @param regId      the contact's {@code reg-id} (RFC 5626 §4.2), or 0 for none
 */
public record ContactChange(String contactKey, String contact, Duration expires, float q, boolean nat,
                            String instance, int regId) {

    /** A contact without NAT and without RFC 5626 parameters. */
    public ContactChange(String contactKey, String contact, Duration expires, float q) {
        this(contactKey, contact, expires, q, false, null, 0);
    }

    public ContactChange {
        Objects.requireNonNull(contactKey, "contactKey");
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(expires, "expires");
        if (regId < 0) {
            throw new IllegalArgumentException("reg-id is negative: " + regId);
        }
        if (expires.isNegative()) {
            throw new IllegalArgumentException("expires is negative: " + expires);
        }
    }
}
