package org.sipcrypt.server.transport;


/**
 * A SIP transport protocol as named in Via headers and URI {@code transport} parameters
 * (RFC 3261 §18).
 * Threading: immutable.
 */
public enum Transport implements ConfigNamed {
    UDP(false),
    TCP(true),
    /** SIP over TLS over TCP (RFC 3261 §26.2); the same stream framing as TCP. */
    TLS(true),
    /** SIP over WebSocket (RFC 7118); one SIP message per WebSocket message. */
    WS(true),
    /** SIP over secure WebSocket (RFC 7118): WebSocket over TLS, on the same TLS stage as {@link #TLS}. */
    WSS(true);

    private final boolean reliable;

    Transport(boolean reliable) {
        this.reliable = reliable;
    }

    /** Whether the transport is stream-oriented and reliable (no SIP retransmissions needed). */
    public boolean reliable() {
        return reliable;
    }

    /**
     * The port a URI or Via of this transport means when it names none: 5061 for TLS, else 5060
     * (RFC 3261 §19.1.2); 80 for WS and 443 for WSS, the ports of their URI schemes (RFC 7118 §5,
     * RFC 6455 §3).
     */
    public int defaultPort() {
        return switch (this) {
            case UDP, TCP -> 5060;
            case TLS -> 5061;
            case WS -> 80;
            case WSS -> 443;
        };
    }

    /** Whether its bytes travel inside TLS: TLS and WSS. */
    public boolean secure() {
        return this == TLS || this == WSS;
    }

    /**
     * Whether it is SIP over WebSocket (RFC 7118): its clients accept no connections, so a request
     * for one goes over the connection it registered over, or not at all (RFC 7118 §5).
     */
    public boolean webSocket() {
        return this == WS || this == WSS;
    }

    /** The name as written in Via headers: {@code UDP}, {@code TCP}, {@code TLS}, {@code WS}, {@code WSS}. */
    public String sipName() {
        return name();
    }


    /**
     * Parses a transport name in any case.
     *
     * @throws IllegalArgumentException naming the value when it is not a known transport
     */
    public static Transport parse(String name) {
        return ConfigNamed.parse(Transport.class, name, "transport");
    }
}
