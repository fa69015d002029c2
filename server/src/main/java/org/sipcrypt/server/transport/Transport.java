package org.sipcrypt.server.transport;

import java.util.Locale;

/**
 * A SIP transport protocol as named in Via headers and URI {@code transport} parameters
 * (RFC 3261 §18). TLS joins with its own listener type.
 * Threading: immutable.
 */
public enum Transport {
    UDP(false),
    TCP(true);

    private final boolean reliable;

    Transport(boolean reliable) {
        this.reliable = reliable;
    }

    /** Whether the transport is stream-oriented and reliable (no SIP retransmissions needed). */
    public boolean reliable() {
        return reliable;
    }

    /** The name as written in Via headers: {@code UDP}, {@code TCP}. */
    public String sipName() {
        return name();
    }

    /** The name as written in configuration and URIs: {@code udp}, {@code tcp}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a transport name in any case.
     *
     * @throws IllegalArgumentException naming the value when it is not a known transport
     */
    public static Transport parse(String name) {
        for (Transport t : values()) {
            if (t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown transport \"" + name + "\" (expected udp or tcp)");
    }
}
