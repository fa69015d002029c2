package org.sipcrypt.server.transport;

/**
 * How outgoing connections to one target are used: one long-lived connection shared by every call
 * ({@code persistent}), or a new connection for each INVITE dialog, closed when the dialog ends
 * ({@code per-call}). The two patterns of the TLS-cost literature's deployments.
 * Threading: immutable.
 */
public enum ConnectionPattern implements ConfigNamed {
    PERSISTENT,
    PER_CALL;



    /**
     * Parses {@code persistent} or {@code per-call}.
     *
     * @throws IllegalArgumentException naming the value when it is neither
     */
    public static ConnectionPattern parse(String name) {
        return ConfigNamed.parse(ConnectionPattern.class, name, "connection pattern");
    }
}
