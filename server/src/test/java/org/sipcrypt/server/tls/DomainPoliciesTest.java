package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsDomainConfig;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;

@Timeout(30)
class DomainPoliciesTest {

    private final CipherSuiteRegistry registry = CipherSuiteRegistry.load();

    private DomainPolicies policies(TlsEngine engine, String... domains) {
        List<TlsDomainConfig> entries = java.util.Arrays.stream(domains).map(TlsDomainConfig::parse).toList();
        TlsConfig t = new TlsConfig.Builder().ciphers(List.of("aes", "chacha20")).trust(Path.of("ca.pem"))
                .domains(entries).build();
        TlsChoices choices = TlsChoices.resolve(registry, t.ciphers(), false, engine, t.crypto(), t.versions(),
                t.groups(), Map.of());
        return DomainPolicies.of(t, choices, registry);
    }

    private static List<String> names(DomainPolicies.Policy p) {
        return p.suites().stream().map(CipherSuiteId::name).toList();
    }

    @Test
    void aDomainsCiphersNarrowTheListenersInTheListenersOrder() {
        DomainPolicies p = policies(TlsEngine.BC, "b.example;cert=c;key=k;ciphers=chacha20+TLS_AES_256_GCM_SHA384",
                "c.example;cert=c;key=k;clientAuth=need", "d.example;cert=c;key=k");
        List<String> b = names(p.of("b.example"));
        assertEquals(List.of("TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"), b);
        assertEquals(TlsConfig.ClientAuth.NONE, p.of("b.example").clientAuth());
        assertEquals(TlsConfig.ClientAuth.NEED, p.of("c.example").clientAuth());
        assertEquals(p.listener().suites(), p.of("c.example").suites());
        assertEquals(p.listener(), p.of("d.example"), "no settings of its own: the listener's");
        assertEquals(p.listener(), p.of(ServerIdentities.DEFAULT_NAME));
        assertFalse(p.domains().containsKey("d.example"));
    }

    @Test
    void aDomainCannotWidenTheListenersSuitesNorLeaveOutAVersion() {
        IllegalArgumentException wider = assertThrows(IllegalArgumentException.class,
                () -> policies(TlsEngine.BC, "b.example;cert=c;key=k;ciphers=camellia"));
        assertTrue(wider.getMessage().startsWith("tls.domain b.example: ciphers \"camellia\""), wider.getMessage());
        IllegalArgumentException no13 = assertThrows(IllegalArgumentException.class,
                () -> policies(TlsEngine.BC, "b.example;cert=c;key=k;ciphers=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"));
        assertTrue(no13.getMessage().contains("no TLS 1.3 suite"), no13.getMessage());
        IllegalArgumentException no12 = assertThrows(IllegalArgumentException.class,
                () -> policies(TlsEngine.BC, "b.example;cert=c;key=k;ciphers=TLS_AES_128_GCM_SHA256"));
        assertTrue(no12.getMessage().contains("no TLS 1.2 suite"), no12.getMessage());
        assertThrows(IllegalArgumentException.class, () -> policies(TlsEngine.BC, "b.example;cert=c;key=k;ciphers=rc4"));
    }

    @Test
    void onOpensslADomainMustKeepEveryTls13SuiteOfTheListener() {
        String narrowed = "b.example;cert=c;key=k;ciphers=chacha20+TLS_AES_128_GCM_SHA256";
        assertEquals(4, names(policies(TlsEngine.BC, narrowed).of("b.example")).size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> policies(TlsEngine.OPENSSL, narrowed));
        assertTrue(e.getMessage().contains("openssl engine"), e.getMessage());
        List<String> kept = names(policies(TlsEngine.OPENSSL,
                "b.example;cert=c;key=k;ciphers=chacha20+TLS_AES_128_GCM_SHA256+TLS_AES_256_GCM_SHA384").of("b.example"));
        assertTrue(kept.containsAll(TlsChoices.BORINGSSL_TLS13), kept.toString());
    }

    @Test
    void aClientCertificateAskedForNeedsATrustFile() {
        TlsConfig t = new TlsConfig.Builder().domains(List.of(TlsDomainConfig.parse("b.example;cert=c;key=k;clientAuth=want")))
                .build();
        TlsChoices choices = TlsChoices.resolve(registry, t.ciphers(), false, TlsEngine.JSSE, t.crypto(), t.versions(),
                t.groups(), Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DomainPolicies.of(t, choices, registry));
        assertEquals("tls.domain b.example: clientAuth=want needs tls.trust to check client certificates", e.getMessage());
    }
}
