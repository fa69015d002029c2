package org.sipcrypt.server.transport;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The bounds a stream transport (TCP, TLS) applies against connection floods: connections per
 * source address, time to the first complete message, time for each message once begun, and bytes
 * held in incomplete messages over all connections.
 * Threading: immutable (the exemption test must be thread-safe).
 *
 * @param maxConnectionsPerSource most inbound connections from one IP address
 * @param exemptSources           sources not held to {@code maxConnectionsPerSource}
 * @param firstMessageTimeout     an inbound connection must complete its first SIP message within this
 * @param messageTimeout          a message must be complete this long after its first byte
 * @param maxPartialBytes         most bytes in incomplete messages over all connections
 */
public record StreamLimits(int maxConnectionsPerSource, Predicate<InetAddress> exemptSources,
                           Duration firstMessageTimeout, Duration messageTimeout, long maxPartialBytes) {

    public StreamLimits {
        Objects.requireNonNull(exemptSources, "exemptSources");
        Objects.requireNonNull(firstMessageTimeout, "firstMessageTimeout");
        Objects.requireNonNull(messageTimeout, "messageTimeout");
        if (maxConnectionsPerSource < 1) {
            throw new IllegalArgumentException("maxConnectionsPerSource below 1: " + maxConnectionsPerSource);
        }
        if (firstMessageTimeout.isZero() || firstMessageTimeout.isNegative()
                || messageTimeout.isZero() || messageTimeout.isNegative()) {
            throw new IllegalArgumentException("timeouts must be positive: " + firstMessageTimeout + ", " + messageTimeout);
        }
        if (maxPartialBytes < 1) {
            throw new IllegalArgumentException("maxPartialBytes below 1: " + maxPartialBytes);
        }
    }
}
