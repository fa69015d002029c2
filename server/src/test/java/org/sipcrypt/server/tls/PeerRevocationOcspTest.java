package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.RevokingCa;
import org.sipcrypt.server.testing.TestOcspResponder;

/**
 * Revocation checks by OCSP against a responder the test runs on 127.0.0.1: the responder a
 * certificate names, or {@code tls.ocspResponder}; good accepted and revoked refused once the answer
 * is cached (the check never waits: before that the status is unknown); a responder that is down
 * leaves the status unknown, accepted under soft and refused under hard failure; with {@code both},
 * the CRLs decide while OCSP has no answer.
 */
@Timeout(60)
class PeerRevocationOcspTest {

    @TempDir
    static Path dir;

    static RevokingCa ca;
    static TestOcspResponder responder;
    static X509Certificate good;
    static X509Certificate revoked;
    static X509Certificate unnamed;

    @BeforeAll
    static void issue() throws Exception {
        ca = RevokingCa.create("OCSP peer CA");
        responder = TestOcspResponder.start(ca.certificate(), ca.privateKey());
        good = ca.client("good", dir, "good", responder.url());
        revoked = ca.client("revoked", dir, "revoked", responder.url());
        unnamed = ca.client("no responder named", dir, "unnamed");
        responder.revoke(revoked);
    }

    @AfterAll
    static void stop() {
        responder.close();
    }

    private static TlsConfig config(TlsConfig.Revocation mode, TlsConfig.RevocationFailure failure, URI override,
                                    Path crl) {
        return TlsConfig.defaults().toBuilder().revocation(mode).revocationFailure(failure).ocspResponder(override)
                .crl(crl == null ? List.of() : List.of(crl)).build();
    }

    private static OcspClient client(URI override) {
        return new OcspClient(override, Duration.ofSeconds(5), Duration.ofHours(1), Clock.systemUTC());
    }

    private static X509ExtendedTrustManager trust(PeerRevocation r) throws Exception {
        return PeerTrust.pkix(List.of(ca.certificate()), r);
    }

    /** Checks {@code cert} until the check no longer says its status is unknown; the last outcome. */
    private static CertificateException settled(X509ExtendedTrustManager tm, X509Certificate cert) {
        CertificateException[] last = new CertificateException[1];
        Await.until(() -> {
            try {
                tm.checkClientTrusted(new X509Certificate[] {cert}, "RSA");
                last[0] = null;
                return true;
            } catch (CertificateException e) {
                last[0] = e;
                return !e.getMessage().contains("unknown");
            }
        }, Duration.ofSeconds(20), () -> "the OCSP answer about " + cert.getSubjectX500Principal() + " arrives");
        return last[0];
    }

    @Test
    void goodIsAcceptedAndRevokedRefusedOnceAnswered() throws Exception {
        try (OcspClient ocsp = client(null)) {
            PeerRevocation r = PeerRevocation.of(config(TlsConfig.Revocation.OCSP, TlsConfig.RevocationFailure.HARD,
                    null, null), ocsp);
            X509ExtendedTrustManager tm = trust(r);
            CertificateException first = assertThrows(CertificateException.class,
                    () -> tm.checkClientTrusted(new X509Certificate[] {good}, "RSA"));
            assertTrue(first.getMessage().contains("no answer yet, being fetched"), first.getMessage());
            assertEquals(null, settled(tm, good));
            assertTrue(settled(tm, revoked) instanceof RevokedCertificateException);
            assertTrue(r.count(PeerRevocation.Result.GOOD) >= 1);
            assertTrue(r.count(PeerRevocation.Result.REVOKED) >= 1);
            int asked = responder.requests();
            tm.checkClientTrusted(new X509Certificate[] {good}, "RSA");
            assertEquals(asked, responder.requests(), "answered from the cache");
            assertEquals(1, ocsp.fetches(OcspAnswer.Fetch.GOOD));
            assertEquals(1, ocsp.fetches(OcspAnswer.Fetch.REVOKED));
        }
    }

    @Test
    void theConfiguredResponderIsAskedAboutEveryCertificate() throws Exception {
        try (OcspClient ocsp = client(responder.url())) {
            X509ExtendedTrustManager tm = trust(PeerRevocation.of(config(TlsConfig.Revocation.OCSP,
                    TlsConfig.RevocationFailure.HARD, responder.url(), null), ocsp));
            assertEquals(null, settled(tm, unnamed));
        }
        try (OcspClient ocsp = client(null)) {
            PeerRevocation r = PeerRevocation.of(config(TlsConfig.Revocation.OCSP, TlsConfig.RevocationFailure.HARD,
                    null, null), ocsp);
            // nothing to fetch: known at once
            CertificateException e = assertThrows(CertificateException.class,
                    () -> trust(r).checkClientTrusted(new X509Certificate[] {unnamed}, "RSA"));
            assertTrue(e.getMessage().contains("no OCSP responder"), e.getMessage());
        }
    }

    @Test
    void aResponderThatIsDownLeavesTheStatusUnknown() throws Exception {
        URI down;
        try (TestOcspResponder gone = TestOcspResponder.start(ca.certificate(), ca.privateKey())) {
            down = gone.url();
        }
        try (OcspClient ocsp = client(down)) {
            PeerRevocation soft = PeerRevocation.of(config(TlsConfig.Revocation.OCSP, TlsConfig.RevocationFailure.SOFT,
                    down, null), ocsp);
            X509ExtendedTrustManager tm = trust(soft);
            tm.checkClientTrusted(new X509Certificate[] {revoked}, "RSA");
            Await.until(() -> ocsp.fetches(OcspAnswer.Fetch.FAILED) == 1, Duration.ofSeconds(20), () -> "the fetch fails");
            tm.checkClientTrusted(new X509Certificate[] {revoked}, "RSA");
            assertEquals(2, soft.count(PeerRevocation.Result.UNKNOWN));
            assertEquals(1, ocsp.fetches(OcspAnswer.Fetch.FAILED), "a failure is remembered, not fetched again at once");
            PeerRevocation hard = PeerRevocation.of(config(TlsConfig.Revocation.OCSP, TlsConfig.RevocationFailure.HARD,
                    down, null), ocsp);
            CertificateException e = assertThrows(CertificateException.class,
                    () -> trust(hard).checkClientTrusted(new X509Certificate[] {good}, "RSA"));
            assertTrue(e.getMessage().contains("tls.revocationFailure=hard"), e.getMessage());
            assertEquals(1, hard.count(PeerRevocation.Result.UNKNOWN));
        }
    }

    @Test
    void bothFallsBackToTheListsWhileOcspHasNoAnswer() throws Exception {
        Path crl = dir.resolve("both.crl");
        RevokingCa.writePem(crl, ca.crl(List.of(revoked), Duration.ofHours(1)));
        URI down;
        try (TestOcspResponder gone = TestOcspResponder.start(ca.certificate(), ca.privateKey())) {
            down = gone.url();
        }
        try (OcspClient ocsp = client(down)) {
            PeerRevocation r = PeerRevocation.of(config(TlsConfig.Revocation.BOTH, TlsConfig.RevocationFailure.HARD,
                    down, crl), ocsp);
            X509ExtendedTrustManager tm = trust(r);
            tm.checkClientTrusted(new X509Certificate[] {good}, "RSA");
            assertThrows(RevokedCertificateException.class,
                    () -> tm.checkClientTrusted(new X509Certificate[] {revoked}, "RSA"));
            assertEquals(1, r.count(PeerRevocation.Result.GOOD));
            assertEquals(1, r.count(PeerRevocation.Result.REVOKED));
        }
    }
}
