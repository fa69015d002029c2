package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.ManualClock;

@Timeout(10)
class NonceServiceTest {

    private static final byte[] SECRET = "0123456789abcdef-shared".getBytes(StandardCharsets.UTF_8);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-21T12:00:00Z"));
    private final NonceService nonces = new NonceService(SECRET, clock, Duration.ofMinutes(5), false);

    @Test
    void freshNonceIsValidAndCarriesItsIssueTime() {
        String n = nonces.create("127.0.0.1");
        NonceService.Check c = nonces.check(n, "127.0.0.1");
        assertEquals(NonceService.Status.VALID, c.status());
        assertEquals(clock.instant().toEpochMilli(), c.issuedAtMillis());
    }

    @Test
    void nonceOlderThanItsLifetimeIsStale() {
        String n = nonces.create("127.0.0.1");
        clock.set(clock.instant().plus(Duration.ofMinutes(5)).plusMillis(1));
        assertEquals(NonceService.Status.STALE, nonces.check(n, "127.0.0.1").status());
    }

    @Test
    void alteredOrForeignNoncesAreInvalid() {
        String n = nonces.create("127.0.0.1");
        char last = n.charAt(n.length() - 1);
        String altered = n.substring(0, n.length() - 1) + (last == 'A' ? 'B' : 'A');
        assertEquals(NonceService.Status.INVALID, nonces.check(altered, "127.0.0.1").status());
        NonceService other = new NonceService("another-secret-of-16".getBytes(StandardCharsets.UTF_8), clock,
                Duration.ofMinutes(5), false);
        assertEquals(NonceService.Status.INVALID, other.check(n, "127.0.0.1").status());
        for (String garbage : new String[] {"", "abc", "!".repeat(43), "A".repeat(43), "A".repeat(44), "A".repeat(32)}) {
            assertEquals(NonceService.Status.INVALID, nonces.check(garbage, "127.0.0.1").status(), garbage);
        }
        assertEquals(NonceService.Status.INVALID, nonces.check(null, "127.0.0.1").status());
    }

    @Test
    void serversSharingTheSecretAcceptEachOthersNonces() {
        NonceService second = new NonceService(SECRET.clone(), clock, Duration.ofMinutes(5), false);
        assertEquals(NonceService.Status.VALID, second.check(nonces.create("10.0.0.1"), "10.0.0.2").status());
    }

    @Test
    void nonceBoundToAnAddressIsInvalidFromAnother() {
        NonceService bound = new NonceService(SECRET, clock, Duration.ofMinutes(5), true);
        String n = bound.create("127.0.0.1");
        assertEquals(NonceService.Status.VALID, bound.check(n, "127.0.0.1").status());
        assertEquals(NonceService.Status.INVALID, bound.check(n, "127.0.0.2").status());
    }

    @Test
    void noncesFromTooFarInTheFutureAreInvalid() {
        Instant issued = clock.instant();
        String n = nonces.create("127.0.0.1");
        clock.set(issued.minus(NonceService.MAX_CLOCK_SKEW).minusSeconds(1));
        assertEquals(NonceService.Status.INVALID, nonces.check(n, "127.0.0.1").status());
    }

    @Test
    void noncesMadeInTheSameMillisecondDiffer() {
        java.util.Set<String> made = new java.util.HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            String n = nonces.create("127.0.0.1");
            assertEquals(NonceService.NONCE_LENGTH, n.length());
            made.add(n);
        }
        assertEquals(1_000, made.size());
    }

    @Test
    void shortSecretsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new NonceService(new byte[15], clock, Duration.ofMinutes(5), false));
    }
}
