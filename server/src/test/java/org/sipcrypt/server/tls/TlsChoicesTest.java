package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;

class TlsChoicesTest {

    private final CipherSuiteRegistry registry = CipherSuiteRegistry.load();

    private TlsChoices resolve(List<String> ciphers, TlsEngine engine, List<String> crypto, String... versions) {
        return TlsChoices.resolve(registry, ciphers, true, engine, crypto,
                versions.length == 0 ? List.of("1.2", "1.3") : List.of(versions));
    }

    @Test
    void autoPicksOpensslWhereItRunsEverySuiteAndLoadsThenJsseThenBc() {
        assertEquals(TlsEngine.OPENSSL, resolve(List.of("aes"), null, List.of("jca")).engine());
        Map<TlsEngine, String> notHere = Map.of(TlsEngine.OPENSSL, "BoringSSL did not load: no such file");
        TlsChoices without = TlsChoices.resolve(registry, List.of("aes"), false, null, List.of("jca"),
                List.of("1.2", "1.3"), notHere);
        assertEquals(TlsEngine.JSSE, without.engine(), "auto never picks an engine that cannot run here");
        IllegalArgumentException named = assertThrows(IllegalArgumentException.class, () -> TlsChoices.resolve(registry,
                List.of("aes"), false, TlsEngine.OPENSSL, List.of("jca"), List.of("1.2", "1.3"), notHere));
        assertEquals("tls.engine: openssl cannot run here: BoringSSL did not load: no such file", named.getMessage());
        IllegalArgumentException insecure = assertThrows(IllegalArgumentException.class,
                () -> resolve(List.of("aes", "3des"), TlsEngine.OPENSSL, List.of("jca")));
        assertTrue(insecure.getMessage().startsWith("tls.engine: 3des runs on the bc/jsse TLS engine, not on openssl"),
                insecure.getMessage());
    }

    private TlsChoices withGroups(List<String> ciphers, TlsEngine engine, String... groups) {
        return TlsChoices.resolve(registry, ciphers, false, engine, List.of("jca"), List.of("1.2", "1.3"),
                List.of(groups), Map.of());
    }

    @Test
    void groupsAreKeptInOrderAndTheDefaultIsTheEnginesOwn() {
        assertEquals(List.of(KeyExchangeGroup.SECP384R1, KeyExchangeGroup.X25519),
                withGroups(List.of("aes"), TlsEngine.OPENSSL, "secp384r1", " X25519").groups());
        assertEquals(List.of(), resolve(List.of("aes"), TlsEngine.JSSE, List.of("jca")).groups());
    }

    @Test
    void unknownOrRepeatedGroupsAreRefusedNamingTheSetting() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> withGroups(List.of("aes"), TlsEngine.BC, "x25519", "x448"));
        assertTrue(unknown.getMessage().startsWith("tls.groups: \"x448\" is not a key-exchange group (expected x25519,"),
                unknown.getMessage());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> withGroups(List.of("aes"), TlsEngine.BC, "x25519", "x25519"));
        assertEquals("tls.groups: x25519 is listed twice", twice.getMessage());
    }

    @Test
    void mlkemHybridsRunOnBcOnlyAndAutoPicksBcForThem() {
        for (TlsEngine e : List.of(TlsEngine.JSSE, TlsEngine.OPENSSL)) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> withGroups(List.of("aes"), e, "x25519mlkem768", "x25519"));
            assertTrue(refused.getMessage().startsWith("tls.groups: x25519mlkem768 runs on the bc TLS engine, not on "
                    + e.configName()), refused.getMessage());
        }
        assertEquals(TlsEngine.BC, withGroups(List.of("aes"), null, "x25519mlkem768", "x25519").engine());
        assertEquals(TlsEngine.JSSE, withGroups(List.of("aes"), null, "ffdhe2048").engine(),
                "BoringSSL is given no finite-field group");
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> TlsChoices.resolve(registry, List.of("aes", "rc4"), true, null, List.of("jca"), List.of("1.2"),
                        List.of("secp256r1mlkem768"), Map.of()));
        assertTrue(none.getMessage().startsWith("tls.groups: secp256r1mlkem768 runs on the bc TLS engine"),
                none.getMessage());
    }

    @Test
    void chacha20RunsOnEveryEngineButOpensslCannotNarrowTls13ToIt() {
        assertEquals(TlsEngine.JSSE, resolve(List.of("chacha20"), null, List.of("jca")).engine());
        assertEquals(TlsEngine.OPENSSL, resolve(List.of("chacha20"), null, List.of("jca"), "1.2").engine());
        assertEquals(TlsEngine.OPENSSL, resolve(List.of("aes", "chacha20"), null, List.of("jca")).engine());
        assertThrows(IllegalArgumentException.class, () -> resolve(List.of("chacha20"), TlsEngine.OPENSSL, List.of("jca")));
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), resolve(List.of("chacha20"), TlsEngine.BC, List.of("bc")).versions());
    }

    @Test
    void opensslRunsTls13OnlyWithBothAesGcmSuitesBecauseBoringSslCannotNarrowThem() {
        IllegalArgumentException narrowed = assertThrows(IllegalArgumentException.class, () -> resolve(
                List.of("TLS_AES_256_GCM_SHA384", "TLS_RSA_WITH_AES_128_CBC_SHA"), TlsEngine.OPENSSL, List.of("jca")));
        assertTrue(narrowed.getMessage().startsWith("tls.engine: openssl cannot offer TLS 1.3 with only "
                + "[TLS_AES_256_GCM_SHA384]: BoringSSL always offers TLS_AES_128_GCM_SHA256"), narrowed.getMessage());
        assertEquals(TlsEngine.JSSE, resolve(List.of("TLS_AES_256_GCM_SHA384"), null, List.of("jca")).engine(),
                "auto leaves openssl out rather than offer a suite the list leaves out");
        assertEquals(TlsEngine.OPENSSL, resolve(List.of("TLS_AES_256_GCM_SHA384", "TLS_RSA_WITH_AES_128_CBC_SHA"), null,
                List.of("jca"), "1.2").engine(), "without TLS 1.3 nothing is added");
        assertEquals(TlsEngine.OPENSSL, resolve(List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"), null,
                List.of("jca")).engine());
    }

    @Test
    void autoPicksJsseWhenItRunsEverySuiteElseBc() {
        assertEquals(TlsEngine.JSSE, resolve(List.of("aes", "3des", "rc4"), null, List.of("jca")).engine());
        assertEquals(TlsEngine.BC, resolve(List.of("camellia", "aes"), null, List.of("jca")).engine());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> resolve(List.of("seed", "rc4"), null, List.of("jca")));
        assertTrue(e.getMessage().startsWith("tls.ciphers: no one TLS engine runs seed and rc4"), e.getMessage());
        IllegalArgumentException forced = assertThrows(IllegalArgumentException.class,
                () -> resolve(List.of("rc4"), TlsEngine.BC, List.of("jca")));
        assertTrue(forced.getMessage().startsWith("tls.engine: rc4 runs on the jsse TLS engine, not on bc"), forced.getMessage());
    }

    @Test
    void cryptoIsChosenPerProviderAmongTheEnginesItHas() {
        TlsChoices c = resolve(List.of("aes", "camellia", "3des"), TlsEngine.BC, List.of("jca", "3des:bc"));
        assertEquals(Map.of("aes", CipherEngine.JCA, "camellia", CipherEngine.BC, "3des", CipherEngine.BC), c.crypto());
        TlsChoices lightweight = resolve(List.of("aes"), TlsEngine.BC, List.of("bc"));
        assertEquals(CipherEngine.BC, lightweight.crypto().get("aes"));
        assertThrows(IllegalArgumentException.class, () -> resolve(List.of("seed"), TlsEngine.BC, List.of("seed:jca")));
        assertThrows(IllegalArgumentException.class, () -> resolve(List.of("aes"), TlsEngine.BC, List.of("camellia:bc")));
        assertThrows(IllegalArgumentException.class, () -> resolve(List.of("aes"), TlsEngine.BC, List.of("openssl")));
    }

    @Test
    void versionsAreOfferedWhenListedAndASuiteOfThemIsConfigured() {
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), resolve(List.of("aes"), null, List.of("jca")).versions());
        assertEquals(List.of("TLSv1.2"), resolve(List.of("TLS_RSA_WITH_AES_128_CBC_SHA"), null, List.of("jca")).versions());
        assertEquals(List.of("TLSv1.3"), resolve(List.of("aes"), null, List.of("jca"), "1.3").versions());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> resolve(List.of("camellia"), null, List.of("jca"), "1.3"));
        assertTrue(none.getMessage().startsWith("tls.versions: none of [1.3]"), none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> resolve(List.of("aes"), null, List.of("jca"), "1.1"));
    }

    @Test
    void insecureProvidersAreNamedForTheWarning() {
        assertEquals(List.of("3des", "rc4"), resolve(List.of("aes", "3des", "rc4"), null, List.of("jca")).insecure());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TlsChoices.resolve(registry,
                List.of("3des"), false, null, List.of("jca"), List.of("1.2")));
        assertTrue(e.getMessage().startsWith("tls.ciphers: \"3des\" is insecure"), e.getMessage());
    }
}
