package org.sipcrypt.server.testing;

import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.sipcrypt.server.tls.PemFiles;

/**
 * JDK (SunJSSE) TLS contexts built from the PEM files the {@code certs} command writes, for test
 * peers: trusting {@code ca.pem} of a directory, presenting one of its certificates when asked.
 * Threading: immutable (static methods only).
 */
public final class TestPki {

    private TestPki() {
    }

    /**
     * A context trusting {@code dir/ca.pem}.
     *
     * @param cert a certificate file in {@code dir} to present (with {@code key}), or null for none
     */
    public static SSLContext sslContext(Path dir, String cert, String key) throws Exception {
        return sslContext(dir, cert, key, "TLS");
    }

    /**
     * As {@link #sslContext(Path, String, String)}, of a protocol: {@code TLSv1.2} offers TLS 1.2 at
     * most (its sessions are resumed by session ID on either engine).
     */
    public static SSLContext sslContext(Path dir, String cert, String key, String protocol) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", PemFiles.readCertificates(dir.resolve("ca.pem")).get(0));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        KeyManagerFactory kmf = null;
        if (cert != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("me", PemFiles.readPrivateKey(dir.resolve(key)), new char[0],
                    PemFiles.readCertificates(dir.resolve(cert)).toArray(new X509Certificate[0]));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
        }
        SSLContext ctx = SSLContext.getInstance(protocol);
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }
}
