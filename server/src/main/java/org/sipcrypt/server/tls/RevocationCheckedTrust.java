package org.sipcrypt.server.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.HashSet;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A PKIX trust manager followed by a {@link PeerRevocation} check of the chain it accepted, on every
 * entry point (client and server certificates, with engine, socket or neither).
 * Threading: immutable; thread-safe; never blocks (the revocation lists are local, OCSP answers cached).
 */
final class RevocationCheckedTrust extends X509ExtendedTrustManager {

    private final X509ExtendedTrustManager pkix;
    private final PeerRevocation revocation;
    private final Set<TrustAnchor> anchors;

    RevocationCheckedTrust(X509ExtendedTrustManager pkix, PeerRevocation revocation) {
        this.pkix = pkix;
        this.revocation = revocation;
        Set<TrustAnchor> set = new HashSet<>();
        for (X509Certificate c : pkix.getAcceptedIssuers()) {
            set.add(new TrustAnchor(c, null));
        }
        this.anchors = Set.copyOf(set);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        pkix.checkClientTrusted(chain, authType, socket);
        revocation.check(chain, anchors);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        pkix.checkServerTrusted(chain, authType, socket);
        revocation.check(chain, anchors);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        pkix.checkClientTrusted(chain, authType, engine);
        revocation.check(chain, anchors);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        pkix.checkServerTrusted(chain, authType, engine);
        revocation.check(chain, anchors);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkClientTrusted(chain, authType);
        revocation.check(chain, anchors);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkServerTrusted(chain, authType);
        revocation.check(chain, anchors);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
