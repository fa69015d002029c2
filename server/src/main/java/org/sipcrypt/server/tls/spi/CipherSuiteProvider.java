package org.sipcrypt.server.tls.spi;

import java.util.List;
import java.util.Set;

/**
 * The TLS cipher suites of one bulk-cipher family, found with {@link java.util.ServiceLoader}
 * under {@code META-INF/services/org.sipcrypt.server.tls.spi.CipherSuiteProvider}: a jar that
 * ships one is picked up from the classpath with no change to the server.
 * Threading: implementations are immutable.
 */
public interface CipherSuiteProvider {

    /** Short lower-case name used in configuration and reports: {@code aes}, {@code 3des}, {@code seed}. */
    String name();

    /** The suites offered, most preferred first; never empty. */
    List<CipherSuiteId> suites();

    /**
     * The provider's first suite with RSA key exchange ({@code TLS_RSA_WITH_*}), or its first suite
     * when it has none: the kind of suite RFC 3261 §26.3.1 names, and the one the crypto lab and the
     * benchmarks measure per provider, whatever order the provider prefers.
     */
    default CipherSuiteId rsaKeyExchangeSuite() {
        return suites().stream().filter(s -> s.name().startsWith("TLS_RSA_WITH_")).findFirst()
                .orElse(suites().get(0));
    }

    /** Whether the family is broken or deprecated (RC4, 3DES): refused unless insecure suites are allowed. */
    boolean insecure();

    /** The TLS engines that can run these suites. */
    Set<TlsEngine> tlsEngines();

    /** On the {@link TlsEngine#BC} engine, the crypto engines whose {@code TlsCrypto} implements the bulk cipher. */
    Set<CipherEngine> cipherEngines();
}
