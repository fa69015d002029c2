package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.testing.RevokingCa;

/**
 * Revocation checks by CRL through the JDK's PKIX validator, on certificates a test CA issues:
 * good, revoked, not covered by any list (soft and hard failure), the lists reloaded whole or
 * not at all, and a reloaded trust file still followed by the revocation checks.
 */
@Timeout(60)
class PeerRevocationTest {

    @TempDir
    static Path dir;

    static RevokingCa ca;
    static RevokingCa otherCa;
    static X509Certificate good;
    static X509Certificate revoked;
    static X509Certificate foreign;

    @BeforeAll
    static void issue() throws Exception {
        ca = RevokingCa.create("revocation test CA");
        otherCa = RevokingCa.create("CA without a list");
        good = ca.client("good", dir, "good");
        revoked = ca.client("revoked", dir, "revoked");
        foreign = otherCa.client("foreign", dir, "foreign");
    }

    private static TlsConfig config(Path crl, TlsConfig.RevocationFailure failure) {
        return TlsConfig.defaults().toBuilder().crl(List.of(crl)).revocation(TlsConfig.Revocation.CRL)
                .revocationFailure(failure).build();
    }

    private static Path crlFile(String name, List<X509Certificate> listed, Duration nextUpdate) throws Exception {
        Path f = dir.resolve(name);
        RevokingCa.writePem(f, ca.crl(listed, nextUpdate));
        return f;
    }

    private static X509ExtendedTrustManager trust(PeerRevocation r, RevokingCa... anchors) throws Exception {
        return PeerTrust.pkix(java.util.Arrays.stream(anchors).map(RevokingCa::certificate).toList(), r);
    }

    @Test
    void revokedIsRefusedAndGoodAccepted() throws Exception {
        PeerRevocation r = PeerRevocation.of(config(crlFile("one.crl", List.of(revoked), Duration.ofHours(1)),
                TlsConfig.RevocationFailure.HARD));
        X509ExtendedTrustManager tm = trust(r, ca);
        tm.checkClientTrusted(new X509Certificate[] {good}, "RSA");
        tm.checkClientTrusted(new X509Certificate[] {good, ca.certificate()}, "RSA");
        CertificateException e = assertThrows(RevokedCertificateException.class,
                () -> tm.checkClientTrusted(new X509Certificate[] {revoked}, "RSA"));
        assertTrue(e.getMessage().contains("CN=revoked") && e.getMessage().contains("revoked"), e.getMessage());
        assertEquals(2, r.count(PeerRevocation.Result.GOOD));
        assertEquals(1, r.count(PeerRevocation.Result.REVOKED));
    }

    @Test
    void unknownStatusIsAcceptedUnderSoftAndRefusedUnderHard() throws Exception {
        // an expired list covers nothing: the status of every certificate of its issuer is unknown
        Path expired = crlFile("expired.crl", List.of(), Duration.ofMinutes(-30));
        PeerRevocation soft = PeerRevocation.of(config(expired, TlsConfig.RevocationFailure.SOFT));
        trust(soft, ca).checkClientTrusted(new X509Certificate[] {good}, "RSA");
        assertEquals(1, soft.count(PeerRevocation.Result.UNKNOWN));
        PeerRevocation hard = PeerRevocation.of(config(expired, TlsConfig.RevocationFailure.HARD));
        CertificateException e = assertThrows(CertificateException.class,
                () -> trust(hard, ca).checkClientTrusted(new X509Certificate[] {good}, "RSA"));
        assertFalse(e instanceof RevokedCertificateException);
        assertTrue(e.getMessage().contains("unknown"), e.getMessage());
        assertEquals(1, hard.count(PeerRevocation.Result.UNKNOWN));
        // an issuer with no list at all
        PeerRevocation hardCurrent = PeerRevocation.of(config(crlFile("current.crl", List.of(), Duration.ofHours(1)),
                TlsConfig.RevocationFailure.HARD));
        assertThrows(CertificateException.class,
                () -> trust(hardCurrent, ca, otherCa).checkClientTrusted(new X509Certificate[] {foreign}, "RSA"));
        assertEquals(1, hardCurrent.count(PeerRevocation.Result.UNKNOWN));
    }

    @Test
    void listsAreReloadedWholeOrNotAtAll() throws Exception {
        Path f = crlFile("reloaded.crl", List.of(), Duration.ofHours(1));
        PeerRevocation r = PeerRevocation.of(config(f, TlsConfig.RevocationFailure.HARD));
        X509ExtendedTrustManager tm = trust(r, ca);
        tm.checkClientTrusted(new X509Certificate[] {good}, "RSA");
        RevokingCa.writePem(f, ca.crl(List.of(good), Duration.ofHours(1)));
        r.reload();
        assertThrows(RevokedCertificateException.class, () -> tm.checkClientTrusted(new X509Certificate[] {good}, "RSA"));
        Files.writeString(f, "-----BEGIN X509 CRL-----\nbm90IGEgQ1JM\n-----END X509 CRL-----\n");
        java.io.IOException bad = assertThrows(java.io.IOException.class, r::reload);
        assertTrue(bad.getMessage().startsWith("tls.crl \"" + f + "\": "), bad.getMessage());
        // the lists read before still hold
        assertThrows(RevokedCertificateException.class, () -> tm.checkClientTrusted(new X509Certificate[] {good}, "RSA"));
    }

    @Test
    void aReloadedTrustFileIsStillCheckedForRevocation() throws Exception {
        PeerRevocation r = PeerRevocation.of(config(crlFile("trust-reload.crl", List.of(revoked), Duration.ofHours(1)),
                TlsConfig.RevocationFailure.HARD));
        Path anchors = dir.resolve("trust-reload.pem");
        otherCa.writeCertificate(anchors);
        PeerTrust trust = PeerTrust.read(anchors, r);
        // not an anchor yet: refused by the chain check, before any revocation check
        CertificateException untrusted = assertThrows(CertificateException.class,
                () -> trust.checkClientTrusted(new X509Certificate[] {good}, "RSA"));
        assertFalse(untrusted instanceof RevokedCertificateException);
        // replaced whole, as an operator does: a new file moved over the old one
        Path next = dir.resolve("trust-reload.pem.new");
        ca.writeCertificate(next);
        Files.move(next, anchors, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals(List.of(ca.certificate().getSubjectX500Principal().getName()), trust.reload());
        trust.checkClientTrusted(new X509Certificate[] {good}, "RSA");
        assertThrows(RevokedCertificateException.class,
                () -> trust.checkClientTrusted(new X509Certificate[] {revoked}, "RSA"));
        assertThrows(RevokedCertificateException.class,
                () -> trust.pkix().checkClientTrusted(new X509Certificate[] {revoked}, "RSA"));
        assertEquals(1, r.count(PeerRevocation.Result.GOOD));
        assertEquals(2, r.count(PeerRevocation.Result.REVOKED));
    }

    @Test
    void offChecksNothing() throws Exception {
        assertFalse(PeerRevocation.of(TlsConfig.defaults()).enabled());
        PeerRevocation.OFF.check(new X509Certificate[] {revoked}, java.util.Set.of());
        assertEquals(0, PeerRevocation.OFF.count(PeerRevocation.Result.GOOD));
    }
}
