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
    TLS(true);

    private final boolean reliable;

    Transport(boolean reliable) {
        this.reliable = reliable;
    }

    /** Whether the transport is stream-oriented and reliable (no SIP retransmissions needed). */
    public boolean reliable() {
        return reliable;
    }

    /** The port a URI or Via of this transport means when it names none: 5061 for TLS, else 5060 (RFC 3261 §19.1.2). */
    public int defaultPort() {
        return this == TLS ? 5061 : 5060;
    }

    /** The name as written in Via headers: {@code UDP}, {@code TCP}, {@code TLS}. */
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
