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

    /** Whether the family is broken or deprecated (RC4, 3DES): refused unless insecure suites are allowed. */
    boolean insecure();

    /** The TLS engines that can run these suites. */
    Set<TlsEngine> tlsEngines();

    /** On the {@link TlsEngine#BC} engine, the crypto engines whose {@code TlsCrypto} implements the bulk cipher. */
    Set<CipherEngine> cipherEngines();
}
