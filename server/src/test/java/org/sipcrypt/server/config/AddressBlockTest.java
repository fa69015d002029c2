package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The address blocks of {@code auth.trustedPeers}. */
class AddressBlockTest {

    private static InetAddress ip(String text) throws Exception {
        return InetAddress.getByName(text);
    }

    @Test
    void cidrBlockContainsItsAddressesOnly() throws Exception {
        AddressBlock b = AddressBlock.parse("10.1.2.3/16");
        assertEquals("10.1.0.0/16", b.toString());
        assertTrue(b.contains(ip("10.1.255.7")));
        assertFalse(b.contains(ip("10.2.0.1")));
        AddressBlock odd = AddressBlock.parse("192.0.2.128/25");
        assertTrue(odd.contains(ip("192.0.2.200")));
        assertFalse(odd.contains(ip("192.0.2.100")));
        AddressBlock v6 = AddressBlock.parse("2001:db8:8000::/33");
        assertTrue(v6.contains(ip("2001:db8:ffff::1")));
        assertFalse(v6.contains(ip("2001:db8:7fff::1")));
    }

    @Test
    void singleAddressIsABlockOfOne() throws Exception {
        AddressBlock b = AddressBlock.parse("192.0.2.10");
        assertTrue(b.contains(ip("192.0.2.10")));
        assertFalse(b.contains(ip("192.0.2.11")));
        AddressBlock v6 = AddressBlock.parse("[2001:db8::]/32");
        assertTrue(v6.contains(ip("2001:db8:1::5")));
        assertFalse(v6.contains(ip("192.0.2.10")));
        assertTrue(AddressBlock.parse("0.0.0.0/0").contains(ip("203.0.113.1")));
    }

    @Test
    void hostNamesAndBadPrefixesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> AddressBlock.parse("peer.example.com"));
        assertThrows(IllegalArgumentException.class, () -> AddressBlock.parse("10.0.0.0/33"));
        assertThrows(IllegalArgumentException.class, () -> AddressBlock.parse("10.0.0.0/x"));
        assertThrows(IllegalArgumentException.class, () -> AddressBlock.parse(""));
    }
}
