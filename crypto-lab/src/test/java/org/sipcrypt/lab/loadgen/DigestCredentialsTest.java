package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.loadgen.DigestCredentials.Challenge;
import org.sipcrypt.server.config.DigestAlgorithm;

/** The UAC's digest computation against RFC 7616's examples, and the choice among challenges. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DigestCredentialsTest {

    /** RFC 7616 §3.9.1: the same request answered with MD5 and with SHA-256. */
    private static final String REALM = "http-auth@example.org";
    private static final String NONCE = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v";
    private static final String CNONCE = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";
    private static final String OPAQUE = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS";
    private static final Credential MUFASA = new Credential("Mufasa", "Circle of Life");

    @ParameterizedTest(name = "{0}")
    @CsvSource({"MD5, 8ca523f5e9506fed4657c9700eebdbec",
        "SHA-256, 753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"})
    void theResponseIsTheOneOfRfc7616Section391(String algorithm, String expected) {
        DigestAlgorithm a = DigestAlgorithm.fromToken(algorithm);
        String ha1 = a.ha1("Mufasa", REALM, "Circle of Life");
        assertEquals(expected, a.response(ha1, NONCE, "00000001", CNONCE, "auth", "GET",
                "/dir/index.html"));
        Challenge c = DigestCredentials.parse("Digest realm=\"" + REALM + "\", qop=\"auth, auth-int\", algorithm="
                + algorithm + ", nonce=\"" + NONCE + "\", opaque=\"" + OPAQUE + "\"").get(0);
        assertTrue(c.answerable());
        String header = DigestCredentials.authorization(c, MUFASA, "GET", "/dir/index.html", CNONCE);
        Challenge answer = DigestCredentials.parse(header).get(0);
        assertEquals("Mufasa", answer.params().get("username"));
        assertEquals(REALM, answer.realm());
        assertEquals(NONCE, answer.nonce());
        assertEquals("/dir/index.html", answer.params().get("uri"));
        assertEquals(expected, answer.params().get("response"));
        assertEquals(algorithm, answer.params().get("algorithm"));
        assertEquals(CNONCE, answer.params().get("cnonce"));
        assertEquals("auth", answer.params().get("qop"));
        assertEquals("00000001", answer.params().get("nc"));
        assertEquals(OPAQUE, answer.opaque());
        assertTrue(header.contains("qop=auth,") && header.contains("nc=00000001"), "qop and nc unquoted: " + header);
    }

    @Test
    void withoutQopTheAnswerIsTheRfc2069Form() {
        Challenge c = DigestCredentials.parse("Digest realm=\"sipcrypt\",nonce=\"abc\"").get(0);
        assertEquals(DigestAlgorithm.MD5, c.algorithm(), "no algorithm means MD5");
        String header = DigestCredentials.authorization(c, new Credential("user1", "pass1"), "REGISTER",
                "sip:127.0.0.1", "ignored");
        Challenge answer = DigestCredentials.parse(header).get(0);
        String ha1 = DigestAlgorithm.MD5.hash("user1", "sipcrypt", "pass1");
        String ha2 = DigestAlgorithm.MD5.hash("REGISTER", "sip:127.0.0.1");
        assertEquals(DigestAlgorithm.MD5.hash(ha1, "abc", ha2), answer.params().get("response"));
        assertFalse(answer.params().containsKey("qop") || answer.params().containsKey("nc")
                || answer.params().containsKey("cnonce"), header);
    }

    @Test
    void sha256IsChosenWhenOfferedElseTheFirstSupportedChallenge() {
        String md5 = "Digest realm=\"r\", nonce=\"n1\", algorithm=MD5, qop=\"auth\"";
        String sha = "Digest realm=\"r\", nonce=\"n2\", algorithm=SHA-256, qop=\"auth\"";
        String sha512 = "Digest realm=\"r\", nonce=\"n3\", algorithm=SHA-512-256, qop=\"auth\"";
        String md5sess = "Digest realm=\"r\", nonce=\"n4\", algorithm=MD5-sess, qop=\"auth\"";
        String authInt = "Digest realm=\"r\", nonce=\"n5\", algorithm=SHA-256, qop=\"auth-int\"";
        assertEquals("n2", DigestCredentials.choose(List.of(md5, sha)).nonce());
        assertEquals("n2", DigestCredentials.choose(List.of(sha512, sha, md5)).nonce());
        assertEquals("n1", DigestCredentials.choose(List.of(sha512, md5sess, authInt, md5)).nonce());
        assertNull(DigestCredentials.choose(List.of(sha512, md5sess, authInt, "Basic realm=\"r\"")));
        // two challenges in one header value
        assertEquals("n2", DigestCredentials.choose(List.of(md5 + ", " + sha)).nonce());
        assertEquals(2, DigestCredentials.parse(md5 + ", " + sha).size());
    }

    @Test
    void quotedValuesKeepCommasEqualSignsAndEscapes() {
        Challenge c = DigestCredentials.parse("Digest realm=\"a, b=c \\\"d\\\"\", nonce=\"x==\", stale=TRUE").get(0);
        assertEquals("a, b=c \"d\"", c.realm());
        assertEquals("x==", c.nonce());
        assertEquals("TRUE", c.params().get("stale"));
    }
}
