package org.sipcrypt.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.TlsEngine;

/** The record-layer row names: provider, TLS engine and crypto engine. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CipherRowTest {

    @Test
    void rowsNameProviderEngineAndCrypto() {
        assertEquals(new CipherRow("aes", TlsEngine.JSSE, null), CipherRow.parse("aes/jsse"));
        assertEquals(new CipherRow("seed", TlsEngine.BC, CipherEngine.BC), CipherRow.parse("seed/bc/bc"));
        assertEquals(new CipherRow("aes", TlsEngine.OPENSSL, null), CipherRow.parse("aes/openssl"));
        assertEquals("3des/bc/jca", CipherRow.parse("3DES/BC/JCA").toString());
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"aes", "aes/bc", "aes/jsse/jca", "aes/bc/openssl", "aes/netty", "aes/openssl/bc"})
    void malformedRowsAreRefused(String row) {
        assertThrows(IllegalArgumentException.class, () -> CipherRow.parse(row));
    }
}
