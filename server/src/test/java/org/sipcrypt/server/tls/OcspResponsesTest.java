package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.RevokingCa;
import org.sipcrypt.server.testing.TestOcspResponder;

/**
 * OCSP requests written and responses read and checked (RFC 6960): good and revoked believed when the
 * issuer or a delegated responder signed them; refused when another key signed them, the delegate
 * lacks id-kp-OCSPSigning, they are stale or from the future, about another certificate, or echo
 * another nonce.
 */
@Timeout(120)
class OcspResponsesTest {

    @TempDir
    static Path dir;

    static RevokingCa ca;
    static RevokingCa otherCa;
    static X509Certificate cert;
    static X509Certificate other;
    static X509Certificate delegate;
    static X509Certificate notForOcsp;
    static TestOcspResponder responder;

    @BeforeAll
    static void issue() throws Exception {
        ca = RevokingCa.create("OCSP test CA");
        otherCa = RevokingCa.create("another CA");
        cert = ca.client("peer", dir, "peer", URI.create("http://127.0.0.1:9/ocsp"));
        other = ca.client("other peer", dir, "other");
        delegate = ca.responder("OCSP responder", dir, "delegate", true);
        notForOcsp = ca.responder("not an OCSP responder", dir, "not-for-ocsp", false);
        // signs with the CA's key until a test says otherwise; never started as a server here
        responder = TestOcspResponder.start(ca.certificate(), ca.privateKey());
        responder.close();
    }

    private static OcspAnswer ask(X509Certificate about, byte[] nonce) throws Exception {
        byte[] response = responder.respond(OcspResponses.request(about, ca.certificate(), nonce));
        return OcspResponses.read(response, cert, ca.certificate(), nonce, Instant.now(), Duration.ofHours(1));
    }

    private static void resetResponder() {
        responder.signAs(ca.certificate(), ca.privateKey());
        responder.window(Duration.ofHours(1), Duration.ofMinutes(1));
    }

    @Test
    void theResponderIsReadFromAuthorityInfoAccess() {
        assertEquals(List.of(URI.create("http://127.0.0.1:9/ocsp")), OcspResponses.responders(cert));
        assertEquals(List.of(), OcspResponses.responders(other));
    }

    @Test
    void goodAndRevokedSignedByTheIssuerAreBelieved() throws Exception {
        resetResponder();
        OcspAnswer good = ask(cert, new byte[] {1, 2, 3});
        assertEquals(PeerRevocation.Result.GOOD, good.status(), good.toString());
        assertNotNull(good.nextUpdate());
        responder.revoke(cert);
        try {
            OcspAnswer revoked = ask(cert, null);
            assertEquals(PeerRevocation.Result.REVOKED, revoked.status(), revoked.toString());
            assertTrue(revoked.detail().contains("revoked at"), revoked.detail());
        } finally {
            // the other tests ask about the same certificate
            responder.reinstate(cert);
        }
    }

    @Test
    void aDelegatedResponderMustBeIssuedForOcspSigning() throws Exception {
        responder.signAs(delegate, key("delegate"), delegate);
        assertEquals(PeerRevocation.Result.GOOD, ask(cert, null).status());
        responder.signAs(notForOcsp, key("not-for-ocsp"), notForOcsp);
        OcspAnswer refused = ask(cert, null);
        assertEquals(OcspAnswer.Fetch.INVALID, refused.fetch());
        assertTrue(refused.detail().contains("id-kp-OCSPSigning"), refused.detail());
        resetResponder();
    }

    @Test
    void aResponseSignedByAnotherKeyIsRefused() throws Exception {
        responder.signAs(otherCa.certificate(), otherCa.privateKey());
        OcspAnswer refused = ask(cert, null);
        assertEquals(PeerRevocation.Result.ERROR, refused.status());
        assertTrue(refused.detail().startsWith("not signed by the certificate's issuer"), refused.detail());
        // the issuer's name with another key's signature
        responder.signAs(ca.certificate(), otherCa.privateKey());
        assertEquals(PeerRevocation.Result.ERROR, ask(cert, null).status());
        resetResponder();
    }

    @Test
    void staleAndFutureResponsesAreRefused() throws Exception {
        responder.window(Duration.ofMinutes(-10), Duration.ofHours(2));
        OcspAnswer stale = ask(cert, null);
        assertEquals(PeerRevocation.Result.ERROR, stale.status());
        assertTrue(stale.detail().startsWith("stale: nextUpdate"), stale.detail());
        responder.window(null, Duration.ofHours(3));
        assertTrue(ask(cert, null).detail().startsWith("stale: thisUpdate"));
        responder.window(null, Duration.ofMinutes(1));
        assertEquals(PeerRevocation.Result.GOOD, ask(cert, null).status(), "no nextUpdate, fresh: believed");
        responder.window(Duration.ofHours(2), Duration.ofMinutes(-30));
        assertTrue(ask(cert, null).detail().contains("in the future"));
        resetResponder();
    }

    @Test
    void anAnswerAboutAnotherCertificateOrNonceIsRefused() throws Exception {
        resetResponder();
        OcspAnswer a = ask(other, null);
        assertEquals(PeerRevocation.Result.ERROR, a.status());
        assertTrue(a.detail().startsWith("no answer about serial"), a.detail());
        byte[] response = responder.respond(OcspResponses.request(cert, ca.certificate(), new byte[] {7, 7}));
        OcspAnswer nonce = OcspResponses.read(response, cert, ca.certificate(), new byte[] {8, 8}, Instant.now(),
                Duration.ofHours(1));
        assertEquals("nonce differs from the request's", nonce.detail());
    }

    private static java.security.PrivateKey key(String file) throws Exception {
        return PemFiles.readPrivateKey(dir.resolve(file + "-key.pem"));
    }

    @Test
    void requestsCarryTheNonce() throws Exception {
        byte[] req = OcspResponses.request(cert, ca.certificate(), new byte[] {9, 9, 9});
        var parsed = new org.bouncycastle.cert.ocsp.OCSPReq(req);
        assertEquals(cert.getSerialNumber(), parsed.getRequestList()[0].getCertID().getSerialNumber());
        assertArrayEquals(new org.bouncycastle.asn1.DEROctetString(new byte[] {9, 9, 9}).getEncoded(),
                parsed.getExtension(org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers.id_pkix_ocsp_nonce)
                        .getExtnValue().getOctets());
    }
}
