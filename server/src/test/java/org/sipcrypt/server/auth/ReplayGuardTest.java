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
        assertVerdicts(guard(10), fresh("n", 1), replay("n", 1), fresh("n", 2), fresh("other", 1));
    }

    @Test
    void countsOutOfOrderWithinTheWindowPassOnce() {
        assertVerdicts(guard(10), fresh("n", 5), fresh("n", 3), replay("n", 3), fresh("n", 4), replay("n", 5),
                fresh("n", 100),
                replay("n", 36), // 64 or more below the highest: too old
                replay("n", 0));
    }

    @Test
    void memoryIsBoundedAndForgottenNoncesMustBeRenewed() {
        ReplayGuard g = guard(100);
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

    private ReplayGuard guard(int maxNonces) {
        return new ReplayGuard(maxNonces, Duration.ofMinutes(5), clock);
    }

    /** One nonce count offered for a nonce issued at T0, and the verdict expected for it. */
    private record Step(String nonce, long count, ReplayGuard.Verdict expected) {
    }

    private static Step fresh(String nonce, long count) {
        return new Step(nonce, count, ReplayGuard.Verdict.FRESH);
    }

    private static Step replay(String nonce, long count) {
        return new Step(nonce, count, ReplayGuard.Verdict.REPLAY);
    }

    /** Offers the steps in order, each checked before the next is offered. */
    private static void assertVerdicts(ReplayGuard g, Step... steps) {
        for (Step s : steps) {
            assertEquals(s.expected(), g.accept(s.nonce(), T0, s.count()), s.toString());
        }
    }
}
