package org.sipcrypt.server.tls.provider;

import static org.sipcrypt.server.tls.spi.CipherSuiteId.of;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * ChaCha20-Poly1305 (RFC 8439, RFC 7905): {@code TLS_CHACHA20_POLY1305_SHA256} (TLS 1.3), then
 * {@code TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256} and
 * {@code TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256} (TLS 1.2; a server offers the one its key
 * signs for). No RSA key-exchange suite exists for it. Runs on every TLS engine: SunJSSE and SunJCE
 * have it since Java 11, BoringSSL (the openssl engine) has all three; on the bc engine it runs on
 * Bouncy Castle's lightweight crypto only (Bouncy Castle's JCA-based {@code TlsCrypto} does not take
 * SunJCE's ChaCha20-Poly1305). On the openssl engine TLS 1.3 cannot be narrowed to this suite (BoringSSL always
 * offers its three TLS 1.3 suites), as {@link org.sipcrypt.server.tls.TlsChoices} says.
 * Threading: immutable.
 */
public final class ChaCha20Provider extends BuiltInProvider {

    public ChaCha20Provider() {
        super("chacha20", List.of(
                of(CipherSuite.TLS_CHACHA20_POLY1305_SHA256, "TLS_CHACHA20_POLY1305_SHA256"),
                of(CipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
                        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
                of(CipherSuite.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
                        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256")),
                false, Set.of(TlsEngine.BC, TlsEngine.JSSE, TlsEngine.OPENSSL), Set.of(CipherEngine.BC));
    }
}
