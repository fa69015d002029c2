package org.sipcrypt.server.tls.bc;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.ExtensionType;
import org.bouncycastle.tls.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.ManualClock;

/**
 * A session ticket is the one thing a TLS 1.2 client hands the bc listener that the listener parses
 * from its own bytes: every mutant of a sealed ticket (bits flipped, cut, lengthened, bytes
 * replaced, random tickets, another key's name) is declined, and none throws. Seeded; the seed
 * is in the failure message.
 */
@Timeout(120)
class SessionTicketsFuzzTest {

    private static final long SEED = Long.getLong("sipcrypt.fuzz.seed", 0x5e55_1075L);
    private static final int MUTANTS = Integer.getInteger("sipcrypt.fuzz.tickets", 50_000);

    @Test
    void everyMutantOfASealedTicketIsDeclinedWithoutAThrow() {
        ManualClock clock = ManualClock.atSystemTime();
        SessionTickets tickets = new SessionTickets(new SecureRandom(), Duration.ofHours(1), clock);
        byte[] master = new byte[48];
        new SecureRandom().nextBytes(master);
        byte[] ticket = tickets.seal("default", new SessionTickets.State(
                CipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ProtocolVersion.TLSv12.getFullVersion(), true,
                master, new byte[][] {{0x30, 0x01, 0x02}}, Map.of(ExtensionType.extended_master_secret, new byte[0])));
        assertNotNull(tickets.open("default", ticket), "the ticket itself opens");
        Random random = new Random(SEED);
        for (int i = 0; i < MUTANTS; i++) {
            byte[] mutant = mutate(ticket, random);
            if (Arrays.equals(mutant, ticket)) {
                continue;
            }
            String where = "seed " + SEED + ", mutant " + i + ": " + java.util.HexFormat.of().formatHex(mutant);
            SessionTickets.State opened;
            try {
                opened = tickets.open("default", mutant);
            } catch (RuntimeException e) {
                throw new AssertionError(where + " threw " + e, e);
            }
            assertNull(opened, where + " was accepted");
        }
    }

    private static byte[] mutate(byte[] ticket, Random random) {
        byte[] m = ticket.clone();
        switch (random.nextInt(6)) {
            case 0 -> {
                // one to eight bits flipped anywhere: name, IV, ciphertext or tag
                for (int n = 1 + random.nextInt(8); n > 0; n--) {
                    int bit = random.nextInt(m.length * 8);
                    m[bit / 8] ^= (byte) (1 << (bit % 8));
                }
            }
            case 1 -> m = Arrays.copyOf(ticket, random.nextInt(ticket.length));
            case 2 -> {
                m = Arrays.copyOf(ticket, ticket.length + 1 + random.nextInt(64));
                for (int j = ticket.length; j < m.length; j++) {
                    m[j] = (byte) random.nextInt(256);
                }
            }
            case 3 -> {
                // a run of bytes replaced past the key name
                int from = 16 + random.nextInt(m.length - 16);
                int to = Math.min(m.length, from + 1 + random.nextInt(16));
                for (int j = from; j < to; j++) {
                    m[j] = (byte) random.nextInt(256);
                }
            }
            case 4 -> {
                // a ticket of random bytes that carries this key's name
                m = new byte[random.nextInt(2 * ticket.length)];
                random.nextBytes(m);
                System.arraycopy(ticket, 0, m, 0, Math.min(16, m.length));
            }
            default -> {
                // random bytes throughout
                m = new byte[random.nextInt(2 * ticket.length)];
                random.nextBytes(m);
            }
        }
        return m;
    }
}
