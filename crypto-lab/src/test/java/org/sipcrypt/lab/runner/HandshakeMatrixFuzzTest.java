package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded combinations for {@link HandshakeMatrix#parseOne}, made of the names it knows, near misses,
 * separators, spaces and stray characters: input {@code i} is a pure function of the seed and
 * {@code i}, so every build checks the same inputs ({@code -Dhandshakes.fuzz.seed},
 * {@code -Dhandshakes.fuzz.inputs} for more). Invariants: only {@link IllegalArgumentException} is
 * thrown, its message naming {@code --handshakes}; what is accepted has two to four parts each of
 * which, trimmed and in lower case, is the name of what it became (nothing is guessed or corrected),
 * and its text reads back to the same handshake.
 */
@Timeout(60)
class HandshakeMatrixFuzzTest {

    private static final long SEED = Long.getLong("handshakes.fuzz.seed", 8446);
    private static final long INPUTS = Long.getLong("handshakes.fuzz.inputs", 20_000);

    private static final String[] TOKENS = {"1.2", "1.3", "1.1", "1.", "13", "rsa", "RSA", "ecdhe-p256", "ecdhe-x25519",
        "x25519mlkem768", "ecdhe", "p256", "rsa2048", "rsa3072", "ecdsa-p256", "ecdsa", "none", "session-id",
        "ticket", "psk", "", " ", "/", "//", ",", "-", "\t", "é", "\u0000", "1.3 ", " ecdhe-x25519"};

    @Test
    void everyInputIsParsedExactlyOrRefusedByName() {
        long accepted = 0;
        for (long i = 0; i < INPUTS; i++) {
            String input = input(new SplittableRandom(SEED * 1_000_003L + i));
            Handshake h;
            try {
                h = HandshakeMatrix.parseOne(input);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().startsWith("--handshakes: \""), i + " " + input + ": " + e.getMessage());
                continue;
            } catch (RuntimeException e) {
                fail("input " + i + " \"" + input + "\": " + e, e);
                return;
            }
            accepted++;
            String[] parts = input.trim().split("/", -1);
            assertTrue(parts.length >= 2 && parts.length <= 4, input);
            assertEquals(h.version(), parts[0].trim(), input);
            assertEquals(h.keyExchange().configName(), norm(parts[1]), input);
            if (parts.length > 2) {
                assertEquals(h.certificate().configName(), norm(parts[2]), input);
            }
            if (parts.length > 3) {
                assertEquals(h.resumption().configName(), norm(parts[3]), input);
            }
            assertEquals(h, HandshakeMatrix.parseOne(HandshakeMatrix.text(h)), input);
        }
        assertTrue(accepted > INPUTS / 50, "the inputs reach valid combinations too: " + accepted);
    }

    private static String norm(String part) {
        return part.trim().toLowerCase(Locale.ROOT);
    }

    private static final String[][] BY_PART = {{"1.2", "1.3"}, {"rsa", "ecdhe-p256", "ecdhe-x25519", "x25519mlkem768"},
        {"rsa2048", "rsa3072", "ecdsa-p256"}, {"none", "session-id"}};

    private static String input(SplittableRandom r) {
        if (r.nextBoolean()) {
            // a combination of names in their places, sometimes with a stray token, its case or spaces changed
            StringBuilder b = new StringBuilder();
            int parts = 2 + r.nextInt(3);
            for (int p = 0; p < parts; p++) {
                String name = BY_PART[p][r.nextInt(BY_PART[p].length)];
                name = r.nextInt(8) == 0 ? name.toUpperCase(Locale.ROOT) : name;
                name = r.nextInt(8) == 0 ? " " + name + " " : name;
                b.append(p > 0 ? "/" : "").append(r.nextInt(30) == 0 ? TOKENS[r.nextInt(TOKENS.length)] : name);
            }
            return b.toString();
        }
        StringBuilder b = new StringBuilder();
        int parts = 1 + r.nextInt(5);
        for (int p = 0; p < parts; p++) {
            if (p > 0) {
                b.append(r.nextInt(20) == 0 ? TOKENS[r.nextInt(TOKENS.length)] : "/");
            }
            b.append(TOKENS[r.nextInt(TOKENS.length)]);
            if (r.nextInt(10) == 0) {
                b.append(TOKENS[r.nextInt(TOKENS.length)]);
            }
        }
        return b.toString();
    }
}
