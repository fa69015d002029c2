package org.sipcrypt.server.config;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * One destination of a named destination set (a gateway, a media server, a PBX: Kamailio's
 * {@code dispatcher} entries): a next hop {@code host:port} over {@code transport}, with the
 * connection pattern for TCP, a priority (the lowest value is tried first) and a weight (the share
 * of calls among destinations of one priority). Written like a {@code route}, with the set's name
 * where a route has its domain: {@code gw=10.0.0.2:5060;transport=udp;priority=1;weight=50}.
 * Threading: immutable.
 *
 * @param set      the name of the set it belongs to: 1 to 32 of a-z 0-9 . _ -
 * @param priority 0 to 65535; lower first
 * @param weight   1 to 1000; among destinations of one priority, each is first for its share of calls
 */
public record DestinationConfig(String set, String host, int port, Transport transport, ConnectionPattern connection,
                                int priority, int weight) {

    /** What a set's name may be. */
    public static final Pattern SET_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,31}");
    /** The highest priority value (the last tried). */
    public static final int MAX_PRIORITY = 65535;
    /** The largest weight. */
    public static final int MAX_WEIGHT = 1000;

    public DestinationConfig {
        Objects.requireNonNull(set, "set");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(connection, "connection");
        if (!SET_NAME.matcher(set).matches()) {
            throw new IllegalArgumentException("\"" + set + "\" is not a set name (expected 1 to 32 of a-z 0-9 . _ -,"
                    + " starting with a letter or digit)");
        }
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("destination port " + port + " is out of range 1-65535");
        }
        if (priority < 0 || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority " + priority + " (expected 0 to " + MAX_PRIORITY + ")");
        }
        if (weight < 1 || weight > MAX_WEIGHT) {
            throw new IllegalArgumentException("weight " + weight + " (expected 1 to " + MAX_WEIGHT + ")");
        }
    }

    /**
     * Parses {@code SET=HOST[:PORT][;transport=udp|tcp|tls][;connection=persistent|per-call][;priority=N][;weight=N]}.
     * The port defaults to 5060, the transport to udp, the connection pattern to {@code defaultConnection},
     * the priority to 0, the weight to 1.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static DestinationConfig parse(String text, ConnectionPattern defaultConnection) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("\"" + text + "\" is not SET=HOST:PORT[;transport=udp|tcp|tls]"
                    + "[;priority=N][;weight=N] (e.g. gw=10.0.0.2:5060;priority=1)");
        }
        String set = text.substring(0, eq).trim().toLowerCase(Locale.ROOT);
        String target = text.substring(eq + 1).trim();
        String[] parts = target.split(";", -1);
        HostPort hp = HostPort.parse(parts[0].trim(), 5060);
        if (hp.host().isEmpty()) {
            throw new IllegalArgumentException("\"" + text + "\": no host");
        }
        Transport transport = Transport.UDP;
        ConnectionPattern connection = defaultConnection;
        int priority = 0;
        int weight = 1;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int peq = p.indexOf('=');
            String name = peq < 0 ? p : p.substring(0, peq).trim().toLowerCase(Locale.ROOT);
            String value = peq < 0 ? "" : p.substring(peq + 1).trim();
            switch (name) {
                case "transport" -> transport = Transport.parse(value);
                case "connection" -> connection = ConnectionPattern.parse(value);
                case "priority" -> priority = number(text, name, value);
                case "weight" -> weight = number(text, name, value);
                default -> throw new IllegalArgumentException("\"" + text + "\": unknown destination parameter \""
                        + name + "\" (expected transport, connection, priority or weight)");
            }
        }
        if (transport != Transport.UDP && transport != Transport.TCP && transport != Transport.TLS) {
            throw new IllegalArgumentException("\"" + text + "\": transport " + transport.configName()
                    + " (expected udp, tcp or tls)");
        }
        return new DestinationConfig(set, hp.host(), hp.port(), transport, connection, priority, weight);
    }

    private static int number(String text, String name, String value) {
        if (!value.matches("\\d{1,6}")) {
            throw new IllegalArgumentException("\"" + text + "\": " + name + " \"" + value + "\" is not a whole number");
        }
        return Integer.parseInt(value);
    }

    /** The form it is parsed from. */
    @Override
    public String toString() {
        return set + "=" + HostPort.format(host, port) + ";transport=" + transport.configName()
                + ";connection=" + connection.configName() + ";priority=" + priority + ";weight=" + weight;
    }
}
