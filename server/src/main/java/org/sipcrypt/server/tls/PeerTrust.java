package org.sipcrypt.server.tls;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * How sipcrypt checks a TLS peer's certificate on either engine: the chain against the trust
 * anchors (the JDK's PKIX validation), and for a server dialled, its names against the host or
 * address dialled by the rules of RFC 5922 ({@link PeerNames}: no wildcards, CN only without
 * subjectAltNames) instead of the HTTPS rules SunJSSE would apply; with {@code tls.revocation}, the
 * accepted chain's end-entity certificate against the revocation lists ({@link PeerRevocation}).
 * Threading: immutable; thread-safe.
 */
public final class PeerTrust extends X509ExtendedTrustManager {

    private final X509ExtendedTrustManager pkix;

    private PeerTrust(X509ExtendedTrustManager pkix) {
        this.pkix = pkix;
    }

    /** Checks against {@code anchors}, or the JDK's trust store when null. */
    public static PeerTrust of(List<X509Certificate> anchors) throws IOException {
        return new PeerTrust(pkix(anchors));
    }

    /** Checks against {@code anchors} (or the JDK's trust store when null), then for revocation. */
    public static PeerTrust of(List<X509Certificate> anchors, PeerRevocation revocation) throws IOException {
        return new PeerTrust(pkix(anchors, revocation));
    }

    /**
     * The JDK's PKIX trust manager over {@code anchors} (or its own trust store when null), each chain
     * it accepts then checked by {@code revocation} when that is enabled.
     */
    public static X509ExtendedTrustManager pkix(List<X509Certificate> anchors, PeerRevocation revocation)
            throws IOException {
        X509ExtendedTrustManager pkix = pkix(anchors);
        return revocation.enabled() ? new RevocationCheckedTrust(pkix, revocation) : pkix;
    }

    /** The JDK's PKIX trust manager over {@code anchors}, or over its own trust store when null. */
    public static X509ExtendedTrustManager pkix(List<X509Certificate> anchors) throws IOException {
        try {
            KeyStore ks = null;
            if (anchors != null) {
                ks = KeyStore.getInstance(KeyStore.getDefaultType());
                ks.load(null, null);
                for (int i = 0; i < anchors.size(); i++) {
                    ks.setCertificateEntry("ca-" + i, anchors.get(i));
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(ks);
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x) {
                    return x;
                }
            }
            throw new IOException("no X.509 trust manager in this JVM");
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build a trust manager: " + e.getMessage(), e);
        }
    }

    private static void checkName(X509Certificate[] chain, String host) throws CertificateException {
        if (host == null || !PeerNames.matches(chain[0], host)) {
            throw new CertificateException("server certificate does not name " + host + " (RFC 5922)");
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, engine);
        checkName(chain, engine == null ? null : engine.getPeerHost());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, socket);
        checkName(chain, socket == null || socket.getInetAddress() == null ? null
                : socket.getInetAddress().getHostAddress());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a server's certificate is checked against the host dialled, which is unknown here");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        pkix.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
