package org.sipcrypt.server.tls.spi;

import java.util.Objects;

/**
 * A TLS cipher suite: its IANA code, its IANA name, and the name the JDK's JSSE knows it by (the
 * same, or the {@code SSL_} form for the oldest suites; {@code null} when no JSSE provider runs it).
 * Threading: immutable.
 *
 * @param code     the two-byte IANA value, e.g. {@code 0x002F}
 * @param name     the IANA name, e.g. {@code TLS_RSA_WITH_AES_128_CBC_SHA}
 * @param jsseName the JSSE name, or null
 */
public record CipherSuiteId(int code, String name, String jsseName) {

    public CipherSuiteId {
        Objects.requireNonNull(name, "name");
        if (code < 0 || code > 0xFFFF) {
            throw new IllegalArgumentException("cipher suite code out of range: " + code);
        }
        if (!name.startsWith("TLS_")) {
            throw new IllegalArgumentException("IANA cipher suite names start with TLS_: " + name);
        }
    }

    /** A suite JSSE knows by its IANA name. */
    public static CipherSuiteId of(int code, String name) {
        return new CipherSuiteId(code, name, name);
    }

    /** Whether {@code text} names this suite (IANA or JSSE name, case-insensitive). */
    public boolean isNamed(String text) {
        return name.equalsIgnoreCase(text) || jsseName != null && jsseName.equalsIgnoreCase(text);
    }

    /** {@code TLS_RSA_WITH_AES_128_CBC_SHA (0x002F)}. */
    @Override
    public String toString() {
        return String.format("%s (0x%04X)", name, code);
    }
}
