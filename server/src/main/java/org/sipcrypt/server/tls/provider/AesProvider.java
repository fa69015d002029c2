package org.sipcrypt.server.tls.provider;

import static org.sipcrypt.server.tls.spi.CipherSuiteId.of;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * AES: {@code TLS_RSA_WITH_AES_128_CBC_SHA} first (the suite RFC 3261 §26.3.1 makes mandatory),
 * then AES-256-CBC, the AES-GCM and ECDHE-RSA variants of TLS 1.2, and the TLS 1.3 AES-GCM suites.
 * Runs on both TLS engines; on the BC engine with either crypto engine (SunJCE uses AES-NI).
 * Threading: immutable.
 */
public final class AesProvider extends BuiltInProvider {

    public AesProvider() {
        super("aes", List.of(
                of(CipherSuite.TLS_RSA_WITH_AES_128_CBC_SHA, "TLS_RSA_WITH_AES_128_CBC_SHA"),
                of(CipherSuite.TLS_RSA_WITH_AES_256_CBC_SHA, "TLS_RSA_WITH_AES_256_CBC_SHA"),
                of(CipherSuite.TLS_RSA_WITH_AES_128_GCM_SHA256, "TLS_RSA_WITH_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_RSA_WITH_AES_256_GCM_SHA384, "TLS_RSA_WITH_AES_256_GCM_SHA384"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
                of(CipherSuite.TLS_AES_128_GCM_SHA256, "TLS_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_AES_256_GCM_SHA384, "TLS_AES_256_GCM_SHA384")),
                false, Set.of(TlsEngine.BC, TlsEngine.JSSE), Set.of(CipherEngine.BC, CipherEngine.JCA));
    }
}
