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
    JSSE,
    /**
     * Netty's {@code OpenSslEngine} on BoringSSL (a native library): AES-GCM, AES-CBC and
     * ChaCha20-Poly1305 suites, TLS 1.2 and 1.3; no 3DES, RC4, Camellia or SEED.
     */
    OPENSSL;

    /** The name in configuration and reports: {@code bc}, {@code jsse}, {@code openssl}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
