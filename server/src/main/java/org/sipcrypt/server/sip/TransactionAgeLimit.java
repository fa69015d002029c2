package org.sipcrypt.server.sip;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The bound on the age of a live server transaction, whatever its input. RFC 3261 §17.2 ends every
 * server transaction by its timers, but only once its final response has gone or failed in a way
 * the stack notices; one the stack lost track of (a send that failed where no one looked) would
 * stay in its table, with its messages and its branch, for good. A periodic sweep hands this
 * class the transactions in the table; those older than their bound are returned, to be ended and
 * counted ({@code sip.transactions.aborted{reason=age_bound}}).
 *
 * <p>The bounds are the longest a transaction may rightly live, plus a margin: a non-INVITE one
 * waits at most Timer F (64·T1) for the response it forwarded, then Timer J (64·T1);
 * an INVITE one waits at most Timer C for a final response (RFC 3261 §16.6 step 11; restarted by
 * each provisional response, so a call ringing longer than Timer C with repeated provisional
 * responses is cut), then Timer H (64·T1). A transaction's age counts from the first sweep that
 * saw it, so it ends between its bound and its bound plus one sweep interval after it began.
 * Transactions are held between two sweeps only while they are in the table.
 * Threading: thread-safe (one sweep at a time); never blocks.
 *
 * @param <T> the transaction type (JAIN-SIP's server transaction in the server, anything in tests)
 */
public final class TransactionAgeLimit<T> {

    /** RFC 3261 §17.1.1.1's T1, JAIN-SIP's default base timer interval. */
    public static final Duration T1 = Duration.ofMillis(500);
    /** 64·T1: Timers F, H and J (RFC 3261 §17.1.2.2, §17.2.1, §17.2.2). */
    public static final Duration TIMER_64_T1 = T1.multipliedBy(64);
    /** Added to each bound so that a transaction ending by its own timers, a little late, is not cut. */
    public static final Duration MARGIN = Duration.ofSeconds(8);

    private final long inviteBoundNanos;
    private final long nonInviteBoundNanos;
    private final Predicate<? super T> isInvite;
    private Map<T, Long> firstSeen = new IdentityHashMap<>();

    /**
     * @param timerC   the proxy's Timer C (how long an INVITE may wait for a final response)
     * @param isInvite whether a transaction is an INVITE transaction
     */
    public TransactionAgeLimit(Duration timerC, Predicate<? super T> isInvite) {
        this(timerC.plus(TIMER_64_T1).plus(MARGIN), TIMER_64_T1.multipliedBy(2).plus(MARGIN), isInvite);
    }

    /** Explicit bounds, for tests. */
    TransactionAgeLimit(Duration inviteBound, Duration nonInviteBound, Predicate<? super T> isInvite) {
        if (inviteBound.isNegative() || inviteBound.isZero() || nonInviteBound.isNegative() || nonInviteBound.isZero()) {
            throw new IllegalArgumentException("age bounds must be positive: INVITE " + inviteBound + ", non-INVITE "
                    + nonInviteBound);
        }
        this.inviteBoundNanos = inviteBound.toNanos();
        this.nonInviteBoundNanos = nonInviteBound.toNanos();
        this.isInvite = Objects.requireNonNull(isInvite, "isInvite");
    }

    /** The age beyond which an INVITE transaction is ended. */
    public Duration inviteBound() {
        return Duration.ofNanos(inviteBoundNanos);
    }

    /** The age beyond which a non-INVITE transaction is ended. */
    public Duration nonInviteBound() {
        return Duration.ofNanos(nonInviteBoundNanos);
    }

    /**
     * One sweep: notes the transactions in {@code live} not seen before, forgets those no longer
     * live, and returns those older than their bound (forgotten too: the caller ends them).
     *
     * @param nowNanos a monotonic clock's reading ({@link System#nanoTime()} in the server)
     */
    public synchronized List<T> overage(Collection<? extends T> live, long nowNanos) {
        Map<T, Long> seen = new IdentityHashMap<>(Math.max(16, live.size() * 2));
        List<T> over = new ArrayList<>();
        for (T t : live) {
            Long since = firstSeen.get(t);
            if (since == null) {
                seen.put(t, nowNanos);
            } else if (nowNanos - since > (isInvite.test(t) ? inviteBoundNanos : nonInviteBoundNanos)) {
                over.add(t);
            } else {
                seen.put(t, since);
            }
        }
        firstSeen = seen;
        return over;
    }

    /** Transactions noted by the last sweep. */
    public synchronized int tracked() {
        return firstSeen.size();
    }
}
