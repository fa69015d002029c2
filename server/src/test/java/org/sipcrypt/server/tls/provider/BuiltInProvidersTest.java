package org.sipcrypt.server.tls.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.Provider;
import java.security.SecureRandom;
import java.security.Security;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.EncryptionAlgorithm;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * What each built-in provider declares about engines is checked against the engines themselves:
 * Bouncy Castle's {@code TlsCrypto} implementations and the JDK's SunJSSE.
 */
@Timeout(30)
class BuiltInProvidersTest {

    private static final List<CipherSuiteProvider> BUILT_IN = List.of(new AesProvider(), new TripleDesProvider(),
            new CamelliaProvider(), new SeedProvider(), new Rc4Provider(), new ChaCha20Provider());

    @Test
    void everyDeclaredCryptoEngineImplementsTheBulkCipher() {
        for (CipherSuiteProvider p : BUILT_IN) {
            for (CipherEngine engine : p.cipherEngines()) {
                TlsCrypto crypto = engine.crypto(new SecureRandom());
                for (CipherSuiteId s : p.suites()) {
                    int alg = TlsUtils.getEncryptionAlgorithm(s.code());
                    assertTrue(alg >= 0, s + " has a cipher in BC");
                    assertTrue(crypto.hasEncryptionAlgorithm(alg), p.name() + " " + s + " on " + engine.configName());
                }
            }
        }
    }

    @Test
    void theJdksJcaLacksCamelliaAndSeedSoOnlyBcRunsThem() {
        // the JDK's own providers: Bouncy Castle's JCA provider, which the bc engine adds to the JVM
        // when it first starts (as other tests in this JVM may have done), is not the JDK's
        for (Provider p : Security.getProviders()) {
            if (!p.getName().equals(BouncyCastleProvider.PROVIDER_NAME)) {
                assertNull(p.getService("Cipher", "Camellia"), p.getName());
                assertNull(p.getService("Cipher", "SEED"), p.getName());
            }
        }
        // the same lookup finds them where they are
        assertNotNull(new BouncyCastleProvider().getService("Cipher", "Camellia"));
        assertNotNull(new BouncyCastleProvider().getService("Cipher", "SEED"));
        assertEquals(Set.of(CipherEngine.BC), new CamelliaProvider().cipherEngines());
        assertEquals(Set.of(CipherEngine.BC), new SeedProvider().cipherEngines());
    }

    @Test
    void bouncyCastleTlsNoLongerMapsRc4SoRc4RunsOnJsseOnly() {
        // the premise of Rc4Provider, re-checked against the Bouncy Castle release in use
        assertEquals(-1, TlsUtils.getEncryptionAlgorithm(CipherSuite.TLS_RSA_WITH_RC4_128_SHA));
        assertEquals(Set.of(TlsEngine.JSSE), new Rc4Provider().tlsEngines());
    }

    @Test
    void suitesDeclaredForJsseAreKnownToSunJsseAndOthersAreNot() throws Exception {
        // SunJSSE accepts every suite it implements here, also those jdk.tls.disabledAlgorithms
        // keeps out of handshakes (3DES, RC4); a name it does not implement is refused
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, null, null);
        for (CipherSuiteProvider p : BUILT_IN) {
            for (CipherSuiteId s : p.suites()) {
                var engine = ctx.createSSLEngine();
                if (p.tlsEngines().contains(TlsEngine.JSSE)) {
                    assertNotNull(s.jsseName(), s.toString());
                    engine.setEnabledCipherSuites(new String[] {s.jsseName()});
                    assertEquals(List.of(s.jsseName()), List.of(engine.getEnabledCipherSuites()));
                } else {
                    assertNull(s.jsseName(), s.toString());
                    assertThrows(IllegalArgumentException.class,
                            () -> engine.setEnabledCipherSuites(new String[] {s.name()}), s + " is not in SunJSSE");
                }
            }
        }
    }

    @Test
    void onlyRc4And3desAreInsecureAndAesLeadsWithForwardSecrecyButStillOffersTheRfc3261Suite() {
        for (CipherSuiteProvider p : BUILT_IN) {
            assertEquals(p.name().equals("rc4") || p.name().equals("3des"), p.insecure(), p.name());
        }
        var aes = new AesProvider().suites();
        assertEquals(CipherSuite.TLS_AES_128_GCM_SHA256, aes.get(0).code());
        assertEquals(CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, aes.get(2).code());
        assertEquals(CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, aes.get(4).code());
        int firstRsa = aes.indexOf(aes.stream().filter(s -> s.name().startsWith("TLS_RSA_")).findFirst().orElseThrow());
        assertTrue(aes.subList(0, firstRsa).stream().allMatch(
                s -> s.name().startsWith("TLS_ECDHE_") || s.name().startsWith("TLS_AES_")),
                "every suite before the first RSA key exchange has forward secrecy: " + aes);
        assertEquals(CipherSuite.TLS_RSA_WITH_AES_128_CBC_SHA, new AesProvider().rsaKeyExchangeSuite().code());
    }
}
