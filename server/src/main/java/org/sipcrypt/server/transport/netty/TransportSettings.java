package org.sipcrypt.server.transport.netty;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.StreamLimits;
import org.sipcrypt.server.transport.WebSocketLimits;
import org.sipcrypt.server.transport.netty.tls.TlsStage;

/**
 * The settings the Netty transport runs with, taken from the server configuration.
 * Threading: immutable.
 *
 * @param ioThreads        event-loop threads; 0 means twice the number of cores
 * @param maxMessageBytes  largest SIP message accepted on any transport
 * @param idleTimeout      a TCP connection without traffic for this long is closed
 * @param maxConnections   cap on open TCP connections (inbound and outbound)
 * @param connectTimeout   bound on an outgoing TCP connect
 * @param connectFailureHold how long an address a connect to it failed is not dialled again; zero
 *                         dials every time
 * @param policy           connection pattern per outgoing target
 * @param tls              TLS contexts of the tls listener and outgoing TLS; null without TLS
 * @param peerTls          TLS contexts for outgoing connections to particular peers, overriding {@code tls}
 * @param limits           bounds against connection floods: per source, per message, over all partial messages
 * @param fastPath         whether received messages are first read from their bytes (kept transactions,
 *                         early answers and relays); false sends every one to the stack's parse
 * @param webSocket        the ws and wss listeners' origins, message size and keep-alive pings
 */
public record TransportSettings(int ioThreads, int maxMessageBytes, Duration idleTimeout, int maxConnections,
                                Duration connectTimeout, Duration connectFailureHold, ConnectionPolicy policy, TlsStage tls,
                                Map<InetSocketAddress, TlsStage> peerTls, StreamLimits limits,
                                boolean fastPath, WebSocketLimits webSocket) {

    public TransportSettings {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(connectFailureHold, "connectFailureHold");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(webSocket, "webSocket");
        peerTls = Map.copyOf(Objects.requireNonNull(peerTls, "peerTls"));
        if (ioThreads < 0) {
            throw new IllegalArgumentException("ioThreads is negative: " + ioThreads);
        }
        if (maxMessageBytes < 1024) {
            throw new IllegalArgumentException("maxMessageBytes below 1024: " + maxMessageBytes);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections below 1: " + maxConnections);
        }
    }

    /** The TLS stage for a connection to {@code peer}: its own when configured, else the shared one. */
    public TlsStage tlsFor(InetSocketAddress peer) {
        return peerTls.getOrDefault(peer, tls);
    }
}
