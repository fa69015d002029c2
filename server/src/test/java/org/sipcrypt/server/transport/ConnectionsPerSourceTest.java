package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ConnectionsPerSourceTest {

    private static InetAddress ip(String text) throws Exception {
        return InetAddress.getByName(text);
    }

    @Test
    void aSourceAtItsCapIsRefusedWhileAnotherIsAdmitted() throws Exception {
        ConnectionsPerSource c = new ConnectionsPerSource(2, a -> false);
        assertTrue(c.tryOpen(ip("192.0.2.1")));
        assertTrue(c.tryOpen(ip("192.0.2.1")));
        assertFalse(c.tryOpen(ip("192.0.2.1")));
        assertEquals(2, c.openFrom(ip("192.0.2.1")));
        assertTrue(c.tryOpen(ip("192.0.2.2")));
    }

    @Test
    void aClosedConnectionMakesRoomAndEmptySourcesLeaveTheTable() throws Exception {
        ConnectionsPerSource c = new ConnectionsPerSource(1, a -> false);
        assertTrue(c.tryOpen(ip("192.0.2.1")));
        assertFalse(c.tryOpen(ip("192.0.2.1")));
        c.closed(ip("192.0.2.1"));
        assertEquals(0, c.openFrom(ip("192.0.2.1")));
        assertTrue(c.tryOpen(ip("192.0.2.1")));
    }

    @Test
    void exemptSourcesAreNeverRefused() throws Exception {
        InetAddress peer = ip("10.0.0.7");
        ConnectionsPerSource c = new ConnectionsPerSource(1, peer::equals);
        for (int i = 0; i < 5; i++) {
            assertTrue(c.tryOpen(peer));
        }
        c.closed(peer);
        assertEquals(0, c.openFrom(peer));
        assertTrue(c.tryOpen(ip("10.0.0.8")));
        assertFalse(c.tryOpen(ip("10.0.0.8")));
    }
}
