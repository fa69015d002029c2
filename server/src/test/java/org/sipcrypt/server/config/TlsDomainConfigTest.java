package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class TlsDomainConfigTest {

    @Test
    void parsesNameCertAndKeyInAnyOrderAndLowerCasesTheName() {
        TlsDomainConfig d = TlsDomainConfig.parse(" SIP.Example.org ; key=/k/org.key ; cert=/c/org.pem ");
        assertEquals(new TlsDomainConfig("sip.example.org", Path.of("/c/org.pem"), Path.of("/k/org.key")), d);
        assertEquals(d, TlsDomainConfig.parse(d.toString()));
        assertTrue(TlsDomainConfig.parse("*.example.com;cert=a;key=b").wildcard());
        assertEquals(List.of(), d.ciphers());
        assertNull(d.clientAuth());
        assertFalse(d.ownsHandshakeSettings());
    }

    @Test
    void parsesTheDomainsOwnCiphersJoinedWithPlusAndItsClientAuth() {
        TlsDomainConfig d = TlsDomainConfig.parse("a.example;cert=c;key=k; ciphers = chacha20 + TLS_AES_128_GCM_SHA256 ;"
                + "clientAuth=NEED");
        assertEquals(List.of("chacha20", "TLS_AES_128_GCM_SHA256"), d.ciphers());
        assertEquals(TlsConfig.ClientAuth.NEED, d.clientAuth());
        assertTrue(d.ownsHandshakeSettings());
        assertEquals("a.example;cert=c;key=k;ciphers=chacha20+TLS_AES_128_GCM_SHA256;clientAuth=need", d.toString());
        assertEquals(d, TlsDomainConfig.parse(d.toString()));
        assertEquals(TlsConfig.ClientAuth.WANT, TlsDomainConfig.parse("a.example;clientauth=want;cert=c;key=k").clientAuth());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sip.example.org;cert=a", "sip.example.org;key=b", "sip.example.org",
            ";cert=a;key=b", "*;cert=a;key=b", "*.com;cert=a;key=b", "a.*.com;cert=a;key=b", "a..b;cert=a;key=b",
            "-a.b;cert=a;key=b", "a_b.c;cert=a;key=b", "a.b;cert=;key=b", "a.b;cert=a;key=b;cipher=aes",
            "a.b;cert", "a.b.;cert=a;key=b", "a.b;cert=a;key=b;ciphers=", "a.b;cert=a;key=b;ciphers=aes++chacha20",
            "a.b;cert=a;key=b;ciphers=+aes", "a.b;cert=a;key=b;clientAuth=maybe", "a.b;cert=a;key=b;clientAuth="})
    void badEntryIsRefusedWithAReason(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TlsDomainConfig.parse(text));
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
    }

    /**
     * Seeded: good entries mutated a few characters at a time; each text either parses into an entry
     * that prints back to itself, or is refused with a reason.
     */
    @Test
    void mutatedEntriesParseExactlyOrAreRefused() {
        Random random = new Random(43);
        String[] good = {"sip.example.org;cert=/etc/sip/org.pem;key=/etc/sip/org.key",
                "*.example.com;key=k.pem;cert=c.pem", "a;cert=a;key=b",
                "b.example;cert=c;key=k;ciphers=aes+chacha20;clientAuth=need", "c;ciphers=seed;cert=c;key=k;clientAuth=want"};
        String alphabet = "ab.*-;=ceirtkyAZ09 _/+,hnoswd\u00e9";
        int parsed = 0;
        int refused = 0;
        for (int i = 0; i < 5_000; i++) {
            StringBuilder sb = new StringBuilder(good[random.nextInt(good.length)]);
            int mutations = random.nextInt(4);
            for (int m = 0; m < mutations && !sb.isEmpty(); m++) {
                int at = random.nextInt(sb.length());
                switch (random.nextInt(3)) {
                    case 0 -> sb.deleteCharAt(at);
                    case 1 -> sb.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
                    default -> sb.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
                }
            }
            String text = sb.toString();
            TlsDomainConfig d;
            try {
                d = TlsDomainConfig.parse(text);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), text);
                refused++;
                continue;
            }
            parsed++;
            assertEquals(d, TlsDomainConfig.parse(d.toString()), text);
        }
        assertTrue(parsed > 500 && refused > 500, parsed + " parsed, " + refused + " refused");
    }
}
