package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.Mode;
import org.sipcrypt.server.config.TransportImpl;

/** Every enum written by name in configuration reads it back in any case and names the choices it expected. */
@Timeout(10)
class ConfigNamedTest {

    @Test
    void namesReadBackInAnyCase() {
        assertEquals(ConnectionPattern.PER_CALL, ConnectionPattern.parse("Per-Call"));
        assertEquals(Transport.TLS, Transport.parse("TLS"));
        assertEquals(TransportImpl.JAIN_NIO, TransportImpl.parse("jain-NIO"));
        assertEquals(Mode.REDIRECT, Mode.parse("redirect"));
    }

    @Test
    void anUnknownNameIsRefusedWithTheNamesExpected() {
        assertEquals("unknown connection pattern \"sometimes\" (expected persistent or per-call)",
                assertThrows(IllegalArgumentException.class, () -> ConnectionPattern.parse("sometimes")).getMessage());
        assertEquals("unknown transport implementation \"epoll\" (expected netty, jain-nio or jain-oio)",
                assertThrows(IllegalArgumentException.class, () -> TransportImpl.parse("epoll")).getMessage());
    }

    @Test
    void alternativesReadAsASentence() {
        assertEquals("a", ConfigNamed.alternatives(java.util.List.of("a")));
        assertEquals("a or b", ConfigNamed.alternatives(java.util.List.of("a", "b")));
        assertEquals("a, b or c", ConfigNamed.alternatives(java.util.List.of("a", "b", "c")));
    }
}
