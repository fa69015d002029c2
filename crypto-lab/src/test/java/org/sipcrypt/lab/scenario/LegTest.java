package org.sipcrypt.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * A scenario's legs are UDP, TCP or TLS; SIP over WebSocket is not a leg of its own but chosen per
 * compared name ({@code ws}, {@code wss:CIPHER}), which turns every TLS leg into WS or WSS and leaves
 * the plaintext legs as they are.
 * Threading: JUnit's test thread only.
 */
class LegTest {

    @Test
    void webSocketTransportsAreRefusedAsLegsByName() {
        assertEquals(Transport.TLS, Leg.labTransport("TLS"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Leg.labTransport("wss"));
        assertEquals("transport \"wss\": expected udp, tcp or tls (SIP over WebSocket is not a leg of its own:"
                + " compare names ws and wss:CIPHER turn every tls leg into ws or wss)", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new Leg(Transport.WS, ConnectionPattern.PERSISTENT, false, false));
    }

    @Test
    void webSocketNamesTurnTlsLegsOnlyIntoWebSocket() {
        Leg tls = new Leg(Transport.TLS, ConnectionPattern.PERSISTENT, true, false);
        Leg udp = new Leg(Transport.UDP, ConnectionPattern.PERSISTENT, true, false);
        assertEquals(Transport.WS, tls.transportFor("ws"));
        assertEquals(Transport.WSS, tls.transportFor("wss:aes"));
        assertEquals(Transport.TLS, tls.transportFor("aes"));
        assertEquals(Transport.UDP, udp.transportFor("ws"));
        assertEquals(Transport.UDP, udp.transportFor("wss:aes"));
    }
}
