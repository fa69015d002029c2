package org.sipcrypt.lab.scenario;

import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * One leg around the proxy under test: the UAC side (left: generators to proxy, the proxy is the
 * TLS server) or the UAS side (right: proxy to UAS, the proxy is the TLS client). A leg whose
 * transport is {@code tls} carries the cipher being compared, and becomes UDP or TCP in the
 * plaintext baselines; a leg of {@code udp} or {@code tcp} stays so in every comparison (the
 * block-cipher study's TLS-on-one-leg variants). A scenario's legs are udp, tcp or tls; SIP over
 * WebSocket (RFC 7118) is chosen per compared name instead ({@link #WS}, {@link #WSS_PREFIX}): it
 * turns every TLS leg into {@code ws} or {@code wss}, so that one comparison puts WSS beside TLS per
 * cipher.
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
    /** The WebSocket baseline: every TLS leg becomes SIP over plain WebSocket (RFC 7118). */
    public static final String WS = "ws";
    /**
     * How a compared name that runs a cipher over secure WebSocket begins: {@code wss:aes} turns every
     * TLS leg into WSS with the suite {@code aes} names.
     */
    public static final String WSS_PREFIX = "wss:";

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
     * @throws IllegalArgumentException naming the value when it is no transport, or ws/wss (chosen per
     *                                  compared name, not per leg)
     */
    public static Transport labTransport(String text) {
        Transport t = Transport.parse(text);
        if (t.webSocket()) {
            throw new IllegalArgumentException(noWebSocket(t));
        }
        return t;
    }

    private static String noWebSocket(Transport t) {
        return "transport \"" + t.configName() + "\": expected udp, tcp or tls (SIP over WebSocket is not a leg"
                + " of its own: compare names ws and wss:CIPHER turn every tls leg into ws or wss)";
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
        return comparedTransport(cipher);
    }

    /**
     * The transport a compared name puts on every TLS leg: {@code udp}, {@code tcp}, {@code ws}
     * (baselines), {@code wss} ({@code wss:CIPHER}), else {@code tls}.
     */
    public static Transport comparedTransport(String compared) {
        return switch (compared) {
            case UDP -> Transport.UDP;
            case TCP -> Transport.TCP;
            case WS -> Transport.WS;
            default -> compared.startsWith(WSS_PREFIX) ? Transport.WSS : Transport.TLS;
        };
    }

    /**
     * The cipher (provider or suite name) a compared name runs on its TLS legs: {@code aes} for
     * {@code aes} and {@code wss:aes}; a baseline's name as it is.
     */
    public static String cipherOf(String compared) {
        return compared.startsWith(WSS_PREFIX) ? compared.substring(WSS_PREFIX.length()) : compared;
    }

    /**
     * Checks a compared name's transport part: {@code wss:} must be followed by a cipher, not by a
     * baseline or another {@code wss:}; {@code ws:X} and {@code tls:X} are no names.
     *
     * @throws IllegalArgumentException naming the value and what was expected
     */
    public static void checkCompared(String compared) {
        String cipher = cipherOf(compared);
        boolean wss = compared.startsWith(WSS_PREFIX);
        if (wss && (cipher.isEmpty() || cipher.equals(UDP) || cipher.equals(TCP) || cipher.equals(WS)
                || cipher.contains(":"))) {
            throw new IllegalArgumentException("--ciphers: \"" + compared + "\" (expected wss: followed by a cipher"
                    + " provider or suite, e.g. wss:aes; the plaintext WebSocket baseline is ws)");
        }
        if (!wss && compared.contains(":")) {
            throw new IllegalArgumentException("--ciphers: \"" + compared + "\" (expected udp, tcp, ws, a cipher"
                    + " provider or suite, or wss:CIPHER)");
        }
    }
}
