package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The tls.crl, tls.revocation and tls.revocationFailure settings: parsed, defaulted and checked at start. */
@Timeout(10)
class RevocationSettingsTest {

    @TempDir
    Path dir;

    private static String failure(Map<String, List<String>> flags) {
        return assertThrows(ConfigException.class, () -> ConfigLoader.load(null, flags)).getMessage();
    }

    @Test
    void revocationIsOffAndSoftByDefault() throws Exception {
        TlsConfig t = ConfigLoader.load(null, Map.of()).tls();
        assertEquals(TlsConfig.Revocation.OFF, t.revocation());
        assertEquals(TlsConfig.RevocationFailure.SOFT, t.revocationFailure());
        assertEquals(List.of(), t.crl());
    }

    @Test
    void crlFilesAndModesAreRead() throws Exception {
        Path a = Files.writeString(dir.resolve("a.crl"), "x");
        Path b = Files.writeString(dir.resolve("b.crl"), "x");
        TlsConfig t = ConfigLoader.load(null, Map.of("tls.crl", List.of(a.toString(), b.toString()),
                "tls.revocation", List.of("crl"), "tls.revocationFailure", List.of("HARD"))).tls();
        assertEquals(List.of(a, b), t.crl());
        assertEquals(TlsConfig.Revocation.CRL, t.revocation());
        assertEquals(TlsConfig.RevocationFailure.HARD, t.revocationFailure());
    }

    @Test
    void ocspSettingsAreReadWithTheirDefaults() throws Exception {
        TlsConfig d = ConfigLoader.load(null, Map.of()).tls();
        assertEquals(java.time.Duration.ofSeconds(2), d.ocspTimeout());
        assertEquals(java.time.Duration.ofHours(1), d.ocspCacheTime());
        assertEquals(null, d.ocspResponder());
        assertEquals(false, d.ocspStapling());
        TlsConfig t = ConfigLoader.load(null, Map.of("tls.revocation", List.of("ocsp"),
                "tls.ocspResponder", List.of("http://ocsp.example.com:8080/"), "tls.ocspTimeout", List.of("500ms"),
                "tls.ocspCacheTime", List.of("10m"))).tls();
        assertEquals(TlsConfig.Revocation.OCSP, t.revocation());
        assertEquals(java.net.URI.create("http://ocsp.example.com:8080/"), t.ocspResponder());
        assertEquals(java.time.Duration.ofMillis(500), t.ocspTimeout());
        assertEquals(java.time.Duration.ofMinutes(10), t.ocspCacheTime());
    }

    @Test
    void ocspSettingsAreChecked() throws Exception {
        assertTrue(failure(Map.of("tls.ocspResponder", List.of("ldap://ca.example.com/"))).startsWith(
                "tls.ocspResponder: \"ldap://ca.example.com/\" is not an OCSP responder URL"));
        assertTrue(failure(Map.of("tls.ocspTimeout", List.of("0s"))).startsWith("tls.ocspTimeout:"));
        assertTrue(failure(Map.of("tls.ocspResponder", List.of("http://127.0.0.1:8888/"))).startsWith(
                "tls.ocspResponder: given while nothing asks a responder"));
        assertEquals("tls.revocation: both needs at least one tls.crl file",
                failure(Map.of("tls.revocation", List.of("both"))));
        Path a = Files.writeString(dir.resolve("a.crl"), "x");
        assertTrue(failure(Map.of("tls.revocation", List.of("ocsp"), "tls.crl", List.of(a.toString()))).startsWith(
                "tls.crl: given while tls.revocation is ocsp"));
        assertTrue(failure(Map.of("tls.ocspStapling", List.of("on"),
                "tls.engine", List.of("jsse"))).startsWith("tls.ocspStapling: on needs tls.engine openssl or bc"));
        assertTrue(failure(Map.of("tls.ocspStapling", List.of("on"), "tls.engine", List.of("openssl")))
                .contains("without a tls or wss listener"));
    }

    @Test
    void badValuesNameTheKey() {
        assertTrue(failure(Map.of("tls.revocationFailure", List.of("maybe"))).startsWith(
                "tls.revocationFailure: unknown revocation failure mode \"maybe\" (expected soft or hard)"));
    }

    @Test
    void crlCheckingNeedsListsAndListsNeedChecking() throws Exception {
        assertEquals("tls.revocation: crl needs at least one tls.crl file",
                failure(Map.of("tls.revocation", List.of("crl"))));
        Path a = Files.writeString(dir.resolve("a.crl"), "x");
        assertTrue(failure(Map.of("tls.crl", List.of(a.toString()))).startsWith(
                "tls.crl: given while tls.revocation is off"));
        assertTrue(failure(Map.of("tls.crl", List.of(dir.resolve("missing.crl").toString()),
                "tls.revocation", List.of("crl"))).startsWith("tls.crl[0]: cannot read"));
        assertTrue(failure(Map.of("tls.crl", List.of(a.toString()), "tls.revocation", List.of("crl"),
                "tls.verifyPeers", List.of("off"))).contains("tls.verifyPeers=off would check nothing"));
    }
}
