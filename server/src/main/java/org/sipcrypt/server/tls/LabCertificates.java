package org.sipcrypt.server.tls;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for the lab: a self-signed CA, and server and client
 * certificates it signs, with subjectAltName entries (IP addresses and DNS names) so that peers
 * checking names per RFC 5922 accept them. Keys are RSA (2048 bits by default) or ECDSA P-256;
 * signatures SHA-256. Not for production: there is no revocation and the CA key is not kept.
 * Threading: immutable.
 */
public final class LabCertificates {

    /** The key algorithm of every certificate made. */
    public enum KeyType {
        RSA, ECDSA;

        /** Parses {@code rsa} or {@code ecdsa}. */
        public static KeyType parse(String text) {
            for (KeyType t : values()) {
                if (t.name().equalsIgnoreCase(text)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown key type \"" + text + "\" (expected rsa or ecdsa)");
        }
    }

    /**
     * One certificate and its key.
     * Threading: immutable.
     */
    public record Issued(X509Certificate certificate, KeyPair keys) {
    }

    private static final Pattern DNS_NAME = Pattern.compile("(?i)[a-z0-9*]([a-z0-9.-]*[a-z0-9])?");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final KeyType keyType;
    private final int rsaBits;
    private final Duration validity;
    private final Issued ca;

    private LabCertificates(KeyType keyType, int rsaBits, Duration validity, Issued ca) {
        this.keyType = keyType;
        this.rsaBits = rsaBits;
        this.validity = validity;
        this.ca = ca;
    }

    /** A new CA named {@code CN=<name>}. */
    public static LabCertificates create(String name, KeyType keyType, int rsaBits, Duration validity)
            throws GeneralSecurityException {
        Objects.requireNonNull(name, "name");
        if (rsaBits < 2048 && keyType == KeyType.RSA) {
            throw new IllegalArgumentException("RSA keys need at least 2048 bits: " + rsaBits);
        }
        KeyPair keys = newKeyPair(keyType, rsaBits);
        X500Name subject = new X500Name("CN=" + name);
        Instant now = Instant.now();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(validity)), subject, keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate cert = sign(b, keys, keyType);
            return new LabCertificates(keyType, rsaBits, validity, new Issued(cert, keys));
        } catch (CertIOException e) {
            throw new GeneralSecurityException("cannot build the CA certificate: " + e.getMessage(), e);
        }
    }

    /** The CA's certificate. */
    public X509Certificate caCertificate() {
        return ca.certificate();
    }

    /**
     * A server certificate: extended key usage serverAuth (and clientAuth, so a proxy can present it
     * when it connects out), the names as subjectAltName entries (IP addresses as iPAddress, other
     * names as dNSName), the first name as common name.
     */
    public Issued server(List<String> names) throws GeneralSecurityException {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a server certificate needs at least one name");
        }
        return issue(names.get(0), names, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth});
    }

    /** A client certificate ({@code CN=<name>}, extended key usage clientAuth), with optional subjectAltNames. */
    public Issued client(String name, List<String> names) throws GeneralSecurityException {
        return issue(name, names, new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth});
    }

    private Issued issue(String commonName, List<String> names, KeyPurposeId[] purposes) throws GeneralSecurityException {
        KeyPair keys = newKeyPair(keyType, rsaBits);
        Instant now = Instant.now();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            int usage = keyType == KeyType.RSA ? KeyUsage.digitalSignature | KeyUsage.keyEncipherment
                    : KeyUsage.digitalSignature | KeyUsage.keyAgreement;
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(), serial(),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(validity)),
                    new X500Name("CN=" + commonName), keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(usage))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            ext.createAuthorityKeyIdentifier(ca.certificate()));
            if (!names.isEmpty()) {
                b.addExtension(Extension.subjectAlternativeName, false, subjectAltNames(names));
            }
            return new Issued(sign(b, ca.keys(), keyType), keys);
        } catch (CertIOException e) {
            throw new GeneralSecurityException("cannot build the certificate of " + commonName + ": " + e.getMessage(), e);
        }
    }

    private static GeneralNames subjectAltNames(List<String> names) {
        GeneralName[] out = new GeneralName[names.size()];
        for (int i = 0; i < out.length; i++) {
            String n = names.get(i).trim();
            if (isIpLiteral(n)) {
                out[i] = new GeneralName(GeneralName.iPAddress, n.replace("[", "").replace("]", ""));
            } else if (DNS_NAME.matcher(n).matches()) {
                out[i] = new GeneralName(GeneralName.dNSName, n.toLowerCase(Locale.ROOT));
            } else {
                throw new IllegalArgumentException("\"" + n + "\" is neither an IP address nor a DNS name");
            }
        }
        return new GeneralNames(out);
    }

    /** Whether a name is an IPv4 or IPv6 literal (never resolved). */
    static boolean isIpLiteral(String name) {
        String n = name.replace("[", "").replace("]", "");
        if (n.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            return true;
        }
        if (!n.contains(":") || !n.matches("[0-9a-fA-F:.]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(n) != null;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer, KeyType type)
            throws GeneralSecurityException {
        try {
            String alg = type == KeyType.RSA ? "SHA256withRSA" : "SHA256withECDSA";
            return new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder(alg).build(signer.getPrivate())));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException("cannot sign: " + e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair(KeyType type, int rsaBits) throws GeneralSecurityException {
        if (type == KeyType.RSA) {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(rsaBits, RANDOM);
            return g.generateKeyPair();
        }
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }
}
