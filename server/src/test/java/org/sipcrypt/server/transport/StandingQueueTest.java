package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The standing-queue rule on given waits and times: bursts pass, a lasting wait is held near the target. */
class StandingQueueTest {

    private static final long MS = 1_000_000L;
    private final StandingQueue q = new StandingQueue(2, Duration.ofMillis(10), Duration.ofMillis(50));

    /** Arrivals every millisecond from {@code from} to {@code to} (inclusive) finding wait {@code waitMs}; whether any was refused. */
    private boolean arrivals(int lane, long from, long to, long waitMs) {
        boolean refused = false;
        for (long t = from; t <= to; t++) {
            refused |= q.refuse(lane, waitMs * MS, t * MS);
        }
        return refused;
    }

    @Test
    void aBurstThatDrainsWithinTheIntervalRefusesNothing() {
        assertFalse(arrivals(0, 0, 49, 40), "40 ms of waiting for 49 ms is a burst");
        assertFalse(q.refuse(0, 2 * MS, 50 * MS), "drained");
        assertFalse(arrivals(0, 51, 100, 40), "the count starts again after the queue drained");
        assertFalse(q.standing(0));
    }

    @Test
    void aWaitAboveTheTargetForTheIntervalRefusesUntilItFallsUnderHalfTheTarget() {
        assertFalse(arrivals(0, 0, 49, 20));
        assertTrue(q.refuse(0, 20 * MS, 50 * MS), "above 10 ms for 50 ms: standing");
        assertTrue(q.standing(0));
        assertFalse(q.standing(1), "lanes are apart");
        assertFalse(q.refuse(1, 20 * MS, 50 * MS), "the other lane's first wait is a burst");

        // held near the target: admitted at or under it, refused above it, and still standing
        assertFalse(q.refuse(0, 8 * MS, 51 * MS));
        assertTrue(q.refuse(0, 11 * MS, 52 * MS));
        assertFalse(q.refuse(0, 6 * MS, 53 * MS));
        assertTrue(q.standing(0));
        // under half the target: served again, and a new wait is a burst again
        assertFalse(q.refuse(0, 4 * MS, 54 * MS));
        assertFalse(q.standing(0));
        assertFalse(q.refuse(0, 30 * MS, 55 * MS));
    }

    @Test
    void aGapLongerThanTheIntervalStartsTheCountAgain() {
        // sparse arrivals on a stalled machine: each finds a wait, none a queue that lasted
        assertFalse(q.refuse(0, 20 * MS, 0));
        assertFalse(q.refuse(0, 20 * MS, 3_000 * MS), "3 s later: the lane may have emptied in between");
        assertFalse(q.refuse(0, 20 * MS, 3_040 * MS));
        assertTrue(q.refuse(0, 20 * MS, 3_050 * MS), "50 ms of arrivals no further apart than the interval");
        // standing, then nothing for longer than the interval: the next arrival starts afresh
        assertFalse(q.refuse(0, 20 * MS, 3_200 * MS));
        assertFalse(q.standing(0));
    }

    @Test
    void targetAndIntervalMustBeAboveZero() {
        assertThrows(IllegalArgumentException.class, () -> new StandingQueue(1, Duration.ZERO, Duration.ofMillis(50)));
        assertThrows(IllegalArgumentException.class, () -> new StandingQueue(1, Duration.ofMillis(10), Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new StandingQueue(0, Duration.ofMillis(10), Duration.ofMillis(50)));
    }
}
