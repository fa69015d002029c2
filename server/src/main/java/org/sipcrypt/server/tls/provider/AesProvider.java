package org.sipcrypt.server.tls.provider;

import static org.sipcrypt.server.tls.spi.CipherSuiteId.of;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * AES, forward secrecy first: the TLS 1.3 AES-GCM suites, then ECDHE-ECDSA and ECDHE-RSA with
 * AES-GCM and AES-CBC (TLS 1.2; a server offers those its key signs for), so a client offering the usual set lands on a suite whose past traffic a stolen
 * server key does not open. Then, still offered, the RSA key-exchange suites:
 * {@code TLS_RSA_WITH_AES_128_CBC_SHA} (the suite RFC 3261 §26.3.1 makes mandatory, the one the
 * lab and benchmarks measure, see {@link org.sipcrypt.server.tls.spi.CipherSuiteProvider#rsaKeyExchangeSuite()}),
 * AES-256-CBC and the AES-GCM variants.
 * Runs on every TLS engine (BoringSSL, under the openssl engine, has all fourteen suites); on the BC
 * engine with either crypto engine (SunJCE uses AES-NI).
 * Threading: immutable.
 */
public final class AesProvider extends BuiltInProvider {

    public AesProvider() {
        super("aes", List.of(
                of(CipherSuite.TLS_AES_128_GCM_SHA256, "TLS_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_AES_256_GCM_SHA384, "TLS_AES_256_GCM_SHA384"),
                of(CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
                of(CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
                of(CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"),
                of(CipherSuite.TLS_RSA_WITH_AES_128_CBC_SHA, "TLS_RSA_WITH_AES_128_CBC_SHA"),
                of(CipherSuite.TLS_RSA_WITH_AES_256_CBC_SHA, "TLS_RSA_WITH_AES_256_CBC_SHA"),
                of(CipherSuite.TLS_RSA_WITH_AES_128_GCM_SHA256, "TLS_RSA_WITH_AES_128_GCM_SHA256"),
                of(CipherSuite.TLS_RSA_WITH_AES_256_GCM_SHA384, "TLS_RSA_WITH_AES_256_GCM_SHA384")),
                false, Set.of(TlsEngine.BC, TlsEngine.JSSE, TlsEngine.OPENSSL), Set.of(CipherEngine.BC, CipherEngine.JCA));
    }
}
