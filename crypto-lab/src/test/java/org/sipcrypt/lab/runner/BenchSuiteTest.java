package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lab names the suite it measures on every TLS leg, so a provider's default preference (the
 * server's, with forward secrecy first) does not change what a compared cipher means.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BenchSuiteTest {

    @Test
    void eachComparedCipherMeasuresItsRsaKeyExchangeSuite() {
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", Bench.suite("aes"));
        assertEquals("TLS_RSA_WITH_3DES_EDE_CBC_SHA", Bench.suite("3des"));
        assertEquals("TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", Bench.suite("camellia"));
        assertEquals("TLS_RSA_WITH_SEED_CBC_SHA", Bench.suite("seed"));
        assertEquals("TLS_RSA_WITH_RC4_128_SHA", Bench.suite("rc4"));
    }

    @Test
    void aSuiteNameIsMeasuredAsItIs() {
        assertEquals("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", Bench.suite("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
    }
}
