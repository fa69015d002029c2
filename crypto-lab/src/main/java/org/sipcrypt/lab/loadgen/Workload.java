package org.sipcrypt.lab.loadgen;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What one operation of a UAC run does. Every operation's response time runs from the moment it was
 * due to its first final success response; the names are those of configuration and reports.
 * Threading: immutable.
 */
public enum Workload {

    /** INVITE, 200, ACK, the hold, BYE, 200 (RFC 3261 §13, §15); the response time ends at the 200. */
    CALL,
    /** One REGISTER with a new Call-ID and {@code Expires: 3600}, answered 200 (RFC 3261 §10.2). */
    REGISTER,
    /**
     * A REGISTER answered 200, then its refresh: the same Call-ID with CSeq + 1 (RFC 3261 §10.2.4),
     * answered 200; the response time ends at the first 200, the operation at the second.
     */
    REFRESH,
    /** A REGISTER answered 200, then the same Call-ID with CSeq + 1 and {@code Expires: 0} (§10.2.2), answered 200. */
    UNREGISTER,
    /** An INVITE to a user the server does not know: the 404 is the expected answer, ACKed (§17.1.1.3). */
    INVITE_NOT_FOUND,
    /** An INVITE to a registered user of a redirect server: the 302 is the expected answer, ACKed (§8.3, §17.1.1.3). */
    REDIRECT,
    /**
     * An OPTIONS to the target itself ({@code sip:HOST:PORT;transport=T}, no user part), answered 200 by
     * it (RFC 3261 §11): the least a request can cost the server, so that with a connection per
     * operation the TLS handshake is what is measured.
     */
    OPTIONS;

    /** The name in configuration: {@code call}, {@code register}, ..., {@code invite-not-found}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Parses a configuration name.
     *
     * @throws IllegalArgumentException naming the value and the names expected
     */
    public static Workload parse(String name) {
        for (Workload w : values()) {
            if (w.configName().equalsIgnoreCase(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload \"" + name + "\" (expected "
                + Arrays.stream(values()).map(Workload::configName).collect(Collectors.joining(", ")) + ")");
    }

    /** Whether the operation is REGISTER transactions (the others are INVITE transactions). */
    public boolean registers() {
        return this == REGISTER || this == REFRESH || this == UNREGISTER;
    }

    /** The final status that answers the INVITE as expected: 200, 404 or 302; 0 for REGISTER workloads. */
    int expectedInviteStatus() {
        return switch (this) {
            case CALL -> 200;
            case INVITE_NOT_FOUND -> 404;
            case REDIRECT -> 302;
            default -> 0;
        };
    }
}
