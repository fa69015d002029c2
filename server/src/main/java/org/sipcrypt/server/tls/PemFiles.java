package org.sipcrypt.server.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * Reads and writes PEM files: certificates ({@code CERTIFICATE}) and private keys (PKCS#8
 * {@code PRIVATE KEY} written; PKCS#1 {@code RSA PRIVATE KEY} and {@code EC PRIVATE KEY} read too).
 * Private keys are written readable by their owner only, and never over an existing file.
 * Threading: immutable (static methods only); every method blocks on file I/O.
 */
public final class PemFiles {

    private PemFiles() {
    }

    /** Every certificate in a PEM file, in file order; fails when there is none. */
    public static List<X509Certificate> readCertificates(Path file) throws IOException {
        List<X509Certificate> certs = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser parser = new PEMParser(r)) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (o instanceof X509CertificateHolder h) {
                    certs.add(converter.getCertificate(h));
                }
            }
        } catch (CertificateException e) {
            throw new IOException(file + ": bad certificate: " + e.getMessage(), e);
        }
        if (certs.isEmpty()) {
            throw new IOException(file + ": no CERTIFICATE block");
        }
        return certs;
    }

    /** The first private key in a PEM file (unencrypted PKCS#8, PKCS#1 RSA or SEC1 EC). */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser parser = new PEMParser(r)) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (o instanceof PEMKeyPair pair) {
                    return converter.getKeyPair(pair).getPrivate();
                }
            }
        } catch (PEMException e) {
            throw new IOException(file + ": bad private key: " + e.getMessage(), e);
        }
        throw new IOException(file + ": no unencrypted PRIVATE KEY block");
    }

    /** Writes certificates as PEM to a new file. */
    public static void writeCertificates(Path file, List<X509Certificate> certs) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW);
             JcaPEMWriter pem = new JcaPEMWriter(w)) {
            for (X509Certificate c : certs) {
                pem.writeObject(c);
            }
        }
    }

    /** Writes a private key as unencrypted PKCS#8 PEM to a new file readable by its owner only. */
    public static void writePrivateKey(Path file, PrivateKey key) throws IOException {
        if (Files.exists(file)) {
            throw new FileAlreadyExistsException(file.toString());
        }
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
             JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(new JcaPKCS8Generator(key, null));
        }
    }
}
