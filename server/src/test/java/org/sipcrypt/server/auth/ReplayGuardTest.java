package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ReplayGuardTest {

    private static final long T0 = Instant.parse("2026-11-21T12:00:00Z").toEpochMilli();
    private final Clock clock = Clock.fixed(Instant.ofEpochMilli(T0), ZoneOffset.UTC);

    @Test
    void eachNonceCountPassesOnce() {
        ReplayGuard g = new ReplayGuard(10, Duration.ofMinutes(5), clock);
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n", T0, 1));
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("n", T0, 1));
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n", T0, 2));
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("other", T0, 1));
    }

    @Test
    void countsOutOfOrderWithinTheWindowPassOnce() {
        ReplayGuard g = new ReplayGuard(10, Duration.ofMinutes(5), clock);
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n", T0, 5));
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n", T0, 3));
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("n", T0, 3));
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n", T0, 4));
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("n", T0, 5));
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n", T0, 100));
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("n", T0, 36), "64 or more below the highest: too old");
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("n", T0, 0));
    }

    @Test
    void memoryIsBoundedAndForgottenNoncesMustBeRenewed() {
        ReplayGuard g = new ReplayGuard(100, Duration.ofMinutes(5), clock);
        for (int i = 0; i < 1_000; i++) {
            assertEquals(ReplayGuard.Verdict.FRESH, g.accept("n" + i, T0 + i, 1));
            assertTrue(g.size() <= 100);
        }
        // n0 was dropped to stay in bounds: replaying it cannot pass, the client is sent a new nonce
        assertEquals(ReplayGuard.Verdict.FORGOTTEN, g.accept("n0", T0, 1));
        assertEquals(ReplayGuard.Verdict.FORGOTTEN, g.accept("n0", T0, 2));
        // nonces issued after the floor are remembered as usual
        assertEquals(ReplayGuard.Verdict.FRESH, g.accept("new", T0 + 5_000, 1));
    }

    @Test
    void expiredNoncesAreDroppedBeforeLiveOnes() {
        Instant now = Instant.ofEpochMilli(T0).plus(Duration.ofMinutes(10));
        ReplayGuard g = new ReplayGuard(3, Duration.ofMinutes(5), Clock.fixed(now, ZoneOffset.UTC));
        long old = T0;
        long live = now.toEpochMilli();
        g.accept("live1", live, 1);
        g.accept("old", old, 1);
        g.accept("live2", live, 1);
        g.accept("live3", live, 1);
        // "old" made room although "live1" came first, so the live ones are all still remembered
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("live1", live, 1));
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("live2", live, 1));
        assertEquals(ReplayGuard.Verdict.REPLAY, g.accept("live3", live, 1));
    }
}
