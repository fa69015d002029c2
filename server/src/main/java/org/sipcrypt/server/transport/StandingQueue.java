package org.sipcrypt.server.transport;

import java.time.Duration;

/**
 * Tells a standing queue from a burst, per SIP worker lane, by the wait of the lane's oldest message
 * as arriving requests find it: the idea of CoDel (RFC 8289) applied to admission instead of drops.
 * A lane stands once that wait has stayed above {@code target} for {@code interval}, seen by
 * arrivals no further than an interval apart (a longer gap may have emptied the queue, so the count
 * starts again); from then on new requests are refused while the wait is above the target, and the
 * lane stops standing once the wait is back under half the target. A burst that drains within the
 * interval (a scheduling slice, a collection, a client's batch) refuses nothing, however many
 * messages it queued; a queue that does not drain is held near the target, in time rather than in
 * messages, whatever the speed of the core.
 * Threading: thread-safe; never blocks. Event loops update a lane's state without locks: two racing
 * arrivals can shift when a lane is found standing by one arrival, never leave it standing once
 * its wait has fallen.
 */
final class StandingQueue {

    private static final long NONE = Long.MIN_VALUE;

    private final long targetNanos;
    private final long intervalNanos;
    private final Lane[] lanes;

    /** One lane's state. */
    private static final class Lane {
        volatile long aboveSince = NONE;
        volatile long lastAbove = NONE;
        volatile boolean standing;
    }

    /**
     * @param lanes    how many lanes there are
     * @param target   the wait above which a lasting queue is refused new work (above zero)
     * @param interval how long the wait must stay above the target (above zero)
     */
    StandingQueue(int lanes, Duration target, Duration interval) {
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be at least 1: " + lanes);
        }
        if (target.isNegative() || target.isZero() || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("target and interval must be above zero: " + target + ", " + interval);
        }
        this.targetNanos = target.toNanos();
        this.intervalNanos = interval.toNanos();
        this.lanes = new Lane[lanes];
        for (int i = 0; i < lanes; i++) {
            this.lanes[i] = new Lane();
        }
    }

    /**
     * Whether a new request arriving at {@code now} (nanoseconds, the lanes' ticker) on lane
     * {@code lane}, whose oldest message has waited {@code waitNanos}, is to be refused.
     */
    boolean refuse(int lane, long waitNanos, long now) {
        Lane l = lanes[lane];
        boolean standing = l.standing;
        if (waitNanos <= (standing ? targetNanos / 2 : targetNanos)) {
            if (standing) {
                l.standing = false;
            }
            if (l.aboveSince != NONE) {
                l.aboveSince = NONE;
            }
            return false;
        }
        long since = l.aboveSince;
        long last = l.lastAbove;
        if (since == NONE || now - last > intervalNanos) {
            // the first arrival to find a wait, or the first after a gap in which the lane may have emptied
            since = now;
            l.aboveSince = now;
            if (standing) {
                standing = false;
                l.standing = false;
            }
        }
        l.lastAbove = now;
        if (!standing && now - since >= intervalNanos) {
            standing = true;
            l.standing = true;
        }
        return standing && waitNanos > targetNanos;
    }

    /** Whether lane {@code lane} stands now (for tests and diagnostics). */
    boolean standing(int lane) {
        return lanes[lane].standing;
    }
}
