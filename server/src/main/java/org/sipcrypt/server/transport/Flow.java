package org.sipcrypt.server.transport;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Objects;

/**
 * A flow (RFC 5626 §3.3): the transport, this server's listening socket and the peer's address a
 * message came over, and for TCP and TLS the one connection it came on. A request for a phone that
 * registered from behind a NAT, or over a connection it keeps open, must go back over its flow:
 * to the address its packets come from, on the very connection for TCP and TLS (a new dial to a
 * flow is always wrong: the peer's port is a NAT mapping or an ephemeral client port). The
 * {@link #text() text form} is what the location service stores; it is exact, so {@link #parse}
 * reads back only what {@code text} wrote.
 * Threading: immutable.
 *
 * @param transport  UDP, TCP or TLS
 * @param local      this server's listening socket the flow arrived on (its advertised address)
 * @param remote     the peer's address and port, as packets come from it (the NAT's mapping)
 * @param connection for TCP and TLS the number of the connection, unique within one process run;
 *                   0 for UDP
 */
public record Flow(Transport transport, InetSocketAddress local, InetSocketAddress remote, long connection) {

    /** Longest {@link #text()}: two bracketed IPv6 addresses with ports, a 20-digit number and separators. */
    public static final int MAX_TEXT_CHARS = 128;

    public Flow {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(remote, "remote");
        if (local.isUnresolved() || remote.isUnresolved()) {
            throw new IllegalArgumentException("a flow names addresses, not host names: " + local + " " + remote);
        }
        if (transport.reliable() == (connection == 0)) {
            throw new IllegalArgumentException(transport.configName() + " flow with connection " + connection);
        }
    }

    /**
     * Whether a message that came over {@code other} came over this flow: the same transport,
     * listening socket and peer address, and for TCP and TLS the same connection.
     */
    public boolean sameAs(Flow other) {
        return other != null && equals(other);
    }

    /** {@code tls 127.0.0.1:5061 127.0.0.1:40312 42}; {@code udp 127.0.0.1:5060 192.0.2.7:1024 0}. */
    public String text() {
        return transport.configName() + ' ' + hostPort(local) + ' ' + hostPort(remote) + ' ' + connection;
    }

    /**
     * The flow {@link #text()} wrote, or null for any other text (a stored value of another
     * version, or damaged): the caller then treats the binding as having no flow.
     */
    public static Flow parse(String text) {
        if (text == null || text.length() > MAX_TEXT_CHARS) {
            return null;
        }
        // every call to a registered phone reads its binding's flow: a text read before is not read again
        Flow known = PARSED.getIfPresent(text);
        if (known != null) {
            return known;
        }
        Flow f = read(text);
        if (f != null) {
            PARSED.put(text, f);
        }
        return f;
    }

    /** Flows read from their text, by text, the most used kept (a few MB at most); others are read again. */
    private static final Cache<String, Flow> PARSED = Caffeine.newBuilder().maximumSize(10_000).build();

    private static Flow read(String text) {
        String[] parts = text.split(" ", -1);
        if (parts.length != 4) {
            return null;
        }
        try {
            Transport t = Transport.parse(parts[0]);
            InetSocketAddress local = address(parts[1]);
            InetSocketAddress remote = address(parts[2]);
            long connection = Long.parseLong(parts[3]);
            if (local == null || remote == null) {
                return null;
            }
            Flow f = new Flow(t, local, remote, connection);
            return f.text().equals(text) ? f : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** {@code 1.2.3.4:5} or {@code [::1]:5}. */
    static String hostPort(InetSocketAddress a) {
        String host = AddressText.of(a.getAddress());
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ':' + a.getPort();
    }

    /** The address of {@link #hostPort}'s text, an IP literal only (never a name to resolve), or null. */
    private static InetSocketAddress address(String s) {
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            return null;
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
            if (host.isEmpty() || !host.chars().allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
                return null;
            }
        } else if (!host.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9') || host.isEmpty()) {
            return null;
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            return null;
        }
        if (port < 0 || port > 65535) {
            return null;
        }
        try {
            // a literal only: checked above, so no name lookup can happen here
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return text().toLowerCase(Locale.ROOT);
    }

    /** What a message came over: implemented by the transport's message channels. */
    public interface Carrier {
        /** The flow of the messages received on this channel. */
        Flow flow();

        /**
         * The TLS cipher suite negotiated on this channel's connection (its standard name), or null when
         * it is not over TLS or its handshake has not finished.
         */
        default String cipherSuite() {
            return null;
        }
    }
}
