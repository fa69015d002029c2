package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DigestAlgorithmTest {

    // RFC 7616 §3.9.1: the same request answered with MD5 and with SHA-256.
    private static final String RFC7616_REALM = "http-auth@example.org";
    private static final String RFC7616_NONCE = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v";
    private static final String RFC7616_CNONCE = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";

    @Test
    void rfc7616Md5ResponseMatchesTheRfc() {
        String ha1 = DigestAlgorithm.MD5.ha1("Mufasa", RFC7616_REALM, "Circle of Life");
        assertEquals("8ca523f5e9506fed4657c9700eebdbec", DigestAlgorithm.MD5.response(ha1, RFC7616_NONCE,
                "00000001", RFC7616_CNONCE, "auth", "GET", "/dir/index.html"));
    }

    @Test
    void rfc7616Sha256ResponseMatchesTheRfc() {
        String ha1 = DigestAlgorithm.SHA_256.ha1("Mufasa", RFC7616_REALM, "Circle of Life");
        assertEquals("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
                DigestAlgorithm.SHA_256.response(ha1, RFC7616_NONCE, "00000001", RFC7616_CNONCE, "auth",
                        "GET", "/dir/index.html"));
    }

    @Test
    void rfc2617QopAuthResponseMatchesTheRfc() {
        // RFC 2617 §3.5
        String ha1 = DigestAlgorithm.MD5.ha1("Mufasa", "testrealm@host.com", "Circle Of Life");
        assertEquals("6629fae49393a05397450978507c4ef1", DigestAlgorithm.MD5.response(ha1,
                "dcd98b7102dd2f0e8b11d0f600bfb0c093", "00000001", "0a4f113b", "auth", "GET", "/dir/index.html"));
    }

    @Test
    void legacyNoQopResponseIsHashOfHa1NonceHa2() {
        // RFC 2069 §2.1.2 example inputs. The RFC's printed response is a known erratum; the
        // expected values here were computed with Python's hashlib, independently of this code.
        DigestAlgorithm md5 = DigestAlgorithm.MD5;
        String ha1 = md5.ha1("Mufasa", "testrealm@host.com", "CircleOfLife");
        assertEquals("4945ecf42b1bb868634058a845bedde8", ha1);
        assertEquals("1949323746fe6a43ef61f9606e7febea",
                md5.response(ha1, "dcd98b7102dd2f0e8b11d0f600bfb0c093", null, null, null, "GET", "/dir/index.html"));
    }

    @Test
    void algorithmTokensAreCaseInsensitiveAndMissingMeansMd5() {
        assertEquals(DigestAlgorithm.MD5, DigestAlgorithm.fromToken(null));
        assertEquals(DigestAlgorithm.SHA_256, DigestAlgorithm.fromToken("sha-256"));
        assertEquals(DigestAlgorithm.MD5, DigestAlgorithm.fromToken("MD5"));
        assertNull(DigestAlgorithm.fromToken("SHA-512-256"));
        assertNull(DigestAlgorithm.fromToken("MD5-sess"));
    }

    @Test
    void digestComparisonIgnoresHexCaseOnly() {
        assertTrue(DigestAlgorithm.sameDigest("8ca523f5e9506fed4657c9700eebdbec", "8CA523F5E9506FED4657C9700EEBDBEC"));
        assertFalse(DigestAlgorithm.sameDigest("8ca523f5e9506fed4657c9700eebdbec", "8ca523f5e9506fed4657c9700eebdbed"));
        assertFalse(DigestAlgorithm.sameDigest("8ca523f5e9506fed4657c9700eebdbec", "8ca523f5"));
    }
}
