package org.sipcrypt.server.tls.provider;

import java.util.List;
import java.util.Set;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * What the built-in providers share: fixed answers given at construction.
 * Threading: immutable.
 */
abstract class BuiltInProvider implements CipherSuiteProvider {

    private final String name;
    private final List<CipherSuiteId> suites;
    private final boolean insecure;
    private final Set<TlsEngine> tlsEngines;
    private final Set<CipherEngine> cipherEngines;

    BuiltInProvider(String name, List<CipherSuiteId> suites, boolean insecure, Set<TlsEngine> tlsEngines,
                    Set<CipherEngine> cipherEngines) {
        this.name = name;
        this.suites = List.copyOf(suites);
        this.insecure = insecure;
        this.tlsEngines = Set.copyOf(tlsEngines);
        this.cipherEngines = Set.copyOf(cipherEngines);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final List<CipherSuiteId> suites() {
        return suites;
    }

    @Override
    public final boolean insecure() {
        return insecure;
    }

    @Override
    public final Set<TlsEngine> tlsEngines() {
        return tlsEngines;
    }

    @Override
    public final Set<CipherEngine> cipherEngines() {
        return cipherEngines;
    }

    @Override
    public String toString() {
        return name + suites;
    }
}
