package org.sipcrypt.server.sip.proxy;

import java.util.ArrayList;
import java.util.List;
import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.cdr.CallRecords;

/**
 * The response context of one proxied request (RFC 3261 §16.7): its server transaction, its
 * branches, and which response goes upstream. Holds state only; {@link StatefulProxy} acts on it.
 * Threading: thread-safe (every method synchronized); responses, timeouts and CANCEL may arrive on
 * different threads.
 */
final class ProxyCall {

    /** One forwarded copy of the request. */
    static final class Branch {
        final ProxyCall call;
        final Request request;
        ClientTransaction tx;
        boolean provisional;
        boolean cancelPending;
        boolean cancelled;
        int finalStatus;
        Response finalResponse;
        /** The next hops DNS found after this branch's (RFC 3263 §4.3), to fail over to; null for none. */
        NextHopFailover failover;
        /** Timer C of an INVITE branch (RFC 3261 §16.6 step 11); null when not running. */
        java.util.concurrent.ScheduledFuture<?> timerC;
        /** What this branch was sent to; with a failover, which of its hops is {@link #attempt}. */
        Target target;
        int attempt;
        /** With a failover, the request as it was before this proxy rewrote it for a hop, copied for the next. */
        Request original;
        /** Whether it ended in a failover to the next hop. */
        boolean failedOver;

        Branch(ProxyCall call, Request request) {
            this.call = call;
            this.request = request;
        }

        boolean pending() {
            return finalStatus == 0;
        }
    }

    final ServerTransaction st;
    final Request request;
    final String callId;
    final boolean invite;
    /** The call's detail record while it is in progress; null unless recorded (an INVITE outside a dialog). */
    final CallRecords.Call record;
    /** When the proxy took an INVITE whose established call is kept ({@link EstablishedCall}); else null. */
    final java.time.Instant started;
    private final List<Branch> branches = new ArrayList<>();
    private boolean forwarding;
    private boolean finalSent;
    private int finalSentStatus;
    private boolean cancelled;

    ProxyCall(ServerTransaction st, Request request, String callId) {
        this(st, request, callId, null, null);
    }

    ProxyCall(ServerTransaction st, Request request, String callId, CallRecords.Call record,
              java.time.Instant started) {
        this.st = st;
        this.request = request;
        this.callId = callId;
        this.invite = Request.INVITE.equals(request.getMethod());
        this.record = record;
        this.started = started;
    }

    synchronized Branch addBranch(Request forwarded) {
        forwarding = true;
        Branch b = new Branch(this, forwarded);
        branches.add(b);
        return b;
    }

    /**
     * Sequential failover (RFC 3261 §16.6, §16.7): when branch {@code b}, still pending, ends with a
     * status that fails over ({@link Failover#failsOver}) and its target has a hop after this one, and
     * neither a CANCEL nor a final response upstream has come, {@code b} ends with that status and the
     * branch to the next hop is added in the same step (so the call never looks finished in between);
     * returns it, its request a fresh copy of the original. Null otherwise: {@code b} is left for
     * {@link #finalResponse}.
     */
    synchronized Branch failover(Branch b, int status, Response response) {
        Failover f = b.target == null ? null : b.target.failover();
        if (f == null || !b.pending() || !Failover.failsOver(status) || cancelled || finalSent || b.cancelled
                || b.cancelPending || b.attempt + 1 >= f.hops().size() || b.original == null) {
            return null;
        }
        b.finalStatus = status;
        b.finalResponse = response;
        b.failedOver = true;
        Branch next = new Branch(this, (Request) b.original.clone());
        next.target = b.target;
        next.attempt = b.attempt + 1;
        next.original = b.original;
        branches.add(next);
        return next;
    }

    /**
     * Failover to the next address DNS found for the same hop (RFC 3263 §4.3): when branch {@code b}
     * is still pending and neither a CANCEL nor a final response upstream has come, {@code b} ends
     * with {@code status} as in {@link #failover} and a branch with {@code request}, the same target
     * and attempt, is added in the same step and returned. Null otherwise.
     */
    synchronized Branch failoverInPlace(Branch b, int status, Response response, Request request) {
        if (!b.pending() || cancelled || finalSent || b.cancelled || b.cancelPending) {
            return null;
        }
        b.finalStatus = status;
        b.finalResponse = response;
        b.failedOver = true;
        Branch next = new Branch(this, request);
        next.target = b.target;
        next.attempt = b.attempt;
        next.original = b.original;
        branches.add(next);
        return next;
    }

    synchronized boolean cancelled() {
        return cancelled;
    }

    /**
     * Marks the call cancelled; returns the branches to send CANCEL on now (those with a
     * provisional response). The others get CANCEL when their first provisional arrives
     * (RFC 3261 §9.1).
     */
    synchronized List<Branch> cancel() {
        cancelled = true;
        return cancelBranches(null);
    }

    /** Whether the upstream request was answered before the branches were created. */
    synchronized boolean forwarding() {
        return forwarding;
    }

    private List<Branch> cancelBranches(Branch except) {
        List<Branch> now = new ArrayList<>();
        for (Branch b : branches) {
            if (b == except || !b.pending() || b.cancelled) {
                continue;
            }
            if (b.provisional) {
                b.cancelled = true;
                now.add(b);
            } else {
                b.cancelPending = true;
            }
        }
        return now;
    }

    /** A provisional response arrived on a branch: returns true when it should now be cancelled. */
    synchronized boolean provisional(Branch b) {
        b.provisional = true;
        if (b.cancelPending && !b.cancelled && b.pending()) {
            b.cancelled = true;
            return true;
        }
        return false;
    }

    /** Whether a branch still waiting for its final response has had a provisional one. */
    synchronized boolean provisionalReceived(Branch b) {
        return b.pending() && b.provisional;
    }

    /** Marks one pending branch cancelled; false when it already was or has ended. */
    synchronized boolean markCancelled(Branch b) {
        if (!b.pending() || b.cancelled) {
            return false;
        }
        b.cancelled = true;
        return true;
    }

    synchronized boolean finalSent() {
        return finalSent;
    }

    /** What to do after a final response on a branch. */
    record Verdict(Response forward, int synthesize, List<Branch> cancel, boolean done) {
    }

    /**
     * Records a branch's final response ({@code response == null} for one the proxy synthesised,
     * e.g. 408 on timeout) and decides what goes upstream (RFC 3261 §16.7 steps 4-6).
     */
    synchronized Verdict finalResponse(Branch b, int status, Response response) {
        if (!b.pending()) {
            return new Verdict(null, 0, List.of(), false);
        }
        b.finalStatus = status;
        b.finalResponse = response;
        if (status >= 200 && status < 300) {
            finalSent = true;
            finalSentStatus = status;
            List<Branch> cancel = invite ? cancelBranches(b) : List.of();
            return new Verdict(response, 0, cancel, allBranchesDone());
        }
        List<Branch> cancel = invite && status >= 600 ? cancelBranches(b) : List.of();
        if (finalSent || !allBranchesDone()) {
            return new Verdict(null, 0, cancel, allBranchesDone());
        }
        Branch best = best();
        finalSent = true;
        finalSentStatus = best.finalStatus;
        if (best.finalResponse != null && best.finalStatus != 503) {
            return new Verdict(best.finalResponse, 0, cancel, true);
        }
        return new Verdict(null, best.finalStatus == 503 ? 500 : best.finalStatus, cancel, true);
    }

    /**
     * A 2xx on branch {@code b} that goes upstream from its bytes, not as a message: recorded as
     * {@link #finalResponse} records one, returning the branches to cancel now; null when it cannot
     * go so (the branch has ended, or a final response went upstream already, which the stack's
     * path sorts out).
     */
    synchronized List<Branch> okFromBytes(Branch b, int status) {
        if (!b.pending() || finalSent || status < 200 || status >= 300) {
            return null;
        }
        b.finalStatus = status;
        finalSent = true;
        finalSentStatus = status;
        return invite ? cancelBranches(b) : List.of();
    }

    /** Whether every branch has its final response. */
    synchronized boolean allDone() {
        return allBranchesDone();
    }

    synchronized int finalSentStatus() {
        return finalSentStatus;
    }

    private boolean allBranchesDone() {
        for (Branch b : branches) {
            if (b.pending()) {
                return false;
            }
        }
        return true;
    }

    /**
     * §16.7 step 6: a 6xx if any, else the lowest response class, first received within it. A branch a
     * failover went on from counts only when the attempts after it failed too (the set was exhausted):
     * the answer of the destination that answered otherwise goes upstream, not a 408 before it.
     */
    private Branch best() {
        Branch best = best(false);
        return best != null && !Failover.failsOver(best.finalStatus) ? best : best(true);
    }

    private Branch best(boolean failedOverToo) {
        Branch best = null;
        for (Branch b : branches) {
            if (b.failedOver && !failedOverToo) {
                continue;
            }
            if (b.finalStatus >= 600) {
                return b;
            }
            if (best == null || b.finalStatus / 100 < best.finalStatus / 100) {
                best = b;
            }
        }
        return best;
    }
}
