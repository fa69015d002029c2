package org.sipcrypt.lab.loadgen;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.server.tls.bc.BcTlsSetup;

/**
 * The TLS settings of one side of a leg, with the server's vocabulary: cipher list (provider or
 * suite names), TLS engine ({@code bc}, {@code jsse}, or null for the first that runs every suite),
 * crypto engine on bc, versions, trust anchors, the certificate and key presented (a client
 * certificate for the UAC, the listener's for the UAS), session reuse, the client-certificate
 * policy of a UAS, the lab switch for insecure suites, and the key-exchange groups offered.
 * Threading: immutable.
 *
 * @param ciphers       provider and suite names, e.g. {@code aes}, {@code TLS_RSA_WITH_SEED_CBC_SHA}
 * @param engine        {@code bc}, {@code jsse}, or null
 * @param crypto        {@code bc}, {@code jca} or {@code PROVIDER:ENGINE} entries; empty for the defaults
 * @param versions      {@code 1.2} and/or {@code 1.3}
 * @param trust         PEM CA certificates; null for the JDK's trust store
 * @param cert          PEM certificate chain (or PKCS#12 file), or null
 * @param key           PEM private key, or null
 * @param sessionReuse  whether sessions are kept and resumed
 * @param clientCerts   what a UAS asks of clients
 * @param allowInsecure the lab switch: RC4 and 3DES allowed
 * @param groups        key-exchange group names ({@code tls.groups}' names, e.g. {@code x25519}), most
 *                      preferred first; empty for the engine's defaults
 */
public record TlsOptions(List<String> ciphers, String engine, List<String> crypto, List<String> versions, Path trust,
                         Path cert, Path key, boolean sessionReuse, BcTlsSetup.ClientCertificates clientCerts,
                         boolean allowInsecure, List<String> groups) {

    public TlsOptions {
        ciphers = List.copyOf(ciphers);
        groups = List.copyOf(groups);
        crypto = List.copyOf(crypto);
        versions = List.copyOf(versions);
        Objects.requireNonNull(clientCerts, "clientCerts");
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("--cert and --key go together");
        }
    }

    /** Options with the engine's default key-exchange groups. */
    public TlsOptions(List<String> ciphers, String engine, List<String> crypto, List<String> versions, Path trust,
                      Path cert, Path key, boolean sessionReuse, BcTlsSetup.ClientCertificates clientCerts,
                      boolean allowInsecure) {
        this(ciphers, engine, crypto, versions, trust, cert, key, sessionReuse, clientCerts, allowInsecure, List.of());
    }

    /**
     * The defaults for a cipher list: engine by suite, TLS 1.2 (the version the bc engine resumes),
     * reuse on, no client certificates.
     */
    public static TlsOptions of(List<String> ciphers, Path trust) {
        return new TlsOptions(ciphers, null, List.of(), List.of("1.2"), trust, null, null, true,
                BcTlsSetup.ClientCertificates.NONE, false);
    }

    /** A copy with another certificate and key. */
    public TlsOptions withIdentity(Path cert, Path key) {
        return new TlsOptions(ciphers, engine, crypto, versions, trust, cert, key, sessionReuse, clientCerts, allowInsecure, groups);
    }

    /** A copy with session reuse on or off. */
    public TlsOptions withSessionReuse(boolean reuse) {
        return new TlsOptions(ciphers, engine, crypto, versions, trust, cert, key, reuse, clientCerts, allowInsecure, groups);
    }

    /** A copy on another TLS engine. */
    public TlsOptions withEngine(String tlsEngine) {
        return new TlsOptions(ciphers, tlsEngine, crypto, versions, trust, cert, key, sessionReuse, clientCerts,
                allowInsecure, groups);
    }
}
