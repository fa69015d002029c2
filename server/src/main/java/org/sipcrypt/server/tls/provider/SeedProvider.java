package org.sipcrypt.server.tls.provider;

import java.util.List;
import java.util.Set;
import org.bouncycastle.tls.CipherSuite;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * SEED: {@code TLS_RSA_WITH_SEED_CBC_SHA} (RFC 4162). Only the BC TLS engine with Bouncy Castle's
 * lightweight crypto runs it on the JVM (neither JSSE nor SunJCE has SEED, nor has BoringSSL).
 * Threading: immutable.
 */
public final class SeedProvider extends BuiltInProvider {

    public SeedProvider() {
        super("seed", List.of(new CipherSuiteId(CipherSuite.TLS_RSA_WITH_SEED_CBC_SHA, "TLS_RSA_WITH_SEED_CBC_SHA", null)),
                false, Set.of(TlsEngine.BC), Set.of(CipherEngine.BC));
    }
}
