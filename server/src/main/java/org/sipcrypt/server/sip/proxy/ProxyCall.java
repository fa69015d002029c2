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
    private final List<Branch> branches = new ArrayList<>();
    private boolean forwarding;
    private boolean finalSent;
    private int finalSentStatus;
    private boolean cancelled;

    ProxyCall(ServerTransaction st, Request request, String callId) {
        this(st, request, callId, null);
    }

    ProxyCall(ServerTransaction st, Request request, String callId, CallRecords.Call record) {
        this.st = st;
        this.request = request;
        this.callId = callId;
        this.invite = Request.INVITE.equals(request.getMethod());
        this.record = record;
    }

    synchronized Branch addBranch(Request forwarded) {
        forwarding = true;
        Branch b = new Branch(this, forwarded);
        branches.add(b);
        return b;
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

    /** §16.7 step 6: a 6xx if any, else the lowest response class, first received within it. */
    private Branch best() {
        Branch best = null;
        for (Branch b : branches) {
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
