package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Identifies a connection for reuse: transport and remote socket address, plus the Call-ID for a
 * connection opened under the {@code per-call} pattern ({@code null} for shared connections).
 * Threading: immutable.
 */
public record PeerKey(Transport transport, InetSocketAddress remote, String callId) {

    public PeerKey {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(remote, "remote");
    }

    /** A key for a connection shared by every call. */
    public static PeerKey shared(Transport transport, InetSocketAddress remote) {
        return new PeerKey(transport, remote, null);
    }

    @Override
    public String toString() {
        String base = transport.configName() + " " + remote.getAddress().getHostAddress() + ":" + remote.getPort();
        return callId == null ? base : base + " call " + callId;
    }
}
