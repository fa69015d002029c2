package org.sipcrypt.server.tls.bc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.ExtensionType;
import org.bouncycastle.tls.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.ManualClock;

/** The bc listener's TLS 1.2 session tickets: what a ticket carries back, and which tickets are declined. */
@Timeout(10)
class SessionTicketsTest {

    private final ManualClock clock = ManualClock.atSystemTime();
    private final SessionTickets tickets = new SessionTickets(new SecureRandom(), Duration.ofHours(1), clock);

    private static SessionTickets.State state() {
        byte[] master = new byte[48];
        new SecureRandom().nextBytes(master);
        return new SessionTickets.State(CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
                ProtocolVersion.TLSv12.getFullVersion(), true, master,
                new byte[][] {{0x30, 0x01, 0x02}, {0x30, 0x03}},
                Map.of(ExtensionType.extended_master_secret, new byte[0], ExtensionType.renegotiation_info, new byte[] {0}));
    }

    @Test
    void aTicketCarriesItsSessionBack() {
        SessionTickets.State sealed = state();
        byte[] ticket = tickets.seal("default", sealed);
        SessionTickets.State opened = tickets.open("default", ticket);
        assertNotNull(opened);
        assertEquals(sealed.cipherSuite(), opened.cipherSuite());
        assertEquals(sealed.version(), opened.version());
        assertTrue(opened.extendedMasterSecret());
        assertArrayEquals(sealed.masterSecret(), opened.masterSecret());
        assertEquals(2, opened.peerChain().length);
        assertArrayEquals(sealed.peerChain()[1], opened.peerChain()[1]);
        assertEquals(sealed.serverExtensions().keySet(), opened.serverExtensions().keySet());
        assertArrayEquals(new byte[] {0}, opened.serverExtensions().get(ExtensionType.renegotiation_info));
    }

    @Test
    void theMasterSecretIsNotInTheTicketInClear() {
        SessionTickets.State sealed = state();
        byte[] ticket = tickets.seal("default", sealed);
        assertEquals(-1, indexOf(ticket, java.util.Arrays.copyOf(sealed.masterSecret(), 8)));
    }

    @Test
    void aTicketResumesOnlyUnderTheIdentityThatGrantedIt() {
        byte[] ticket = tickets.seal("sip.example.com", state());
        assertNull(tickets.open("default", ticket));
        assertNotNull(tickets.open("sip.example.com", ticket));
    }

    @Test
    void aTamperedTicketIsDeclined() {
        byte[] ticket = tickets.seal("default", state());
        ticket[ticket.length - 20] ^= 1;
        assertNull(tickets.open("default", ticket));
        assertNull(tickets.open("default", new byte[10]));
    }

    @Test
    void anotherKeysTicketIsDeclined() {
        SessionTickets other = new SessionTickets(new SecureRandom(), Duration.ofHours(1), clock);
        assertNull(tickets.open("default", other.seal("default", state())));
    }

    @Test
    void aTicketExpiresWithTheSessionLifetime() {
        byte[] ticket = tickets.seal("default", state());
        clock.advance(Duration.ofMinutes(59));
        assertNotNull(tickets.open("default", ticket));
        clock.advance(Duration.ofMinutes(1));
        assertNull(tickets.open("default", ticket));
        assertEquals(3600, tickets.lifetimeHintSeconds());
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
