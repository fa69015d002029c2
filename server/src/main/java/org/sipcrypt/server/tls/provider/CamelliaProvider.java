package org.sipcrypt.server.tls.provider;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * Camellia: {@code TLS_RSA_WITH_CAMELLIA_128_CBC_SHA} and {@code TLS_RSA_WITH_CAMELLIA_256_CBC_SHA}
 * (RFC 5932), then for ECDSA keys {@code TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256} and
 * {@code _256_CBC_SHA384} (RFC 6367). The JDK's JSSE and SunJCE have no Camellia, nor has BoringSSL (the openssl engine),
 * so only the BC TLS engine with Bouncy Castle's lightweight crypto runs it.
 * Threading: immutable.
 */
public final class CamelliaProvider extends BuiltInProvider {

    public CamelliaProvider() {
        super("camellia", List.of(
                new CipherSuiteId(CipherSuite.TLS_RSA_WITH_CAMELLIA_128_CBC_SHA, "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", null),
                new CipherSuiteId(CipherSuite.TLS_RSA_WITH_CAMELLIA_256_CBC_SHA, "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA", null),
                new CipherSuiteId(CipherSuite.TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256,
                        "TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256", null),
                new CipherSuiteId(CipherSuite.TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384,
                        "TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384", null)),
                false, Set.of(TlsEngine.BC), Set.of(CipherEngine.BC));
    }
}
