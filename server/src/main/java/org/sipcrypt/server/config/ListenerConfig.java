package org.sipcrypt.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.sipcrypt.server.transport.Transport;

/**
 * One listening socket: transport, bind address and port ({@code 0} picks an ephemeral port), and
 * optionally the address peers must use to reach it, which Via and Record-Route then carry instead of
 * the bind address (RFC 3261 §18.2.1, §16.6 step 4): a server behind NAT, in a container with a
 * published port, or bound to a wildcard address. Written {@code udp:127.0.0.1:5060},
 * {@code tcp:[::1]:5060}, {@code tls:0.0.0.0:5061;advertise=sip.example.com:5061}.
 * Threading: immutable.
 *
 * @param advertisedHost the host peers reach it at (a name or an IP literal, IPv6 without brackets);
 *                       null to advertise the bind address
 * @param advertisedPort the port peers reach it at; -1 for the listening port
 */
public record ListenerConfig(Transport transport, String host, int port, String advertisedHost, int advertisedPort) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\\.?");

    public ListenerConfig {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("listener host is empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("listener port " + port + " is out of range 0-65535");
        }
        if (advertisedHost != null) {
            advertisedHost = advertisedHost(advertisedHost);
        }
        if (advertisedPort != -1 && (advertisedHost == null || advertisedPort < 1 || advertisedPort > 65535)) {
            throw new IllegalArgumentException(advertisedHost == null ? "an advertised port needs an advertised host"
                    : "advertised port " + advertisedPort + " is out of range 1-65535");
        }
        if (advertisedHost == null && isWildcard(host)) {
            // the address Via and Record-Route carry must be one peers can send to (RFC 3261 §18.2.1)
            throw new IllegalArgumentException("wildcard address " + host + " needs the address peers reach, which"
                    + " Via and Record-Route carry (expected e.g. " + transport.configName() + ":"
                    + HostPort.format(host, port) + ";advertise=sip.example.com)");
        }
    }

    /** A listener advertising its bind address. */
    public ListenerConfig(Transport transport, String host, int port) {
        this(transport, host, port, null, -1);
    }

    /**
     * Parses {@code TRANSPORT:HOST:PORT[;advertise=HOST[:PORT]]}; IPv6 hosts are written in brackets.
     *
     * @throws IllegalArgumentException with a message that names what is wrong
     */
    public static ListenerConfig parse(String text) {
        Objects.requireNonNull(text, "text");
        String[] parts = text.split(";", -1);
        String socket = parts[0].trim();
        int colon = socket.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(
                    "\"" + text + "\" is not TRANSPORT:HOST:PORT (e.g. udp:127.0.0.1:5060)");
        }
        Transport transport = Transport.parse(socket.substring(0, colon));
        HostPort hp = HostPort.parse(socket.substring(colon + 1), -1);
        if (hp.port() < 0) {
            throw new IllegalArgumentException("\"" + text + "\" has no port (e.g. udp:127.0.0.1:5060)");
        }
        HostPort advertised = null;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            String name = (eq < 0 ? p : p.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
            if (!name.equals("advertise")) {
                throw new IllegalArgumentException("\"" + text + "\": unknown parameter \"" + p
                        + "\" (expected advertise=HOST[:PORT])");
            }
            if (advertised != null) {
                throw new IllegalArgumentException("\"" + text + "\": advertise is given twice");
            }
            String value = eq < 0 ? "" : p.substring(eq + 1).trim();
            if (value.isEmpty()) {
                throw new IllegalArgumentException("\"" + text + "\": advertise has no value (expected advertise=HOST[:PORT],"
                        + " e.g. advertise=sip.example.com:5061)");
            }
            try {
                advertised = HostPort.parse(value, -1);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("\"" + text + "\": advertise " + e.getMessage(), e);
            }
            if (advertised.port() == 0) {
                throw new IllegalArgumentException("\"" + text + "\": advertise port 0 is not a port peers can reach"
                        + " (expected 1-65535, or none for the listening port)");
            }
        }
        if (advertised != null && isWildcard(advertised.host())) {
            throw new IllegalArgumentException("\"" + text + "\": advertise=" + value(advertised)
                    + " names a wildcard address (expected the name or address peers reach, e.g. sip.example.com)");
        }
        return advertised == null ? new ListenerConfig(transport, hp.host(), hp.port())
                : new ListenerConfig(transport, hp.host(), hp.port(), advertised.host(), advertised.port());
    }

    /** Whether {@code host} is a wildcard address ({@code 0.0.0.0}, {@code ::} in any spelling); never looks a name up. */
    public static boolean isWildcard(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.equals("0.0.0.0")) {
            return true;
        }
        if (h.indexOf(':') < 0) {
            return false;
        }
        try {
            // a literal with a colon is parsed without any name lookup
            return InetAddress.getByName(h).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether this listener binds a wildcard address (every interface). */
    public boolean wildcard() {
        return isWildcard(host);
    }

    /** The host Via and Record-Route carry: the advertised one, else the bind address. */
    public String sentByHost() {
        return advertisedHost != null ? advertisedHost : host;
    }

    /** The port Via and Record-Route carry: the advertised one, else {@code boundPort} (the actual listening port). */
    public int sentByPort(int boundPort) {
        return advertisedPort > 0 ? advertisedPort : boundPort;
    }

    /** The form it is parsed from, with the actual port. */
    @Override
    public String toString() {
        String socket = transport.configName() + ":" + HostPort.format(host, port);
        return advertisedHost == null ? socket
                : socket + ";advertise=" + value(new HostPort(advertisedHost, advertisedPort));
    }

    private static String value(HostPort hp) {
        return HostPort.format(hp.host(), hp.port());
    }

    /**
     * An advertised host as Via carries it (RFC 3261 §25.1 host): a host name, an IPv4 address, or an
     * IPv6 literal (kept without brackets), in lower case.
     */
    private static String advertisedHost(String text) {
        String h = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        h = h.toLowerCase(Locale.ROOT);
        if (isWildcard(h)) {
            throw new IllegalArgumentException("advertised host " + text + " is a wildcard address (expected the"
                    + " name or address peers reach, e.g. sip.example.com)");
        }
        if (h.indexOf(':') >= 0) {
            try {
                InetAddress.getByName(h);
                return h;
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("advertised host " + text + " is not an IPv6 address", e);
            }
        }
        if (!NAME.matcher(h).matches() || h.length() > 253) {
            throw new IllegalArgumentException("advertised host \"" + text + "\" is not a host name or IP address"
                    + " (expected e.g. sip.example.com or 192.0.2.10)");
        }
        String[] labels = (h.endsWith(".") ? h.substring(0, h.length() - 1) : h).split("\\.");
        // RFC 3261 §25.1: a name's last label starts with a letter; all digits is an IPv4 address
        if (Character.isDigit(labels[labels.length - 1].charAt(0))) {
            boolean quad = labels.length == 4;
            for (String label : labels) {
                quad &= label.length() <= 3 && label.chars().allMatch(Character::isDigit) && Integer.parseInt(label) <= 255;
            }
            if (!quad) {
                throw new IllegalArgumentException("advertised host \"" + text + "\" is not an IPv4 address"
                        + " (expected four numbers 0-255, e.g. 192.0.2.10) nor a host name");
            }
        }
        return h;
    }
}
