package org.sipcrypt.server.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers;
import org.bouncycastle.asn1.x509.AccessDescription;
import org.bouncycastle.asn1.x509.AuthorityInformationAccess;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.X509ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.OCSPReqBuilder;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.cert.ocsp.SingleResp;
import org.bouncycastle.cert.ocsp.UnknownStatus;
import org.bouncycastle.operator.DigestCalculatorProvider;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * Writes OCSP requests and reads OCSP responses (RFC 6960) with Bouncy Castle's {@code bcpkix}: a
 * request for one certificate (SHA-1 CertID, §4.1.1; a nonce, RFC 8954), and the checks a response
 * must pass before its status is believed (§3.2): status {@code successful} with a basic response;
 * signed by the certificate's issuer or by a responder certificate the issuer signed for
 * {@code id-kp-OCSPSigning} and valid now (§4.2.2.2), named by the response's ResponderID; a
 * SingleResponse about this certificate (issuer name and key hashes, serial, in any hash); thisUpdate
 * not in the future and nextUpdate not in the past (each within {@link #CLOCK_SKEW}), or, without
 * nextUpdate, thisUpdate no older than the caller's {@code maxAge}; the nonce echoed when one is.
 * Anything else, malformed bytes included, answers {@code ERROR} and never throws.
 * Threading: stateless; thread-safe; never blocks.
 */
public final class OcspResponses {

    /** How far the responder's clock may be from ours. */
    public static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    private static final DigestCalculatorProvider DIGESTS = digests();

    private OcspResponses() {
    }

    private static DigestCalculatorProvider digests() {
        try {
            return new JcaDigestCalculatorProviderBuilder().build();
        } catch (org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException("this JVM has no message digests", e);
        }
    }

    /** The OCSP request (DER) for {@code cert}, issued by {@code issuer}, carrying {@code nonce} when not null. */
    public static byte[] request(X509Certificate cert, X509Certificate issuer, byte[] nonce) throws IOException {
        try {
            CertificateID id = new CertificateID(DIGESTS.get(CertificateID.HASH_SHA1), new JcaX509CertificateHolder(issuer),
                    cert.getSerialNumber());
            OCSPReqBuilder b = new OCSPReqBuilder().addRequest(id);
            if (nonce != null) {
                // extnValue holds the DER OCTET STRING of the nonce (RFC 8954 §2.1)
                b.setRequestExtensions(new Extensions(new Extension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce, false,
                        new DEROctetString(new DEROctetString(nonce).getEncoded()))));
            }
            return b.build().getEncoded();
        } catch (Exception e) {
            throw new IOException("cannot write an OCSP request for " + cert.getSubjectX500Principal().getName()
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * The OCSP responders {@code cert}'s authorityInfoAccess extension names (RFC 5280 §4.2.2.1,
     * {@code id-ad-ocsp}), http and https only, in its order; empty when it names none.
     */
    public static List<java.net.URI> responders(X509Certificate cert) {
        List<java.net.URI> out = new ArrayList<>();
        try {
            AuthorityInformationAccess aia = AuthorityInformationAccess.fromExtensions(
                    new JcaX509CertificateHolder(cert).getExtensions());
            if (aia == null) {
                return out;
            }
            for (AccessDescription d : aia.getAccessDescriptions()) {
                GeneralName n = d.getAccessLocation();
                if (d.getAccessMethod().equals(X509ObjectIdentifiers.id_ad_ocsp)
                        && n.getTagNo() == GeneralName.uniformResourceIdentifier) {
                    java.net.URI u = java.net.URI.create(n.getName().toString());
                    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(java.util.Locale.ROOT);
                    if ((scheme.equals("http") || scheme.equals("https")) && u.getHost() != null) {
                        out.add(u);
                    }
                }
            }
        } catch (Exception e) {
            // a malformed extension names no responder we could ask: the status is then unknown
            return out;
        }
        return out;
    }

    /**
     * What the OCSP response {@code der} says of {@code cert}, after every check of the class comment.
     *
     * @param nonce  the nonce the request carried, or null
     * @param maxAge how old thisUpdate may be in a response without nextUpdate
     */
    public static OcspAnswer read(byte[] der, X509Certificate cert, X509Certificate issuer, byte[] nonce,
                                  Instant now, Duration maxAge) {
        try {
            return check(der, cert, issuer, nonce, now, maxAge);
        } catch (Exception | StackOverflowError e) {
            // Bouncy Castle's ASN.1 reader answers some malformed input with runtime exceptions of its own
            return OcspAnswer.error(OcspAnswer.Fetch.INVALID, "malformed response: " + e);
        }
    }

    private static OcspAnswer check(byte[] der, X509Certificate cert, X509Certificate issuer, byte[] nonce,
                                    Instant now, Duration maxAge) throws Exception {
        OCSPResp resp = new OCSPResp(der);
        if (resp.getStatus() != OCSPResp.SUCCESSFUL) {
            return invalid("responder status " + resp.getStatus() + " (RFC 6960 §4.2.1: not successful)");
        }
        if (!(resp.getResponseObject() instanceof BasicOCSPResp basic)) {
            return invalid("not a basic OCSP response");
        }
        X509CertificateHolder issuerHolder = new JcaX509CertificateHolder(issuer);
        String signer = signer(basic, issuerHolder, issuer, now);
        if (signer != null) {
            return invalid(signer);
        }
        if (nonce != null) {
            Extension echoed = basic.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce);
            if (echoed != null && !java.util.Arrays.equals(echoed.getExtnValue().getOctets(),
                    new DEROctetString(nonce).getEncoded())) {
                return invalid("nonce differs from the request's");
            }
        }
        BigInteger serial = cert.getSerialNumber();
        for (SingleResp single : basic.getResponses()) {
            CertificateID id = single.getCertID();
            if (!id.getSerialNumber().equals(serial) || !id.matchesIssuer(issuerHolder, DIGESTS)) {
                continue;
            }
            Instant thisUpdate = single.getThisUpdate().toInstant();
            Instant nextUpdate = single.getNextUpdate() == null ? null : single.getNextUpdate().toInstant();
            if (thisUpdate.isAfter(now.plus(CLOCK_SKEW))) {
                return invalid("thisUpdate " + thisUpdate + " is in the future");
            }
            if (nextUpdate != null && nextUpdate.isBefore(now.minus(CLOCK_SKEW))) {
                return invalid("stale: nextUpdate " + nextUpdate + " has passed");
            }
            if (nextUpdate == null && thisUpdate.isBefore(now.minus(maxAge).minus(CLOCK_SKEW))) {
                return invalid("stale: thisUpdate " + thisUpdate + " is older than " + maxAge + " and no nextUpdate");
            }
            CertificateStatus status = single.getCertStatus();
            if (status == CertificateStatus.GOOD) {
                return new OcspAnswer(PeerRevocation.Result.GOOD, thisUpdate, nextUpdate, "good at " + thisUpdate,
                        OcspAnswer.Fetch.GOOD);
            }
            if (status instanceof RevokedStatus r) {
                String reason = r.hasRevocationReason() ? ", reason " + r.getRevocationReason() : "";
                return new OcspAnswer(PeerRevocation.Result.REVOKED, thisUpdate, nextUpdate,
                        "revoked at " + r.getRevocationTime().toInstant() + reason, OcspAnswer.Fetch.REVOKED);
            }
            if (status instanceof UnknownStatus) {
                return new OcspAnswer(PeerRevocation.Result.UNKNOWN, thisUpdate, nextUpdate,
                        "the responder does not know it", OcspAnswer.Fetch.UNKNOWN);
            }
            return invalid("certificate status of an unknown kind");
        }
        return invalid("no answer about serial " + serial.toString(16));
    }

    /**
     * Null when {@code basic} is signed by the issuer or by a delegated responder (RFC 6960 §4.2.2.2)
     * that its ResponderID names; else what is wrong.
     */
    private static String signer(BasicOCSPResp basic, X509CertificateHolder issuerHolder, X509Certificate issuer,
                                 Instant now) throws Exception {
        RespID byIssuer = new RespID(issuerHolder.getSubjectPublicKeyInfo(), DIGESTS.get(RespID.HASH_SHA1));
        RespID issuerByName = new RespID(issuerHolder.getSubject());
        RespID named = basic.getResponderId();
        if ((named.equals(byIssuer) || named.equals(issuerByName))
                && basic.isSignatureValid(new JcaContentVerifierProviderBuilder().build(issuer.getPublicKey()))) {
            return null;
        }
        for (X509CertificateHolder c : basic.getCerts()) {
            RespID byKey = new RespID(c.getSubjectPublicKeyInfo(), DIGESTS.get(RespID.HASH_SHA1));
            RespID byName = new RespID(c.getSubject());
            if (!named.equals(byKey) && !named.equals(byName)) {
                continue;
            }
            if (!c.getIssuer().equals(issuerHolder.getSubject())
                    || !c.isSignatureValid(new JcaContentVerifierProviderBuilder().build(issuer.getPublicKey()))) {
                return "the responder's certificate " + c.getSubject() + " was not issued by the certificate's issuer";
            }
            ExtendedKeyUsage eku = ExtendedKeyUsage.fromExtensions(c.getExtensions());
            if (eku == null || !eku.hasKeyPurposeId(KeyPurposeId.id_kp_OCSPSigning)) {
                return "the responder's certificate " + c.getSubject() + " is not for OCSP signing (id-kp-OCSPSigning)";
            }
            if (!c.isValidOn(Date.from(now))) {
                return "the responder's certificate " + c.getSubject() + " is not valid now";
            }
            if (basic.isSignatureValid(new JcaContentVerifierProviderBuilder().build(c))) {
                return null;
            }
            return "the signature does not verify with the responder's certificate " + c.getSubject();
        }
        return "not signed by the certificate's issuer nor by a responder it delegated to";
    }

    private static OcspAnswer invalid(String why) {
        return OcspAnswer.error(OcspAnswer.Fetch.INVALID, why);
    }
}
