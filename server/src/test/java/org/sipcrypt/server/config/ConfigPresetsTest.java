package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The named presets of {@link TlsConfig} and {@link AuthConfig}: what each holds, and the
 * {@code tls.preset} and {@code auth.preset} keys that pick one, with the group's other keys changing it.
 */
@Timeout(30)
class ConfigPresetsTest {

    private static ServerConfig load(Map<String, List<String>> given) throws ConfigException {
        return ConfigLoader.load(null, given);
    }

    @Test
    void modernOffersOnlyForwardSecretAesGcmSuites() {
        assertEquals(List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"), TlsConfig.MODERN.ciphers());
        assertEquals(List.of("1.2", "1.3"), TlsConfig.MODERN.versions());
        assertFalse(TlsConfig.MODERN.allowInsecure());
        assertTrue(TlsConfig.MODERN.verifyPeers());
    }

    @Test
    void compatibleIsTheDefaultWithEveryAesSuite() {
        assertEquals(TlsConfig.defaults(), TlsConfig.COMPATIBLE);
        assertEquals(List.of("aes"), TlsConfig.COMPATIBLE.ciphers());
        assertEquals(Optional.of("compatible"), TlsConfig.defaults().presetName());
        assertFalse(TlsConfig.COMPATIBLE.allowInsecure());
    }

    @Test
    void labInsecureAllowsThreeDesAndRc4AfterAes() {
        assertEquals(List.of("aes", "3des", "rc4"), TlsConfig.LAB_INSECURE.ciphers());
        assertTrue(TlsConfig.LAB_INSECURE.allowInsecure());
        assertTrue(TlsConfig.LAB_INSECURE.verifyPeers(), "peers are still checked");
    }

    @Test
    void tlsPresetKeySetsSuitesVersionsAndInsecureSwitch() throws ConfigException {
        assertEquals(TlsConfig.MODERN.ciphers(), load(Map.of("tls.preset", List.of("modern"))).tls().ciphers());
        TlsConfig lab = load(Map.of("tls.preset", List.of("lab-insecure"), "tls.sessionReuse", List.of("off"))).tls();
        assertEquals(TlsConfig.LAB_INSECURE.toBuilder().sessionReuse(false).build(), lab);
        assertEquals(Optional.of("lab-insecure"), lab.presetName());
        assertTrue(ConfigLoader.describe(load(Map.of("tls.preset", List.of("modern")))).contains("\ntls.preset=modern\n"));
    }

    @Test
    void tlsKeysGivenWithThePresetChangeIt() throws ConfigException {
        TlsConfig t = load(Map.of("tls.preset", List.of("lab-insecure"), "tls.ciphers", List.of("aes", "3des"))).tls();
        assertEquals(List.of("aes", "3des"), t.ciphers());
        assertTrue(t.allowInsecure());
        assertEquals(Optional.empty(), t.presetName());
        ServerConfig modern13 = load(Map.of("tls.versions", List.of("1.3"), "tls.preset", List.of("modern")));
        assertEquals(TlsConfig.MODERN.toBuilder().versions(List.of("1.3")).build(), modern13.tls());
        assertTrue(ConfigLoader.describe(modern13).contains("\ntls.preset=(none)\n"));
    }

    @Test
    void unknownPresetFailsNamingTheKeyAndTheNames() {
        ConfigException tls = assertThrows(ConfigException.class, () -> load(Map.of("tls.preset", List.of("strict"))));
        assertEquals("tls.preset: \"strict\" is not a preset (expected modern, compatible or lab-insecure)", tls.getMessage());
        ConfigException auth = assertThrows(ConfigException.class, () -> load(Map.of("auth.preset", List.of("lab"))));
        assertEquals("auth.preset: \"lab\" is not a preset (expected secure or lab-legacy-digest)", auth.getMessage());
    }

    @Test
    void secureIsAuthenticationOnWithTheSecureDefaults() {
        assertEquals(AuthConfig.defaults().toBuilder().enabled(true).build(), AuthConfig.SECURE);
        assertTrue(AuthConfig.SECURE.challenges("INVITE"));
        assertFalse(AuthConfig.SECURE.legacyNoQop());
        assertFalse(AuthConfig.SECURE.labSkipUriCheck());
        assertEquals(List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5), AuthConfig.SECURE.algorithms());
        assertEquals(AuthConfig.FailureAnswer.FORBID, AuthConfig.SECURE.onFailure());
        assertTrue(AuthConfig.SECURE.matchIdentity());
        assertEquals(Optional.empty(), AuthConfig.defaults().presetName(), "auth off is no preset");
    }

    @Test
    void labLegacyDigestAcceptsMd5WithoutQopAndAnyUri() {
        AuthConfig lab = AuthConfig.LAB_LEGACY_DIGEST;
        assertTrue(lab.enabled());
        assertEquals(List.of(DigestAlgorithm.MD5), lab.algorithms());
        assertTrue(lab.legacyNoQop());
        assertTrue(lab.labSkipUriCheck());
        assertEquals(List.of(AuthConfig.ALL_METHODS), lab.methods());
    }

    @Test
    void authPresetKeyTurnsAuthenticationOnAndAuthKeysChangeIt() throws ConfigException {
        ServerConfig secure = load(Map.of("auth.preset", List.of("secure"), "auth.cacheSize", List.of("100")));
        assertEquals(AuthConfig.SECURE.toBuilder().cacheSize(100).build(), secure.auth());
        assertTrue(ConfigLoader.describe(secure).contains("\nauth.preset=secure\n"));
        AuthConfig lab = load(Map.of("auth.preset", List.of("lab-legacy-digest"),
                "auth.lab.skipUriCheck", List.of("false"))).auth();
        assertTrue(lab.legacyNoQop());
        assertFalse(lab.labSkipUriCheck());
        assertEquals(Optional.empty(), lab.presetName());
    }
}
