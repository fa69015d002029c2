package org.sipcrypt.server.tls.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.tls.provider.AesProvider;

@Timeout(10)
class CipherSuiteRegistryTest {

    private final CipherSuiteRegistry registry = CipherSuiteRegistry.load();

    private static List<String> names(List<CipherSuiteId> suites) {
        return suites.stream().map(CipherSuiteId::name).toList();
    }

    @Test
    void builtInProvidersAndAProviderFromAnotherJarAreFound() {
        List<String> found = registry.providers().stream().map(CipherSuiteProvider::name).toList();
        assertTrue(found.containsAll(List.of("aes", "3des", "camellia", "seed", "rc4")), found.toString());
        assertTrue(found.contains("test-null"), "the test-only provider is picked up from the class path: " + found);
    }

    @Test
    void providerNamesExpandToTheirSuitesInTheGivenOrder() {
        List<CipherSuiteId> suites = registry.resolve(List.of("camellia", "aes"), false);
        assertEquals("TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", suites.get(0).name());
        assertEquals("TLS_RSA_WITH_CAMELLIA_256_CBC_SHA", suites.get(1).name());
        assertEquals("TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256", suites.get(2).name());
        assertEquals("TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384", suites.get(3).name());
        assertEquals(new AesProvider().suites(), suites.subList(4, suites.size()));
    }

    @Test
    void suiteNamesPickOneSuiteAndRepeatsAreDropped() {
        List<CipherSuiteId> suites = registry.resolve(
                List.of("tls_rsa_with_seed_cbc_sha", "TLS_RSA_WITH_AES_128_CBC_SHA", "aes"), false);
        assertEquals("TLS_RSA_WITH_SEED_CBC_SHA", suites.get(0).name());
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", suites.get(1).name());
        assertEquals(1, names(suites).stream().filter("TLS_RSA_WITH_AES_128_CBC_SHA"::equals).count());
        assertEquals(0x0096, suites.get(0).code());
    }

    @Test
    void insecureSuitesAreRefusedUnlessAllowed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.resolve(List.of("aes", "rc4"), false));
        assertTrue(e.getMessage().contains("\"rc4\" is insecure") && e.getMessage().contains("tls.allowInsecure"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> registry.resolve(List.of("SSL_RSA_WITH_3DES_EDE_CBC_SHA"), false));
        List<CipherSuiteId> lab = registry.resolve(List.of("rc4", "SSL_RSA_WITH_3DES_EDE_CBC_SHA", "aes"), true);
        assertEquals(List.of("TLS_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
                "TLS_RSA_WITH_3DES_EDE_CBC_SHA"), names(lab).subList(0, 3));
        assertEquals(List.of("rc4", "3des"), registry.insecureProviders(lab));
    }

    @Test
    void unknownNamesAreRefusedWithTheKnownProviders() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.resolve(List.of("aes", "blowfish"), true));
        assertTrue(e.getMessage().startsWith("unknown cipher suite or provider \"blowfish\""), e.getMessage());
        assertTrue(e.getMessage().contains("camellia"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> registry.resolve(List.of(), true));
    }

    @Test
    void twoProvidersWithOneNameAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> CipherSuiteRegistry.of(List.of(new AesProvider(), new AesProvider())));
    }
}
