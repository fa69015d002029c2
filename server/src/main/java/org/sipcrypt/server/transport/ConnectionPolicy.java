package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;

/**
 * Which connection pattern outgoing connections to each target use: a pattern per target
 * (from static routes) and a default for every other target.
 * Threading: immutable.
 *
 * @param defaultPattern pattern for targets without an entry
 * @param byTarget       pattern per target socket address
 */
public record ConnectionPolicy(ConnectionPattern defaultPattern, Map<InetSocketAddress, ConnectionPattern> byTarget) {

    public ConnectionPolicy {
        Objects.requireNonNull(defaultPattern, "defaultPattern");
        byTarget = Map.copyOf(Objects.requireNonNull(byTarget, "byTarget"));
    }

    /** The pattern for connections to this target. */
    public ConnectionPattern patternFor(InetSocketAddress target) {
        return byTarget.getOrDefault(target, defaultPattern);
    }
}
