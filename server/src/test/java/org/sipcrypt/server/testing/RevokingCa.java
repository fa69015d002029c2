package org.sipcrypt.server.testing;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CRLConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.sipcrypt.server.tls.PemFiles;

/**
 * A certificate authority a test makes with Bouncy Castle (RSA 2048) that issues client
 * certificates and signs certificate revocation lists (RFC 5280 §5) revoking some of them, for the
 * revocation checks of {@code tls.crl}.
 * Threading: thread-safe (serials from an atomic counter; the key is only read).
 */
public final class RevokingCa {

    private final KeyPair keys;
    private final X509Certificate certificate;
    private final AtomicLong serials = new AtomicLong(1000);

    private RevokingCa(KeyPair keys, X509Certificate certificate) {
        this.keys = keys;
        this.certificate = certificate;
    }

    /** A new CA named {@code CN=<name>}, valid from an hour ago for a day. */
    public static RevokingCa create(String name) throws Exception {
        KeyPair keys = rsa();
        X500Name subject = new X500Name("CN=" + name);
        Instant now = Instant.now();
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        var b = new JcaX509v3CertificateBuilder(subject, BigInteger.valueOf(1), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))), subject, keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
        return new RevokingCa(keys, new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate()))));
    }

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    /** The CA's certificate. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA's private key, to sign OCSP responses with. */
    public java.security.PrivateKey privateKey() {
        return keys.getPrivate();
    }

    /**
     * Issues a client certificate {@code CN=<name>} and writes it and its key to {@code dir} as
     * {@code <file>.pem} and {@code <file>-key.pem}.
     */
    public X509Certificate client(String name, Path dir, String file) throws Exception {
        return issue(name, dir, file, null, KeyPurposeId.id_kp_clientAuth, false);
    }

    /**
     * Issues a client certificate as {@link #client} whose authorityInfoAccess names {@code ocsp} as its
     * OCSP responder (RFC 5280 §4.2.2.1).
     */
    public X509Certificate client(String name, Path dir, String file, java.net.URI ocsp) throws Exception {
        return issue(name, dir, file, ocsp, KeyPurposeId.id_kp_clientAuth, false);
    }

    /**
     * Issues a server certificate {@code CN=<name>} for 127.0.0.1 naming {@code ocsp} (null: none) as
     * its responder and writes it followed by this CA's certificate to {@code <file>.pem}, its key to
     * {@code <file>-key.pem}.
     */
    public X509Certificate server(String name, Path dir, String file, java.net.URI ocsp) throws Exception {
        return issue(name, dir, file, ocsp, KeyPurposeId.id_kp_serverAuth, true);
    }

    /**
     * Issues a delegated OCSP responder's certificate {@code CN=<name>} (RFC 6960 §4.2.2.2), with
     * {@code id-kp-OCSPSigning} when {@code forOcsp}, and writes it to {@code <file>.pem}, its key to
     * {@code <file>-key.pem}.
     */
    public X509Certificate responder(String name, Path dir, String file, boolean forOcsp) throws Exception {
        return issue(name, dir, file, null, forOcsp ? KeyPurposeId.id_kp_OCSPSigning : KeyPurposeId.id_kp_clientAuth,
                false);
    }

    private X509Certificate issue(String name, Path dir, String file, java.net.URI ocsp, KeyPurposeId purpose,
                                  boolean withChain) throws Exception {
        KeyPair k = rsa();
        Instant now = Instant.now();
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        var b = new JcaX509v3CertificateBuilder(certificate, BigInteger.valueOf(serials.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))),
                new X500Name("CN=" + name), k.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
        if (ocsp != null) {
            b.addExtension(Extension.authorityInfoAccess, false, new org.bouncycastle.asn1.x509.AuthorityInformationAccess(
                    org.bouncycastle.asn1.x509.X509ObjectIdentifiers.id_ad_ocsp, new org.bouncycastle.asn1.x509.GeneralName(
                            org.bouncycastle.asn1.x509.GeneralName.uniformResourceIdentifier, ocsp.toString())));
        }
        if (withChain) {
            b.addExtension(Extension.subjectAlternativeName, false, new org.bouncycastle.asn1.x509.GeneralNames(
                    new org.bouncycastle.asn1.x509.GeneralName(org.bouncycastle.asn1.x509.GeneralName.iPAddress, "127.0.0.1")));
        }
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
        PemFiles.writeCertificates(dir.resolve(file + ".pem"), withChain ? List.of(cert, certificate) : List.of(cert));
        PemFiles.writePrivateKey(dir.resolve(file + "-key.pem"), k.getPrivate());
        return cert;
    }

    /** A CRL revoking {@code revoked}, current from an hour ago until {@code nextUpdate} from now (negative: expired). */
    public X509CRL crl(List<X509Certificate> revoked, Duration nextUpdate) throws Exception {
        Instant now = Instant.now();
        X509v2CRLBuilder b = new JcaX509v2CRLBuilder(certificate, Date.from(now.minus(Duration.ofHours(1))));
        b.setNextUpdate(Date.from(now.plus(nextUpdate)));
        for (X509Certificate c : revoked) {
            b.addCRLEntry(c.getSerialNumber(), Date.from(now.minus(Duration.ofMinutes(5))), CRLReason.keyCompromise);
        }
        b.addExtension(Extension.authorityKeyIdentifier, false,
                new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(certificate));
        return new JcaX509CRLConverter().getCRL(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
    }

    /** Writes {@code crl} to {@code file} as PEM ({@code -----BEGIN X509 CRL-----}), replacing it. */
    public static void writePem(Path file, X509CRL crl) throws Exception {
        String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(crl.getEncoded());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, "-----BEGIN X509 CRL-----\n" + b64 + "\n-----END X509 CRL-----\n", StandardCharsets.US_ASCII);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** Writes the CA's certificate to {@code file} as PEM. */
    public void writeCertificate(Path file) throws Exception {
        PemFiles.writeCertificates(file, List.of(certificate));
    }
}
