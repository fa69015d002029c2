package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sipcrypt.server.tls.spi.TlsEngine;

class TlsPeerConfigTest {

    @Test
    void anEntryOverridesOnlyWhatItNames() {
        TlsPeerConfig p = TlsPeerConfig.parse("10.0.0.2:5061; engine=bc; ciphers=seed+aes; reuse=off");
        TlsConfig t = p.applyTo(TlsConfig.defaults());
        assertEquals(TlsEngine.BC, t.engine());
        assertEquals(List.of("seed", "aes"), t.ciphers());
        assertEquals(false, t.sessionReuse());
        assertEquals(TlsConfig.defaults().crypto(), t.crypto());
        assertEquals(TlsConfig.defaults().verifyPeers(), t.verifyPeers());
        assertEquals("10.0.0.2:5061;engine=bc;ciphers=seed+aes;reuse=off", p.toString());
        assertEquals(p, TlsPeerConfig.parse(p.toString()));
    }

    @Test
    void badEntriesSayWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsPeerConfig.parse("10.0.0.2;engine=bc"))
                .getMessage().contains("needs a port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsPeerConfig.parse("10.0.0.2:5061;colour=red"))
                .getMessage().contains("unknown parameter \"colour\""));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TlsPeerConfig.parse("10.0.0.2:5061;engine=gnutls"))
                .getMessage().contains("not bc, jsse or openssl"));
    }

    @Test
    void thePeersSuitesMustRunOnItsEngine() throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(null,
                Map.of("tls.peer", List.of("127.0.0.1:5061;engine=jsse;ciphers=seed"))));
        assertTrue(e.getMessage().startsWith("tls.peer[0] tls.engine: seed runs on the bc TLS engine"), e.getMessage());
        ServerConfig ok = ConfigLoader.load(null, Map.of("tls.peer", List.of("127.0.0.1:5061;ciphers=seed")));
        assertEquals(List.of(TlsPeerConfig.parse("127.0.0.1:5061;ciphers=seed")), ok.tls().peers());
    }
}
