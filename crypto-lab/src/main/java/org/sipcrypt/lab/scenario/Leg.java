package org.sipcrypt.lab.scenario;

import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * One leg around the proxy under test: the UAC side (left: generators to proxy, the proxy is the
 * TLS server) or the UAS side (right: proxy to UAS, the proxy is the TLS client). A leg whose
 * transport is {@code tls} carries the cipher being compared, and becomes UDP or TCP in the
 * plaintext baselines; a leg of {@code udp} or {@code tcp} stays so in every comparison (the
 * block-cipher study's TLS-on-one-leg variants).
 * Threading: immutable.
 *
 * @param transport          {@code tls}, {@code tcp} or {@code udp}
 * @param connection         TCP and TLS: one persistent connection, or one per call
 * @param sessionReuse       TLS: the client of this leg resumes sessions
 * @param clientCertificates TLS: the client of this leg presents a certificate, and the server of
 *                           the leg requires one (mutual authentication)
 */
public record Leg(Transport transport, ConnectionPattern connection, boolean sessionReuse, boolean clientCertificates) {

    /** Baseline names a comparison takes besides cipher providers. */
    public static final String UDP = "udp";
    /** The TCP baseline. */
    public static final String TCP = "tcp";

    public Leg {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(connection, "connection");
        if (transport.webSocket()) {
            throw new IllegalArgumentException(noWebSocket(transport));
        }
    }

    /**
     * A transport the lab's load generator runs, read from {@code text} in any case: udp, tcp or tls.
     *
     * @throws IllegalArgumentException naming the value when it is no transport, or ws/wss (not built in the lab)
     */
    public static Transport labTransport(String text) {
        Transport t = Transport.parse(text);
        if (t.webSocket()) {
            throw new IllegalArgumentException(noWebSocket(t));
        }
        return t;
    }

    private static String noWebSocket(Transport t) {
        return "transport \"" + t.configName() + "\": the lab's load generator has no WebSocket transport"
                + " (expected udp, tcp or tls)";
    }

    /** Whether the leg carries the compared cipher. */
    public boolean secured() {
        return transport == Transport.TLS;
    }

    /** The transport this leg runs on when {@code cipher} is compared. */
    public Transport transportFor(String cipher) {
        if (transport != Transport.TLS) {
            return transport;
        }
        return switch (cipher) {
            case UDP -> Transport.UDP;
            case TCP -> Transport.TCP;
            default -> Transport.TLS;
        };
    }
}
