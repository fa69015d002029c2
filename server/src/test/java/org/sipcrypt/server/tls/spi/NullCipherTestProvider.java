package org.sipcrypt.server.tls.spi;

import java.util.List;
import java.util.Set;

/**
 * A provider that exists only in the test sources and is listed in the test resources' service
 * file: that the registry finds it proves a provider in another jar is picked up from the class
 * path with no change to the server. Its suite has no encryption at all, so it is insecure.
 * Threading: immutable.
 */
public final class NullCipherTestProvider implements CipherSuiteProvider {

    @Override
    public String name() {
        return "test-null";
    }

    @Override
    public List<CipherSuiteId> suites() {
        return List.of(CipherSuiteId.of(0x0002, "TLS_RSA_WITH_NULL_SHA"));
    }

    @Override
    public boolean insecure() {
        return true;
    }

    @Override
    public Set<TlsEngine> tlsEngines() {
        return Set.of(TlsEngine.BC);
    }

    @Override
    public Set<CipherEngine> cipherEngines() {
        return Set.of(CipherEngine.BC);
    }
}
