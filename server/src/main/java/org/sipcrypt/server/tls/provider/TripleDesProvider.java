package org.sipcrypt.server.tls.provider;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * 3DES: {@code TLS_RSA_WITH_3DES_EDE_CBC_SHA} (JSSE: {@code SSL_RSA_WITH_3DES_EDE_CBC_SHA}), and
 * {@code TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA} for ECDSA keys (RFC 8422).
 * Insecure (64-bit blocks, Sweet32): lab use only. The bc and jsse TLS engines, both crypto engines;
 * not openssl (BoringSSL as Netty's tcnative builds it offers no 3DES suite).
 * Threading: immutable.
 */
public final class TripleDesProvider extends BuiltInProvider {

    public TripleDesProvider() {
        super("3des", List.of(new CipherSuiteId(CipherSuite.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
                        "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "SSL_RSA_WITH_3DES_EDE_CBC_SHA"),
                new CipherSuiteId(CipherSuite.TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA,
                        "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA")),
                true, Set.of(TlsEngine.BC, TlsEngine.JSSE), Set.of(CipherEngine.BC, CipherEngine.JCA));
    }
}
