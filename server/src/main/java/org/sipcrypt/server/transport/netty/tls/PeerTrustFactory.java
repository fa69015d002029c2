package org.sipcrypt.server.transport.netty.tls;

import io.netty.handler.ssl.util.SimpleTrustManagerFactory;
import java.security.KeyStore;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.TrustManager;
import org.sipcrypt.server.tls.PeerTrust;

/**
 * Hands {@link PeerTrust} (the chain against the anchors, the names against the host dialled by
 * RFC 5922's rules) to a Netty {@code SslContextBuilder}, on the jsse and openssl engines alike:
 * both call it with the engine, whose peer host is the address dialled.
 * Threading: immutable; thread-safe.
 */
final class PeerTrustFactory extends SimpleTrustManagerFactory {

    private final PeerTrust trust;

    PeerTrustFactory(PeerTrust trust) {
        this.trust = trust;
    }

    @Override
    protected void engineInit(KeyStore keyStore) {
        // the anchors were given to PeerTrust already
    }

    @Override
    protected void engineInit(ManagerFactoryParameters params) {
        // the anchors were given to PeerTrust already
    }

    @Override
    protected TrustManager[] engineGetTrustManagers() {
        return new TrustManager[] {trust};
    }
}
