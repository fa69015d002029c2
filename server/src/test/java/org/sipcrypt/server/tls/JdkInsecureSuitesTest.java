package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which entries of {@code jdk.tls.disabledAlgorithms} a configured static-RSA suite lifts, and which it never does. */
@Timeout(30)
class JdkInsecureSuitesTest {

    /** Debian's OpenJDK 17.0.21 (bookworm), as installed on a fresh machine. */
    private static final String DEBIAN_17_0_21 = "SSLv3, TLSv1, TLSv1.1, DTLSv1.0, RC4, DES, MD5withRSA,"
            + " DH keySize < 1024, EC keySize < 224, 3DES_EDE_CBC, anon, NULL, ECDH, TLS_RSA_*,"
            + " rsa_pkcs1_sha1 usage HandshakeSignature, ecdsa_sha1 usage HandshakeSignature,"
            + " dsa_sha1 usage HandshakeSignature";

    private static String lift(String property, List<String> suites, List<String> lifted) {
        return JdkInsecureSuites.withoutStaticRsaRefusals(property, suites, lifted);
    }

    @Test
    void rfc3261SuiteLiftsTheStaticRsaPatternOnly() {
        List<String> lifted = new ArrayList<>();
        String after = lift(DEBIAN_17_0_21, List.of("TLS_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA"), lifted);
        assertEquals(List.of("TLS_RSA_*"), lifted);
        assertEquals(DEBIAN_17_0_21.replace(" TLS_RSA_*,", ""), after);
        assertTrue(after.contains("rsa_pkcs1_sha1 usage HandshakeSignature"), "SHA-1 signatures stay refused: " + after);
    }

    @Test
    void suitesWithoutStaticRsaLiftNothing() {
        List<String> lifted = new ArrayList<>();
        String after = lift(DEBIAN_17_0_21, List.of("TLS_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                "TLS_DHE_RSA_WITH_AES_128_CBC_SHA"), lifted);
        assertEquals(List.of(), lifted);
        assertEquals(DEBIAN_17_0_21, after);
    }

    @Test
    void exactNamesAndNarrowPatternsAreLiftedButBroadOnesAndOtherSuitesNever() {
        List<String> lifted = new ArrayList<>();
        String after = lift("tls_rsa_with_aes_128_cbc_sha, TLS_RSA_WITH_AES_256_CBC_SHA, TLS_RSA_WITH_AES_*, TLS_*,"
                + " SSL_RSA_WITH_3DES_EDE_CBC_SHA, TLS_RSA_* usage HandshakeSignature, RC4",
                List.of("TLS_RSA_WITH_AES_128_CBC_SHA"), lifted);
        assertEquals(List.of("tls_rsa_with_aes_128_cbc_sha", "TLS_RSA_WITH_AES_*"), lifted);
        assertEquals("TLS_RSA_WITH_AES_256_CBC_SHA, TLS_*, SSL_RSA_WITH_3DES_EDE_CBC_SHA,"
                + " TLS_RSA_* usage HandshakeSignature, RC4", after);
    }

    @Test
    void jsseSpellingOfALegacySuiteCounts() {
        assertTrue(JdkInsecureSuites.staticRsa("SSL_RSA_WITH_3DES_EDE_CBC_SHA"));
        assertTrue(JdkInsecureSuites.staticRsa("TLS_RSA_WITH_SEED_CBC_SHA"));
        assertFalse(JdkInsecureSuites.staticRsa("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
        assertFalse(JdkInsecureSuites.staticRsa("TLS_RSA_PSK_WITH_AES_128_CBC_SHA"));
        List<String> lifted = new ArrayList<>();
        lift("SSL_RSA_*, RC4", List.of("SSL_RSA_WITH_RC4_128_SHA"), lifted);
        assertEquals(List.of("SSL_RSA_*"), lifted);
    }

    /**
     * Seeded fuzz over property texts made of real and odd entries: every entry comes out either
     * kept or lifted, in order; a lifted entry has no constraint, starts TLS_RSA_ or SSL_RSA_ and
     * refuses one of the suites given; with no static-RSA suite given nothing is lifted.
     */
    @Test
    void fuzzedPropertiesOnlyEverLoseStaticRsaEntriesThatRefuseAGivenSuite() {
        String[] pieces = {"TLS_RSA_*", "TLS_RSA_WITH_AES_*", "TLS_RSA_WITH_AES_128_CBC_SHA", "tls_rsa_with_aes_256_gcm_sha384",
            "TLS_*", "*", "TLS_RSA_", "SSL_RSA_*", "TLS_ECDHE_*", "RC4", "3DES_EDE_CBC", "ECDH", "anon", "NULL",
            "DH keySize < 1024", "TLS_RSA_* usage HandshakeSignature", "rsa_pkcs1_sha1 usage HandshakeSignature",
            "TLSv1.1", "", " ", "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA*"};
        String[] suites = {"TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_GCM_SHA384", "SSL_RSA_WITH_RC4_128_SHA",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA"};
        Random random = new Random(20261129L);
        for (int i = 0; i < 5_000; i++) {
            List<String> entries = new ArrayList<>();
            for (int n = random.nextInt(12); n > 0; n--) {
                entries.add(pieces[random.nextInt(pieces.length)]);
            }
            List<String> given = new ArrayList<>();
            for (int n = random.nextInt(4); n > 0; n--) {
                given.add(suites[random.nextInt(suites.length)]);
            }
            String property = String.join(random.nextBoolean() ? ", " : ",", entries);
            List<String> lifted = new ArrayList<>();
            String after = lift(property, given, lifted);
            List<String> kept = after.isEmpty() ? List.of() : Arrays.asList(after.split(", "));
            List<String> nonEmpty = entries.stream().map(String::trim).filter(e -> !e.isEmpty()).toList();
            assertEquals(nonEmpty.size(), kept.size() + lifted.size(), property + " -> " + after + " / " + lifted);
            for (String e : lifted) {
                String u = e.toUpperCase();
                assertFalse(e.contains(" "), property);
                assertTrue(u.startsWith("TLS_RSA_") || u.startsWith("SSL_RSA_"), property + " lifted " + e);
                String prefix = u.endsWith("*") ? u.substring(0, u.length() - 1) : u;
                assertTrue(given.stream().map(String::toUpperCase).filter(JdkInsecureSuites::staticRsa)
                        .anyMatch(s -> u.endsWith("*") ? s.startsWith(prefix) : s.equals(u)), property + " lifted " + e);
            }
            if (given.stream().noneMatch(JdkInsecureSuites::staticRsa)) {
                assertEquals(List.of(), lifted, property);
            }
        }
    }
}
