package org.sipcrypt.server.testing;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.sipcrypt.server.tls.JdkInsecureSuites;

/**
 * A TLS client on the JDK's SunJSSE, run in a JVM of its own by tests: it first takes RC4 and 3DES,
 * and the refusal of the suite named when that has static RSA key exchange, out of
 * {@code jdk.tls.disabledAlgorithms} (which the JDK reads once per JVM), then makes one
 * TLS 1.2 handshake offering only the suite named, and prints {@code negotiated SUITE}.
 * Usage: {@code JdkTlsProbe PORT CA.pem JSSE_SUITE_NAME}; exit 0 when the handshake succeeds, 1 otherwise.
 * Threading: main thread only.
 */
public final class JdkTlsProbe {

    private JdkTlsProbe() {
    }

    public static void main(String... args) throws Exception {
        JdkInsecureSuites.allow();
        JdkInsecureSuites.allowStaticRsa(List.of(args[2]));
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        try (InputStream in = Files.newInputStream(Path.of(args[1]))) {
            ts.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", Integer.parseInt(args[0]))) {
            s.setSoTimeout(10_000);
            s.setEnabledProtocols(new String[] {"TLSv1.2"});
            s.setEnabledCipherSuites(new String[] {args[2]});
            s.startHandshake();
            System.out.println("negotiated " + s.getSession().getCipherSuite());
        } catch (java.io.IOException e) {
            System.out.println("failed " + e);
            System.exit(1);
        }
    }
}
