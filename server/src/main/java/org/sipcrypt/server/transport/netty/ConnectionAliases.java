package org.sipcrypt.server.transport.netty;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.cert.X509Certificate;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.sipcrypt.server.tls.PeerNames;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.Transport;

/**
 * The RFC 5923 aliases of one TLS listening point: a peer that opened a TLS connection and puts
 * {@code alias} in the top Via of its requests asks that what this server sends to the Via's
 * sent-by (host and port, over TLS) go over that connection instead of a new one. An alias is taken
 * only when the peer presented a certificate in the connection's handshake, that certificate was
 * checked against {@code tls.trust}, and it names the sent-by host by RFC 5922's rules
 * ({@link PeerNames}: an iPAddress or dNSName entry) as RFC 5923 §5 asks; any other offer is
 * ignored. A connection holds at most one alias (a newer offer replaces its older one), so the
 * table never holds more entries than there are open connections ({@code tcp.maxConnections}); an
 * alias goes when its connection closes, or when another verified connection offers the same
 * sent-by.
 * Threading: thread-safe; never waits beyond a short lock per connection (offers are checked on
 * SIP worker lanes, lookups made where the stack sends, removals on event loops).
 */
final class ConnectionAliases {

    /** What became of an alias offered, and the tag of {@code sip.aliases{result}}. */
    enum Result {
        /** Recorded: requests to the sent-by go over the connection while it is open. */
        ACCEPTED,
        /** Offered over UDP or TCP: only a TLS connection can be reused for a sent-by (RFC 5923 §5). */
        NOT_TLS,
        /** The peer presented no certificate (or {@code tls.clientAuth} is {@code none} and none was asked). */
        NO_CERTIFICATE,
        /** Certificates are not checked against {@code tls.trust} ({@code tls.trust} unset, or {@code tls.verifyPeers} off). */
        UNVERIFIED,
        /** The certificate does not name the sent-by host. */
        NAME_MISMATCH;

        /** The metric tag. */
        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Map<String, NettyTcpMessageChannel> byTarget = new ConcurrentHashMap<>();

    /**
     * Whether an alias for {@code sentByHost} may be taken over a connection of {@code over}
     * whose peer presented {@code chain}. Pure: no I/O, no name lookup.
     *
     * @param checkedAgainstTrust whether the connection's TLS stage checked the chain against
     *                            {@code tls.trust} ({@link org.sipcrypt.server.transport.netty.tls.TlsStage#checksPeersAgainstTrust})
     */
    static Result check(Transport over, boolean checkedAgainstTrust, X509Certificate[] chain, String sentByHost) {
        if (over != Transport.TLS) {
            return Result.NOT_TLS;
        }
        if (chain == null || chain.length == 0) {
            return Result.NO_CERTIFICATE;
        }
        if (!checkedAgainstTrust) {
            return Result.UNVERIFIED;
        }
        return PeerNames.matches(chain[0], sentByHost) ? Result.ACCEPTED : Result.NAME_MISMATCH;
    }

    /**
     * The key of a sent-by or a target: an IP literal in SIP's textual form ({@link AddressText},
     * IPv6 in brackets), a name in lower case, then {@code :port}; null without a host or a port.
     */
    static String key(String host, int port) {
        if (host == null || host.isEmpty() || port <= 0 || port > 65535) {
            return null;
        }
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.indexOf(':') >= 0) {
            try {
                // a literal with a colon: parsed without any name lookup
                return key(InetAddress.getByName(h), port);
            } catch (UnknownHostException | SecurityException e) {
                return null;
            }
        }
        return h.toLowerCase(Locale.ROOT) + ':' + port;
    }

    /** The key of an address a message is sent to. */
    static String key(InetSocketAddress target) {
        return target.getAddress() == null ? key(target.getHostString(), target.getPort())
                : key(target.getAddress(), target.getPort());
    }

    private static String key(InetAddress address, int port) {
        String text = AddressText.of(address);
        return (address instanceof java.net.Inet6Address ? '[' + text + ']' : text) + ':' + port;
    }

    /**
     * Records {@code key} as an alias of {@code connection}, replacing the connection's earlier
     * alias and any other connection's alias for the same key. A connection that has closed
     * meanwhile keeps none.
     */
    void put(String key, NettyTcpMessageChannel connection) {
        // per connection, so that two offers on two lanes leave exactly one alias to remove on close
        synchronized (connection) {
            String previous = connection.alias(key);
            if (previous != null && !previous.equals(key)) {
                byTarget.remove(previous, connection);
            }
            byTarget.put(key, connection);
            if (!connection.isOpen()) {
                // closed while the offer was checked: its close may have run before the put
                byTarget.remove(key, connection);
                connection.alias(null);
            }
        }
    }

    /** The open connection holding {@code key} as its alias, or null. */
    /** Whether no alias is held: then a send need not build the keys {@link #find} looks up. */
    boolean isEmpty() {
        return byTarget.isEmpty();
    }

    NettyTcpMessageChannel find(String key) {
        if (key == null || byTarget.isEmpty()) {
            return null;
        }
        NettyTcpMessageChannel c = byTarget.get(key);
        return c != null && c.isOpen() ? c : null;
    }

    /** Forgets the alias of a connection that has closed. */
    void closed(NettyTcpMessageChannel connection) {
        synchronized (connection) {
            String key = connection.alias(null);
            if (key != null) {
                byTarget.remove(key, connection);
            }
        }
    }
}
