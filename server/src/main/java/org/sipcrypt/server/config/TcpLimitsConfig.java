package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.server.transport.StreamLimits;

/**
 * Bounds that keep TCP and TLS connection floods from locking clients out; keys
 * {@code tcp.maxConnectionsPerSource}, {@code tcp.firstMessageTimeout}, {@code tcp.messageTimeout}
 * and {@code tcp.maxPartialBytes}. The global cap ({@code tcp.maxConnections}) and the idle timeout
 * ({@code tcp.idleTimeout}) stay where they were.
 * Threading: immutable.
 *
 * @param maxConnectionsPerSource most inbound connections from one IP address; further ones are
 *                                closed on accept, before any TLS work. {@code auth.trustedPeers} are exempt
 * @param firstMessageTimeout     an inbound connection that has not sent one complete SIP message this
 *                                long after it opened (after its TLS handshake, for TLS) is closed
 * @param messageTimeout          once the first byte of a message has arrived, the whole message must
 *                                arrive within this; otherwise the connection is closed (slowloris)
 * @param maxPartialBytes         most bytes held in incomplete messages over all connections together;
 *                                beyond it the connections with the oldest incomplete messages are closed
 */
public record TcpLimitsConfig(int maxConnectionsPerSource, Duration firstMessageTimeout, Duration messageTimeout,
                              int maxPartialBytes) {

    public TcpLimitsConfig {
        Objects.requireNonNull(firstMessageTimeout, "firstMessageTimeout");
        Objects.requireNonNull(messageTimeout, "messageTimeout");
        if (maxConnectionsPerSource < 1) {
            throw new IllegalArgumentException("tcp.maxConnectionsPerSource: " + maxConnectionsPerSource
                    + " (expected at least 1)");
        }
        if (firstMessageTimeout.isZero() || firstMessageTimeout.isNegative()) {
            throw new IllegalArgumentException("tcp.firstMessageTimeout: " + firstMessageTimeout + " (expected above 0)");
        }
        if (messageTimeout.isZero() || messageTimeout.isNegative()) {
            throw new IllegalArgumentException("tcp.messageTimeout: " + messageTimeout + " (expected above 0)");
        }
        if (maxPartialBytes < 1024) {
            throw new IllegalArgumentException("tcp.maxPartialBytes: " + maxPartialBytes + " (expected at least 1024)");
        }
    }

    /**
     * 1,000 connections per source (a tenth of the default global cap: a large NAT'd office fits,
     * one client cannot take the rest), 10 s to the first message and for each message, 64 MiB of
     * incomplete messages.
     */
    public static TcpLimitsConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().maxConnectionsPerSource(maxConnectionsPerSource).firstMessageTimeout(firstMessageTimeout)
                .messageTimeout(messageTimeout).maxPartialBytes(maxPartialBytes);
    }

    /**
     * Named settings for a {@link TcpLimitsConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private int maxConnectionsPerSource = 1_000;
        private Duration firstMessageTimeout = Duration.ofSeconds(10);
        private Duration messageTimeout = Duration.ofSeconds(10);
        private int maxPartialBytes = 64 * 1024 * 1024;

        public Builder maxConnectionsPerSource(int v) { maxConnectionsPerSource = v; return this; }
        public Builder firstMessageTimeout(Duration v) { firstMessageTimeout = v; return this; }
        public Builder messageTimeout(Duration v) { messageTimeout = v; return this; }
        public Builder maxPartialBytes(int v) { maxPartialBytes = v; return this; }

        public TcpLimitsConfig build() {
            return new TcpLimitsConfig(maxConnectionsPerSource, firstMessageTimeout, messageTimeout, maxPartialBytes);
        }
    }

    /** The limits as the transport applies them, with {@code exempt} not counted per source. */
    public StreamLimits streamLimits(List<AddressBlock> exempt) {
        List<AddressBlock> blocks = List.copyOf(exempt);
        return new StreamLimits(maxConnectionsPerSource, a -> blocks.stream().anyMatch(b -> b.contains(a)),
                firstMessageTimeout, messageTimeout, maxPartialBytes);
    }
}
