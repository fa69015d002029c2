package org.sipcrypt.server.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A certificate chain with its private key: what a TLS side presents. Read from PEM files (a chain
 * file and a key file) or from one PKCS#12 file ({@code .p12} or {@code .pfx}: its first key entry,
 * with the password given).
 * Threading: immutable.
 *
 * @param chain the certificate chain, end entity first
 * @param key   its private key
 */
public record KeyMaterial(List<X509Certificate> chain, PrivateKey key) {

    public KeyMaterial {
        chain = List.copyOf(chain);
        if (chain.isEmpty() || key == null) {
            throw new IllegalArgumentException("a certificate chain and its key are both needed");
        }
    }

    /** Whether {@code file} is named as a PKCS#12 file. */
    public static boolean isPkcs12(Path file) {
        String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".p12") || n.endsWith(".pfx");
    }

    /**
     * Reads what a side presents.
     *
     * @param cert     PEM chain, or a PKCS#12 file holding chain and key; null for nothing to present
     * @param key      PEM key of a PEM chain; must be null with a PKCS#12 file
     * @param password the PKCS#12 file's password (empty for none)
     * @return the material, or null when {@code cert} is null
     */
    public static KeyMaterial read(Path cert, Path key, String password) throws IOException {
        if (cert == null) {
            return null;
        }
        if (!isPkcs12(cert)) {
            if (key == null) {
                throw new IOException(cert + ": a PEM certificate needs its key file (or give a .p12 file)");
            }
            return new KeyMaterial(PemFiles.readCertificates(cert), PemFiles.readPrivateKey(key));
        }
        if (key != null) {
            throw new IOException(cert + " is a PKCS#12 file holding its key: no separate key file is read");
        }
        char[] pw = password == null ? new char[0] : password.toCharArray();
        try (InputStream in = Files.newInputStream(cert)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try {
                ks.load(in, pw);
            } catch (IOException e) {
                // the JDK reports a wrong password as an IOException whose cause is the MAC check
                throw new IOException(cert + ": cannot read the PKCS#12 file (wrong tls.keyPassword?): " + e.getMessage(), e);
            }
            for (String alias : Collections.list(ks.aliases())) {
                if (ks.isKeyEntry(alias)) {
                    Key k = ks.getKey(alias, pw);
                    Certificate[] chain = ks.getCertificateChain(alias);
                    if (k instanceof PrivateKey pk && chain != null && chain.length > 0) {
                        X509Certificate[] x = new X509Certificate[chain.length];
                        for (int i = 0; i < chain.length; i++) {
                            x[i] = (X509Certificate) chain[i];
                        }
                        return new KeyMaterial(List.of(x), pk);
                    }
                }
            }
            throw new IOException(cert + ": no private key with its certificate chain in this PKCS#12 file");
        } catch (GeneralSecurityException e) {
            throw new IOException(cert + ": cannot read the PKCS#12 file (wrong tls.keyPassword?): " + e.getMessage(), e);
        }
    }

    /** The chain as an array, end entity first. */
    public X509Certificate[] chainArray() {
        return chain.toArray(new X509Certificate[0]);
    }
}
