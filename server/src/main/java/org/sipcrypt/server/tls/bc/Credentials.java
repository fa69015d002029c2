package org.sipcrypt.server.tls.bc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.util.Vector;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateEntry;
import org.bouncycastle.tls.HashAlgorithm;
import org.bouncycastle.tls.KeyExchangeAlgorithm;
import org.bouncycastle.tls.SignatureAlgorithm;
import org.bouncycastle.tls.SignatureAndHashAlgorithm;
import org.bouncycastle.tls.TlsContext;
import org.bouncycastle.tls.TlsCredentialedDecryptor;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCertificate;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.jcajce.JceDefaultTlsCredentialedDecryptor;

/**
 * Conversions between the JDK's X.509 certificates and Bouncy Castle's TLS certificate messages,
 * the suites a key can serve, the choice of signature scheme for an RSA or EC key, and the
 * credentials built from them.
 * Threading: stateless.
 */
final class Credentials {

    /** RSA schemes in preference order; the PKCS#1 v1.5 ones are not allowed in TLS 1.3 handshakes. */
    private static final SignatureAndHashAlgorithm[] RSA_SCHEMES = {
        SignatureAndHashAlgorithm.rsa_pss_rsae_sha256,
        SignatureAndHashAlgorithm.rsa_pss_rsae_sha384,
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha256, SignatureAlgorithm.rsa),
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha384, SignatureAlgorithm.rsa),
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha1, SignatureAlgorithm.rsa),
    };

    /** ECDSA schemes for TLS 1.2, in preference order; TLS 1.3 takes only the one of the key's curve. */
    private static final SignatureAndHashAlgorithm[] ECDSA_SCHEMES = {
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha256, SignatureAlgorithm.ecdsa),
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha384, SignatureAlgorithm.ecdsa),
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha512, SignatureAlgorithm.ecdsa),
        SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha1, SignatureAlgorithm.ecdsa),
    };

    private Credentials() {
    }

    /** Whether {@code key} is an EC (ECDSA) key rather than an RSA one. */
    static boolean isEc(PrivateKey key) {
        return key instanceof ECPrivateKey || key.getAlgorithm().equals("EC") || key.getAlgorithm().equals("ECDSA");
    }

    /**
     * The suites of {@code suites} a server with {@code key} can serve, in order: TLS 1.3 suites
     * (authentication is chosen apart from the suite there), and TLS 1.2 suites whose key exchange
     * is authenticated by that kind of key.
     */
    static int[] servable(int[] suites, PrivateKey key) {
        boolean ec = isEc(key);
        return java.util.Arrays.stream(suites).filter(s -> {
            int kx = TlsUtils.getKeyExchangeAlgorithm(s);
            if (kx == KeyExchangeAlgorithm.NULL) {
                return true;
            }
            return ec ? kx == KeyExchangeAlgorithm.ECDHE_ECDSA
                    : kx == KeyExchangeAlgorithm.RSA || kx == KeyExchangeAlgorithm.ECDHE_RSA
                    || kx == KeyExchangeAlgorithm.DHE_RSA;
        }).toArray();
    }

    /**
     * The TLS 1.3 scheme of an EC key (RFC 8446 §4.2.3 ties each ECDSA scheme to one curve):
     * ecdsa_secp256r1_sha256, ecdsa_secp384r1_sha384 or ecdsa_secp521r1_sha512, by the curve's size.
     */
    private static SignatureAndHashAlgorithm tls13EcdsaScheme(PrivateKey key) throws IOException {
        int bits = key instanceof ECPrivateKey ec ? ec.getParams().getCurve().getField().getFieldSize() : 256;
        short hash = switch (bits) {
            case 256 -> HashAlgorithm.sha256;
            case 384 -> HashAlgorithm.sha384;
            case 521 -> HashAlgorithm.sha512;
            default -> throw new TlsFatalAlert(AlertDescription.internal_error, "no TLS 1.3 scheme for a " + bits
                    + "-bit EC key (expected P-256, P-384 or P-521)");
        };
        return SignatureAndHashAlgorithm.getInstance(hash, SignatureAlgorithm.ecdsa);
    }

    /** A chain in Bouncy Castle's form, end entity first. */
    static TlsCertificate[] tlsCertificates(org.bouncycastle.tls.crypto.TlsCrypto crypto, X509Certificate[] chain)
            throws IOException {
        TlsCertificate[] certs = new TlsCertificate[chain.length];
        try {
            for (int i = 0; i < chain.length; i++) {
                certs[i] = crypto.createCertificate(chain[i].getEncoded());
            }
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IOException("cannot encode a certificate: " + e.getMessage(), e);
        }
        return certs;
    }

    /** The certificate message for our chain; TLS 1.3 carries the request context (empty for a server). */
    static Certificate certificate(TlsContext context, TlsCertificate[] certs, byte[] requestContext) {
        if (!TlsUtils.isTLSv13(context)) {
            return new Certificate(certs);
        }
        CertificateEntry[] entries = new CertificateEntry[certs.length];
        for (int i = 0; i < certs.length; i++) {
            entries[i] = new CertificateEntry(certs[i], null);
        }
        return new Certificate(requestContext == null ? TlsUtils.EMPTY_BYTES : requestContext, entries);
    }

    /** The peer's chain as JDK certificates, end entity first. */
    static X509Certificate[] x509(Certificate certificate) throws IOException {
        X509Certificate[] out = new X509Certificate[certificate.getLength()];
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (int i = 0; i < out.length; i++) {
                out[i] = (X509Certificate) cf.generateCertificate(
                        new ByteArrayInputStream(certificate.getCertificateAt(i).getEncoded()));
            }
        } catch (CertificateException e) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "unreadable peer certificate", e);
        }
        return out;
    }

    /** The signer credentials for the RSA or EC key, with a scheme the peer offered. */
    static TlsCredentialedSigner signer(TlsContext context, BcTlsSetup setup, BcTlsSetup.Served served,
                                        Vector<?> peerSchemes, byte[] requestContext) throws IOException {
        boolean tls13 = TlsUtils.isTLSv13(context);
        boolean ec = isEc(served.key());
        SignatureAndHashAlgorithm scheme = null;
        if (peerSchemes == null) {
            if (tls13) {
                throw new TlsFatalAlert(AlertDescription.handshake_failure, "peer offered no signature scheme");
            }
            scheme = TlsUtils.getDefaultSignatureAlgorithm(ec ? SignatureAlgorithm.ecdsa : SignatureAlgorithm.rsa);
        } else {
            SignatureAndHashAlgorithm[] ours = !ec ? RSA_SCHEMES
                    : tls13 ? new SignatureAndHashAlgorithm[] {tls13EcdsaScheme(served.key())} : ECDSA_SCHEMES;
            for (SignatureAndHashAlgorithm s : ours) {
                boolean pkcs1 = s.getSignature() == SignatureAlgorithm.rsa;
                if (scheme == null && peerSchemes.contains(s) && !(tls13 && pkcs1)) {
                    scheme = s;
                }
            }
            if (scheme == null) {
                throw new TlsFatalAlert(AlertDescription.handshake_failure, "no " + (ec ? "ECDSA" : "RSA")
                        + " signature scheme in common with the peer");
            }
        }
        return new JcaDefaultTlsCredentialedSigner(new TlsCryptoParameters(context), setup.crypto, served.key(),
                certificate(context, served.tlsChain(), requestContext), scheme);
    }

    /** The decryptor credentials of RSA key exchange. */
    static TlsCredentialedDecryptor decryptor(TlsContext context, BcTlsSetup setup, BcTlsSetup.Served served)
            throws IOException {
        return new JceDefaultTlsCredentialedDecryptor(setup.crypto, certificate(context, served.tlsChain(), null),
                served.key());
    }
}
