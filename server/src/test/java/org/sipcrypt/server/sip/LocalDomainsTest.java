package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Our own address is recognised however a URI spells it, as the JDK would resolve it, without a name lookup. */
class LocalDomainsTest {

    private final LocalDomains local = new LocalDomains(List.of("example.org"), List.of("127.0.0.1", "::1"),
            List.of(5070));

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.01", "0127.0.0.1", "127.000.000.001", "127.1", "127.0.1",
            "2130706433", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]"})
    void everySpellingOfOurAddressIsLocal(String host) {
        assertTrue(local.isLocal(host, 5070), host);
        assertFalse(local.isLocal(host, 5071), host + " on another port is someone else");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.2", "127.2", "4294967295.0.0.2", "1.2.3.4.5", "127..1", "127.0.0.1.",
            "host127.0.0.1", "99999999999999"})
    void otherHostsAreNot(String host) {
        assertFalse(local.isLocal(host, 5070), host);
    }

    @Test
    void eachAddressIsUsOnlyOnItsOwnListenersPorts() {
        // a listener on 0.0.0.0:5060 advertising sip.example.com:15060, another on 127.0.0.2:5070
        LocalDomains l = new LocalDomains(List.of(), Map.of("sip.example.com", Set.of(15060),
                "127.0.0.1", Set.of(5060), "127.0.0.2", Set.of(5070)));
        assertTrue(l.isLocal("SIP.example.com", 15060));
        assertFalse(l.isLocal("sip.example.com", 5060), "the advertised name on the bound port is not us");
        assertTrue(l.isLocal("127.0.0.1", -1), "no port is 5060");
        assertFalse(l.isLocal("127.0.0.1", 5070), "another listener's port on this address is someone else");
        assertTrue(l.isLocal("127.0.0.2", 5070));
        assertTrue(l.isLocalDomain("sip.example.com"));
        assertFalse(l.isLocalDomain("example.com"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"4294967296", "256.1.1.1", "1.16777216", "1.1.65536", "", "a.b", "1.2.3.4.5"})
    void outOfRangeOrMalformedNumbersAreNoAddress(String host) {
        assertNull(LocalDomains.ipv4Literal(host), host);
    }
}
