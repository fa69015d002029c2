package org.sipcrypt.server.transport;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Objects;

/**
 * One bound listener as the SIP layer sees it: its transport, the socket address it is bound to (a
 * wildcard address for one listening on every interface; the actual port when 0 was asked), and the
 * host and port peers reach it at, which the Vias and Record-Routes it sends carry (RFC 3261
 * §18.2.1, §16.6 step 4): the advertised ones, else the bound address.
 * Threading: immutable.
 *
 * @param sentByHost a host name or IP literal (IPv6 without brackets), lower case
 */
public record Listener(Transport transport, InetSocketAddress bound, String sentByHost, int sentByPort) {

    public Listener {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(bound, "bound");
        Objects.requireNonNull(sentByHost, "sentByHost");
        sentByHost = sentByHost.toLowerCase(Locale.ROOT);
        if (sentByPort < 1 || sentByPort > 65535) {
            throw new IllegalArgumentException("sentByPort " + sentByPort + " is out of range 1-65535");
        }
        if (bound.getAddress() == null) {
            throw new IllegalArgumentException("bound " + bound + " is not resolved");
        }
    }

    /** Whether it listens on every interface. */
    public boolean wildcard() {
        return bound.getAddress().isAnyLocalAddress();
    }

    /** Whether it is bound to an IPv6 address (a {@code ::} listener takes IPv4 peers too). */
    public boolean ipv6() {
        return bound.getAddress() instanceof Inet6Address;
    }

    /** Whether {@code destination} is of this listener's address family. */
    public boolean sameFamily(InetAddress destination) {
        return (destination instanceof Inet6Address) == ipv6();
    }

    /** The sent-by of its Vias, {@code host:port}, an IPv6 literal in brackets. */
    public String sentBy() {
        return (sentByHost.indexOf(':') >= 0 ? "[" + sentByHost + "]" : sentByHost) + ":" + sentByPort;
    }

    /**
     * Whether a Via's or URI's host and port ({@code -1} for none: the transport's default) name
     * this listener as peers reach it: the same sent-by port, and the same host name in any case or
     * the same IP address however it is written. Never looks a name up.
     */
    public boolean isSentBy(String host, int port) {
        if ((port < 0 ? transport.defaultPort() : port) != sentByPort || host == null) {
            return false;
        }
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.indexOf(':') < 0 || sentByHost.indexOf(':') < 0) {
            return h.equalsIgnoreCase(sentByHost);
        }
        try {
            // two literals: parsed without any name lookup
            return InetAddress.getByName(h).equals(InetAddress.getByName(sentByHost));
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** {@code udp 0.0.0.0:5060 as sip.example.com:5060}, or {@code udp 127.0.0.1:5060} when it advertises its socket. */
    @Override
    public String toString() {
        String socket = transport.configName() + " " + AddressText.of(bound.getAddress()) + ":" + bound.getPort();
        boolean plain = sentByPort == bound.getPort() && AddressText.sameHost(sentByHost, bound.getAddress());
        return plain ? socket : socket + " as " + sentBy();
    }
}
