package org.sipcrypt.server.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * How sipcrypt checks a TLS peer's certificate on either engine: the chain against the trust
 * anchors (the JDK's PKIX validation), and for a server dialled, its names against the host or
 * address dialled by the rules of RFC 5922 ({@link PeerNames}: no wildcards, CN only without
 * subjectAltNames) instead of the HTTPS rules SunJSSE would apply; with {@code tls.revocation}, the
 * accepted chain's end-entity certificate against the revocation lists ({@link PeerRevocation}). The
 * anchors of a trust file ({@code tls.trust}, a {@code tls.peer}'s {@code trust=}) are replaced whole
 * by {@link #reload}, and the checks over them stay revocation-checked by the same
 * {@link PeerRevocation}: a handshake checks with the set current when its peer's certificate
 * arrives, connections already up are not checked again.
 * Threading: thread-safe; the checks never block; {@link #reload} reads the file (never on an event loop).
 */
public final class PeerTrust extends X509ExtendedTrustManager {

    /** The trust file, or null for the JDK's trust store (nothing to reload). */
    private final Path file;
    /** The revocation checks every PKIX manager of this trust is wrapped with, the reloaded ones too. */
    private final PeerRevocation revocation;
    private volatile X509ExtendedTrustManager pkix;

    private PeerTrust(Path file, PeerRevocation revocation, X509ExtendedTrustManager pkix) {
        this.file = file;
        this.revocation = Objects.requireNonNull(revocation, "revocation");
        this.pkix = pkix;
    }

    /** Checks against {@code anchors}, or the JDK's trust store when null. */
    public static PeerTrust of(List<X509Certificate> anchors) throws IOException {
        return of(anchors, PeerRevocation.OFF);
    }

    /** Checks against {@code anchors} (or the JDK's trust store when null), then for revocation. */
    public static PeerTrust of(List<X509Certificate> anchors, PeerRevocation revocation) throws IOException {
        return new PeerTrust(null, revocation, pkix(anchors, revocation));
    }

    /** Checks against the anchors of the PEM file {@code file}, read now and again by {@link #reload}; null: the JDK's. */
    public static PeerTrust read(Path file) throws IOException {
        return read(file, PeerRevocation.OFF);
    }

    /**
     * Checks against the anchors of the PEM file {@code file} (null: the JDK's trust store), then for
     * revocation with {@code revocation}; the file is read now and again by {@link #reload}.
     */
    public static PeerTrust read(Path file, PeerRevocation revocation) throws IOException {
        return new PeerTrust(file, revocation, pkix(file == null ? null : PemFiles.readCertificates(file), revocation));
    }

    /**
     * Reads the trust file again and, when it holds at least one certificate and all parse, makes its
     * anchors the ones new checks use, still followed by the same revocation checks; a bad file
     * changes nothing.
     *
     * @return the subjects of the anchors now used; empty without a trust file
     * @throws IOException naming the file and what is wrong; the anchors stay as they were
     */
    public synchronized List<String> reload() throws IOException {
        if (file == null) {
            return List.of();
        }
        List<X509Certificate> anchors = PemFiles.readCertificates(file);
        pkix = pkix(anchors, revocation);
        return anchors.stream().map(c -> c.getSubjectX500Principal().getName()).toList();
    }

    /**
     * The JDK's PKIX checks over the current anchors, followed by the revocation checks when those
     * are on, without the name check: for the bc engine, which checks the names of a server dialled
     * itself.
     */
    public X509ExtendedTrustManager pkix() {
        return pkix;
    }

    /** The trust file, or null when the JDK's trust store is used. */
    public Path file() {
        return file;
    }

    /** The revocation checks that follow the chain checks ({@link PeerRevocation#OFF} without). */
    public PeerRevocation revocation() {
        return revocation;
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
