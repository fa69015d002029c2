package org.sipcrypt.server.tls.spi;

import java.util.Locale;

/**
 * A TLS protocol implementation a suite can run on.
 * Threading: immutable.
 */
public enum TlsEngine {
    /** Bouncy Castle's TLS API ({@code TlsServerProtocol}/{@code TlsClientProtocol}, non-blocking). */
    BC,
    /** An {@code SSLEngine} of a JSSE provider (the JDK's SunJSSE). */
    JSSE;

    /** The name in configuration and reports: {@code bc}, {@code jsse}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
