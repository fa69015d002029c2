package org.sipcrypt.jmh;

import java.util.Locale;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * One row of the record-layer table: a cipher-suite provider on a TLS engine and, on the
 * {@code bc} engine, a crypto engine. Written {@code PROVIDER/jsse}, {@code PROVIDER/openssl} or
 * {@code PROVIDER/bc/CRYPTO}: {@code aes/jsse}, {@code aes/openssl}, {@code aes/bc/jca}, {@code seed/bc/bc}. Whether the provider runs there is
 * the server's own check ({@code TlsChoices.resolve}), made when the row is set up.
 * Threading: immutable.
 *
 * @param provider the provider name: {@code aes}, {@code 3des}, {@code camellia}, {@code seed}, {@code rc4}
 * @param engine   the TLS engine
 * @param crypto   the crypto engine of the bulk cipher on {@code bc}; null on {@code jsse} and {@code openssl}
 */
public record CipherRow(String provider, TlsEngine engine, CipherEngine crypto) {

    /** Reads {@code aes/jsse}, {@code aes/openssl} or {@code aes/bc/jca}. */
    public static CipherRow parse(String text) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split("/");
        if (parts.length == 2 && parts[1].equals("jsse")) {
            return new CipherRow(parts[0], TlsEngine.JSSE, null);
        }
        if (parts.length == 2 && parts[1].equals("openssl")) {
            return new CipherRow(parts[0], TlsEngine.OPENSSL, null);
        }
        if (parts.length == 3 && parts[1].equals("bc") && (parts[2].equals("bc") || parts[2].equals("jca"))) {
            return new CipherRow(parts[0], TlsEngine.BC, CipherEngine.valueOf(parts[2].toUpperCase(Locale.ROOT)));
        }
        throw new IllegalArgumentException("record-layer row \"" + text
                + "\": expected PROVIDER/jsse, PROVIDER/openssl, PROVIDER/bc/bc or PROVIDER/bc/jca");
    }

    /** {@code aes/bc/jca}. */
    @Override
    public String toString() {
        return provider + "/" + engine.configName() + (crypto == null ? "" : "/" + crypto.configName());
    }
}
