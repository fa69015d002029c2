package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** What the early ACK relay reads of a URI without the parser, and what it leaves to the parser. */
class SipUriTextTest {

    @Test
    void readsARecordRouteOfOurs() {
        SipUriText uri = SipUriText.read("sip:127.0.0.1:5060;transport=udp;lr;sc-sig=AbC_d-9");
        assertFalse(uri.secure());
        assertEquals("127.0.0.1", uri.host());
        assertEquals(5060, uri.port());
        assertEquals("udp", uri.param("transport"));
        assertEquals("", uri.param("lr"));
        assertEquals("AbC_d-9", uri.param("sc-sig"));
        assertNull(uri.param("maddr"));
        assertArrayEquals(new byte[] {127, 0, 0, 1}, uri.ipv4());
    }

    @Test
    void readsAUserPartWithParametersAndAnAtSignFreeHost() {
        SipUriText uri = SipUriText.read("SIPS:bob;phone-context=x@Example.org;LR?Subject=hi");
        assertTrue(uri.secure());
        assertEquals("Example.org", uri.host());
        assertEquals(-1, uri.port());
        assertEquals("", uri.param("lr"), "parameter names compare without case");
        assertNull(uri.ipv4(), "a host name is not an address");
    }

    @Test
    void anIpv4LookalikeIsNoAddress() {
        assertNull(SipUriText.read("sip:1.2.3").ipv4());
        assertNull(SipUriText.read("sip:1.2.3.256").ipv4());
        assertNull(SipUriText.read("sip:1.2.3.4.5").ipv4());
        assertNull(SipUriText.read("sip:1..3.4").ipv4());
    }

    @ParameterizedTest
    @ValueSource(strings = {"sip:127.0.0.01", "sip:0127.0.0.1", "sip:127.000.0.1", "sip:127.0.00.1:5060"})
    void anAddressWithLeadingZerosIsLeftToTheStack(String uri) {
        // the JDK reads 127.0.0.01 as 127.0.0.1: compared as text with our address, it would pass as foreign
        assertNull(SipUriText.read(uri).ipv4(), uri);
        assertArrayEquals(new byte[] {10, 0, 0, 0}, SipUriText.read("sip:10.0.0.0").ipv4(), "a single zero is a part");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tel:+4930123", "sip:[::1]:5060", "sip:host:", "sip:host:123456", "sip:host:70000",
            "sip:ho_st", "sip:", "sip:bob@", "sip:host:5x"})
    void leavesToTheParserWhatItDoesNotRead(String uri) {
        assertNull(SipUriText.read(uri), uri);
    }
}
