package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigLoader;

/**
 * The tls listener on the jsse engine (the JDK's SunJSSE); and the suite lists no one engine runs,
 * refused at start.
 */
class JsseTlsListenerIT extends TlsListenerContract {

    /** SunJSSE's stapling is JVM-wide and fetches inside the handshake, on the event loop: not used. */
    @Override
    boolean staples() {
        return false;
    }

    @Override
    String engine() {
        return "jsse";
    }

    @Test
    void suitesNoOneEngineRunsAreRefusedAtStart() {
        Map<String, List<String>> given = Map.of("listen", List.of("tls:127.0.0.1:0"),
                "tls.cert", List.of(certs.resolve("server.pem").toString()),
                "tls.key", List.of(certs.resolve("server-key.pem").toString()),
                "tls.ciphers", List.of("camellia"), "tls.engine", List.of("jsse"));
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(null, given));
        assertTrue(e.getMessage().startsWith("tls.engine: camellia runs on the bc TLS engine, not on jsse"), e.getMessage());
        ConfigException mixed = assertThrows(ConfigException.class, () -> ConfigLoader.load(null,
                Map.of("tls.ciphers", List.of("seed", "rc4"), "tls.allowInsecure", List.of("true"))));
        assertTrue(mixed.getMessage().startsWith("tls.ciphers: no one TLS engine runs seed and rc4"), mixed.getMessage());
        ConfigException crypto = assertThrows(ConfigException.class, () -> ConfigLoader.load(null,
                Map.of("tls.ciphers", List.of("seed"), "tls.crypto", List.of("seed:jca"))));
        assertTrue(crypto.getMessage().startsWith("tls.crypto: seed runs on bc crypto, not jca"), crypto.getMessage());
        ConfigException noCert = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("listen", List.of("tls:127.0.0.1:0"))));
        assertTrue(noCert.getMessage().startsWith("tls.cert: needed by the tls listener"), noCert.getMessage());
        ConfigException rc4 = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(null, Map.of("tls.ciphers", List.of("rc4"))));
        assertTrue(rc4.getMessage().contains("insecure"), rc4.getMessage());
    }
}
