package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * TLS settings of the {@code tls} listener and of outgoing TLS connections (keys {@code tls.*}).
 * Threading: immutable.
 *
 * @param cert             PEM certificate (chain) the server presents; needed with a tls listener
 * @param key              PEM private key of that certificate
 * @param trust            PEM CA certificates that peers' certificates must chain to; null means the
 *                         JDK's default trust store (for outgoing connections) and no client certificates
 * @param ciphers          provider names and suite names, most preferred first
 * @param clientAuth       whether the listener asks clients for a certificate
 * @param allowInsecure    the lab switch that lets RC4 and 3DES suites be configured
 * @param handshakeTimeout a connection whose handshake takes longer is closed
 */
public record TlsConfig(Path cert, Path key, Path trust, List<String> ciphers, ClientAuth clientAuth,
                        boolean allowInsecure, Duration handshakeTimeout) {

    /** Client certificates: not asked for, asked for, or required. */
    public enum ClientAuth {
        NONE, WANT, NEED;

        /** The name in configuration. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static ClientAuth parse(String text) {
            for (ClientAuth a : values()) {
                if (a.configName().equalsIgnoreCase(text)) {
                    return a;
                }
            }
            throw new IllegalArgumentException("\"" + text + "\" is not a client-auth mode (expected none, want or need)");
        }
    }

    public TlsConfig {
        ciphers = List.copyOf(Objects.requireNonNull(ciphers, "ciphers"));
        Objects.requireNonNull(clientAuth, "clientAuth");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
    }

    /** No certificate; AES suites; no client certificates; insecure suites refused; 10 s handshakes. */
    public static TlsConfig defaults() {
        return new TlsConfig(null, null, null, List.of("aes"), ClientAuth.NONE, false, Duration.ofSeconds(10));
    }
}
