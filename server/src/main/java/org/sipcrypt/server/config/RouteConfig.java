package org.sipcrypt.server.config;

import java.util.Locale;
import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * A static route to a next-hop proxy: requests whose Request-URI host is {@code domain} (or any
 * domain, for the default route, whose domain is {@code null}) are forwarded to
 * {@code host:port} over {@code transport}, using the given connection pattern for TCP, or to the
 * destination set {@code set} (then host, transport and connection are null and port 0).
 * Written {@code example.com=10.0.0.2:5060;transport=tcp;connection=per-call}, or
 * {@code example.com=set:gw} for a set.
 * Threading: immutable.
 *
 * @param set the destination set ({@code destination}) the route sends to, or null for a host
 */
public record RouteConfig(String domain, String host, int port, Transport transport,
                          ConnectionPattern connection, String set) {

    /** The prefix of a route's target that names a destination set: {@code set:gw}. */
    public static final String SET_PREFIX = "set:";

    public RouteConfig {
        if (set != null) {
            if (host != null || transport != null || connection != null || port != 0) {
                throw new IllegalArgumentException("a route to set " + set + " names no host, port, transport or connection");
            }
            if (!DestinationConfig.SET_NAME.matcher(set).matches()) {
                throw new IllegalArgumentException("\"" + set + "\" is not a set name (expected 1 to 32 of a-z 0-9 . _ -,"
                        + " starting with a letter or digit)");
            }
        } else {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(connection, "connection");
            if (port <= 0 || port > 65535) {
                throw new IllegalArgumentException("route port " + port + " is out of range 1-65535");
            }
        }
        domain = domain == null ? null : domain.toLowerCase(Locale.ROOT);
    }

    /** A route to a host. */
    public RouteConfig(String domain, String host, int port, Transport transport, ConnectionPattern connection) {
        this(domain, host, port, transport, connection, null);
    }

    /** A route for {@code domain} (null for the default route) to the destination set {@code set}. */
    public static RouteConfig toSet(String domain, String set) {
        return new RouteConfig(domain, null, 0, null, null, set);
    }

    /** Whether it sends to a destination set rather than a host. */
    public boolean toSet() {
        return set != null;
    }

    /**
     * Parses {@code DOMAIN=HOST[:PORT][;transport=udp|tcp|tls][;connection=persistent|per-call]}, or
     * {@code DOMAIN=set:NAME} for a destination set.
     * The port defaults to 5060, the transport to udp, the connection pattern to
     * {@code defaultConnection}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static RouteConfig parseDomainRoute(String text, ConnectionPattern defaultConnection) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException(
                    "\"" + text + "\" is not DOMAIN=HOST:PORT[;transport=udp|tcp|tls] (e.g. example.com=10.0.0.2:5060)");
        }
        return parseTarget(text.substring(0, eq).trim(), text.substring(eq + 1).trim(), defaultConnection);
    }

    /**
     * Parses a default route {@code HOST[:PORT][;transport=..][;connection=..]}, or {@code set:NAME}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static RouteConfig parseDefaultRoute(String text, ConnectionPattern defaultConnection) {
        return parseTarget(null, text.trim(), defaultConnection);
    }

    private static RouteConfig parseTarget(String domain, String target, ConnectionPattern defaultConnection) {
        if (target.regionMatches(true, 0, SET_PREFIX, 0, SET_PREFIX.length())) {
            String set = target.substring(SET_PREFIX.length()).trim().toLowerCase(Locale.ROOT);
            if (set.indexOf(';') >= 0) {
                throw new IllegalArgumentException("\"" + target + "\": a route to a set takes no parameters"
                        + " (the set's destinations have them)");
            }
            return toSet(domain, set);
        }
        String[] parts = target.split(";");
        HostPort hp = HostPort.parse(parts[0].trim(), 5060);
        Transport transport = Transport.UDP;
        ConnectionPattern connection = defaultConnection;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            String name = eq < 0 ? p : p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = eq < 0 ? "" : p.substring(eq + 1).trim();
            switch (name) {
                case "transport" -> transport = Transport.parse(value);
                case "connection" -> connection = ConnectionPattern.parse(value);
                default -> throw new IllegalArgumentException(
                        "\"" + target + "\": unknown route parameter \"" + name + "\" (expected transport or connection)");
            }
        }
        return new RouteConfig(domain, hp.host(), hp.port(), transport, connection);
    }

    /** The form it is parsed from. */
    @Override
    public String toString() {
        if (set != null) {
            return domain == null ? SET_PREFIX + set : domain + "=" + SET_PREFIX + set;
        }
        String target = HostPort.format(host, port) + ";transport=" + transport.configName()
                + ";connection=" + connection.configName();
        return domain == null ? target : domain + "=" + target;
    }
}
