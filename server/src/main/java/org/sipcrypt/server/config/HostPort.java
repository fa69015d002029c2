package org.sipcrypt.server.config;

import java.util.Objects;

/**
 * A host (name, IPv4 or bracketed IPv6 literal) with an optional port, as written in
 * configuration values.
 * Threading: immutable.
 */
public record HostPort(String host, int port) {

    public HostPort {
        Objects.requireNonNull(host, "host");
    }

    /**
     * Parses {@code host}, {@code host:port}, {@code [v6]} or {@code [v6]:port}.
     *
     * @param defaultPort the port when none is written; -1 for none
     * @throws IllegalArgumentException naming the text when it cannot be read
     */
    public static HostPort parse(String text, int defaultPort) {
        String host;
        String portText = null;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("\"" + text + "\" has an unclosed IPv6 bracket");
            }
            host = text.substring(1, close);
            String rest = text.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("\"" + text + "\" has text after the IPv6 address");
                }
                portText = rest.substring(1);
            }
        } else {
            int colon = text.lastIndexOf(':');
            if (colon >= 0 && text.indexOf(':') != colon) {
                throw new IllegalArgumentException(
                        "\"" + text + "\": write IPv6 addresses in brackets, e.g. [::1]:5060");
            }
            host = colon >= 0 ? text.substring(0, colon) : text;
            portText = colon >= 0 ? text.substring(colon + 1) : null;
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("\"" + text + "\" has no host");
        }
        int port = defaultPort;
        if (portText != null) {
            try {
                port = Integer.parseInt(portText);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + text + "\" has a port that is not a number", e);
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("\"" + text + "\" has a port out of range 0-65535");
            }
        }
        return new HostPort(host, port);
    }

    /** Formats host and port, bracketing IPv6 literals. */
    public static String format(String host, int port) {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return port < 0 ? h : h + ":" + port;
    }

    @Override
    public String toString() {
        return format(host, port);
    }
}
