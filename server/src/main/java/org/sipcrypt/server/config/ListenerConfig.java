package org.sipcrypt.server.config;

import java.util.Objects;
import org.sipcrypt.server.transport.Transport;

/**
 * One listening socket: transport, bind address and port ({@code 0} picks an ephemeral port).
 * Written {@code udp:127.0.0.1:5060}, {@code tcp:[::1]:5060}.
 * Threading: immutable.
 */
public record ListenerConfig(Transport transport, String host, int port) {

    public ListenerConfig {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("listener host is empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("listener port " + port + " is out of range 0-65535");
        }
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("::0")) {
            // the listening address is what Via and Record-Route advertise (RFC 3261 §18.2.1)
            throw new IllegalArgumentException("wildcard address " + host
                    + " cannot be advertised in Via headers (expected the address peers reach, e.g. 192.0.2.10)");
        }
    }

    /**
     * Parses {@code TRANSPORT:HOST:PORT}; IPv6 hosts are written in brackets.
     *
     * @throws IllegalArgumentException with a message that names what is wrong
     */
    public static ListenerConfig parse(String text) {
        Objects.requireNonNull(text, "text");
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(
                    "\"" + text + "\" is not TRANSPORT:HOST:PORT (e.g. udp:127.0.0.1:5060)");
        }
        Transport transport = Transport.parse(text.substring(0, colon));
        HostPort hp = HostPort.parse(text.substring(colon + 1), -1);
        if (hp.port() < 0) {
            throw new IllegalArgumentException("\"" + text + "\" has no port (e.g. udp:127.0.0.1:5060)");
        }
        return new ListenerConfig(transport, hp.host(), hp.port());
    }

    /** The form it is parsed from, with the actual port. */
    @Override
    public String toString() {
        return transport.configName() + ":" + HostPort.format(host, port);
    }
}
