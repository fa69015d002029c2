package org.sipcrypt.server.location;

import java.util.Objects;

/**
 * One digest subscriber: a user name in a realm with HA1 = H(username:realm:password) for each
 * algorithm (RFC 7616 §3.4.2). The password itself is never stored.
 * Threading: immutable.
 *
 * @param username  the digest user name, at most {@link SubscriberStore#MAX_NAME_LENGTH} characters
 * @param realm     the realm the HA1 values were computed for
 * @param ha1Md5    32 lower-case hex digits
 * @param ha1Sha256 64 lower-case hex digits
 * @param enabled   a disabled subscriber is refused like an unknown one
 */
public record Subscriber(String username, String realm, String ha1Md5, String ha1Sha256, boolean enabled) {

    public Subscriber {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(realm, "realm");
        Objects.requireNonNull(ha1Md5, "ha1Md5");
        Objects.requireNonNull(ha1Sha256, "ha1Sha256");
        if (username.isEmpty() || username.length() > SubscriberStore.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("username must be 1 to " + SubscriberStore.MAX_NAME_LENGTH
                    + " characters: \"" + username + "\"");
        }
        if (realm.isEmpty() || realm.length() > SubscriberStore.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("realm must be 1 to " + SubscriberStore.MAX_NAME_LENGTH
                    + " characters: \"" + realm + "\"");
        }
        if (!ha1Md5.matches("[0-9a-f]{32}") || !ha1Sha256.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("HA1 values must be lower-case hex of 32 (MD5) and 64 (SHA-256) digits");
        }
    }

    /** Never shows the HA1 values. */
    @Override
    public String toString() {
        return "Subscriber[" + username + "@" + realm + (enabled ? "" : ", disabled") + "]";
    }
}
