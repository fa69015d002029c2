package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AddressTextTest {

    @Test
    void ipv6IsCompressedWithoutZone() throws Exception {
        assertEquals("::1", AddressText.of(InetAddress.getByName("::1")));
        assertEquals("2001:db8::1:0:0:1", AddressText.compress("2001:db8:0:0:1:0:0:1"));
        assertEquals("2001:db8:0:1:1:1:1:1", AddressText.compress("2001:0db8:0:1:1:1:1:1"));
        assertEquals("::", AddressText.compress("0:0:0:0:0:0:0:0"));
        assertEquals("127.0.0.1", AddressText.of(InetAddress.getByName("127.0.0.1")));
    }

    @Test
    void viaHostMatchesTheSameAddressHoweverWritten() throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        assertTrue(AddressText.sameHost("[::1]", v6));
        assertTrue(AddressText.sameHost("[0:0:0:0:0:0:0:1]", v6));
        assertFalse(AddressText.sameHost("[::2]", v6));
        assertTrue(AddressText.sameHost("127.0.0.1", InetAddress.getByName("127.0.0.1")));
        assertFalse(AddressText.sameHost("host.example", InetAddress.getByName("127.0.0.1")));
    }
}
