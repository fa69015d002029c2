package org.sipcrypt.server.tls.provider;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * RC4: {@code TLS_RSA_WITH_RC4_128_SHA} (JSSE: {@code SSL_RSA_WITH_RC4_128_SHA}), and
 * {@code TLS_ECDHE_ECDSA_WITH_RC4_128_SHA} for ECDSA keys (RFC 8422). Insecure
 * (RFC 7465 forbids it): lab use only. Only the JSSE engine: Bouncy Castle's TLS API (1.82) no
 * longer maps the suite to a cipher ({@code TlsUtils.getEncryptionAlgorithm} gives -1), and the JDK
 * runs it once RC4 is removed from {@code jdk.tls.disabledAlgorithms}. BoringSSL (the openssl
 * engine) has no RC4.
 * Threading: immutable.
 */
public final class Rc4Provider extends BuiltInProvider {

    public Rc4Provider() {
        super("rc4", List.of(new CipherSuiteId(CipherSuite.TLS_RSA_WITH_RC4_128_SHA, "TLS_RSA_WITH_RC4_128_SHA",
                "SSL_RSA_WITH_RC4_128_SHA"), new CipherSuiteId(CipherSuite.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
                "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA")),
                true, Set.of(TlsEngine.JSSE), Set.of());
    }
}
