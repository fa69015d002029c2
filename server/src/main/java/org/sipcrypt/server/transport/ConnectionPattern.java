package org.sipcrypt.server.transport;

/**
 * How outgoing connections to one target are used: one long-lived connection shared by every call
 * ({@code persistent}), or a new connection for each INVITE dialog, closed when the dialog ends
 * ({@code per-call}). The two patterns of the TLS-cost literature's deployments.
 * Threading: immutable.
 */
public enum ConnectionPattern {
    PERSISTENT("persistent"),
    PER_CALL("per-call");

    private final String configName;

    ConnectionPattern(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration and reports. */
    public String configName() {
        return configName;
    }

    /**
     * Parses {@code persistent} or {@code per-call}.
     *
     * @throws IllegalArgumentException naming the value when it is neither
     */
    public static ConnectionPattern parse(String name) {
        for (ConnectionPattern p : values()) {
            if (p.configName.equalsIgnoreCase(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException(
                "unknown connection pattern \"" + name + "\" (expected persistent or per-call)");
    }
}
