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
    void ocspIsRefusedAsNotBuilt() {
        String m = failure(Map.of("tls.revocation", List.of("ocsp")));
        assertTrue(m.startsWith("tls.revocation: revocation mode \"ocsp\" is not built"), m);
        assertTrue(failure(Map.of("tls.revocation", List.of("both"))).contains("(expected off or crl)"));
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
