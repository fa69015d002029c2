package org.sipcrypt.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * The lab's legs run UDP, TCP and TLS; the server's WebSocket transports are refused by name, since
 * the load generator has none.
 * Threading: JUnit's test thread only.
 */
class LegTest {

    @Test
    void webSocketTransportsAreRefusedByName() {
        assertEquals(Transport.TLS, Leg.labTransport("TLS"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Leg.labTransport("wss"));
        assertEquals("transport \"wss\": the lab's load generator has no WebSocket transport (expected udp, tcp or tls)",
                e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new Leg(Transport.WS, ConnectionPattern.PERSISTENT, false, false));
    }
}
