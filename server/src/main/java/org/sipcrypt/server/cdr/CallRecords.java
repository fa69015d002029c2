package org.sipcrypt.server.cdr;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.function.Consumer;
import org.sipcrypt.server.cdr.CallRecord.EndedBy;

/**
 * The calls in progress through the proxy, each a small {@link Call} created when the proxy takes an
 * INVITE outside a dialog, and the one event per stage the proxy reports: answered (a 2xx relayed
 * upstream), failed (a final response of 300 or more sent upstream), cancelled, ended (a BYE
 * relayed, or the operator's, {@link #endedByAdmin}) and forgotten (the dialog dropped by {@code EstablishedDialogs}' bound or age). A call
 * ends in one {@link CallRecord} handed to {@code finished}, which must not block ({@link CdrWriter#offer}).
 * Calls are kept by Call-ID, at most {@code maxOpen}; beyond that the oldest is finished as
 * {@link EndedBy#UNKNOWN}. When the proxy does not stay on the dialog's path ({@code seesEnds} false:
 * no Record-Route), an answered call is finished at once, its end unknown. A request that spirals
 * back through the proxy with a Call-ID already open is not recorded again. Gauge {@code cdr.calls.open}.
 * Threading: thread-safe; never blocks (one short lock per call event).
 */
public final class CallRecords {

    /**
     * One call in progress: what its record needs, kept from the INVITE on.
     * Threading: its mutable fields are guarded by the lock of the {@link CallRecords} that made it.
     */
    public static final class Call {
        final String callId;
        final String callerTag;
        final Instant start;
        final String caller;
        final String callee;
        final String user;
        final String inTransport;
        final String inCipher;
        Instant answer;
        String outTransport;
        String outCipher;
        int status;
        boolean cancelled;

        Call(String callId, String callerTag, Instant start, String caller, String callee, String user,
             String inTransport, String inCipher) {
            this.callId = callId;
            this.callerTag = callerTag;
            this.start = start;
            this.caller = caller;
            this.callee = callee;
            this.user = user;
            this.inTransport = inTransport;
            this.inCipher = inCipher;
        }

        CallRecord record(Instant end, EndedBy by) {
            return new CallRecord(callId, start, answer, end, caller, callee, user, inTransport, inCipher,
                    outTransport, outCipher, status, by);
        }
    }

    private final Clock clock;
    private final int maxOpen;
    private final boolean seesEnds;
    private final Consumer<CallRecord> finished;
    /** Calls by Call-ID, oldest first. */
    private final LinkedHashMap<String, Call> open = new LinkedHashMap<>();

    /**
     * @param maxOpen  most calls in progress kept (at least 1)
     * @param seesEnds whether the proxy record-routes and so sees the BYE (else an answered call is finished at once)
     * @param finished takes each finished record; must not block
     */
    public CallRecords(Clock clock, int maxOpen, boolean seesEnds, Consumer<CallRecord> finished,
                       MeterRegistry registry) {
        if (maxOpen < 1) {
            throw new IllegalArgumentException("maxOpen must be at least 1: " + maxOpen);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxOpen = maxOpen;
        this.seesEnds = seesEnds;
        this.finished = Objects.requireNonNull(finished, "finished");
        Gauge.builder("cdr.calls.open", this, CallRecords::size).register(registry);
    }

    /**
     * The proxy took an INVITE outside a dialog: its call starts now. Returns the call to report its
     * later events on, or null when a call of this Call-ID is open already (a spiral).
     *
     * @param callerTag the From tag (who sends a BYE is told by it), or null
     * @param inCipher  the caller's leg's TLS cipher suite, or null
     */
    public Call started(String callId, String callerTag, String caller, String callee, String user,
                        String inTransport, String inCipher) {
        Objects.requireNonNull(callId, "callId");
        Call c = new Call(callId, callerTag, now(), caller, callee, user, inTransport, inCipher);
        CallRecord evicted = null;
        synchronized (open) {
            if (open.containsKey(callId)) {
                return null;
            }
            if (open.size() >= maxOpen) {
                Iterator<Call> eldest = open.values().iterator();
                evicted = eldest.next().record(null, EndedBy.UNKNOWN);
                eldest.remove();
            }
            open.put(callId, c);
        }
        if (evicted != null) {
            finished.accept(evicted);
        }
        return c;
    }

    /** A 2xx to the call's INVITE went upstream (the first; later ones of other forks change nothing). */
    public void answered(Call c, int status, String outTransport, String outCipher) {
        CallRecord done = null;
        synchronized (open) {
            if (c.answer != null || open.get(c.callId) != c) {
                return;
            }
            c.answer = now();
            c.status = status;
            c.outTransport = outTransport;
            c.outCipher = outCipher;
            if (!seesEnds) {
                open.remove(c.callId);
                done = c.record(null, EndedBy.UNKNOWN);
            }
        }
        if (done != null) {
            finished.accept(done);
        }
    }

    /** The caller sent CANCEL for the call: a failure that follows is the caller's doing. */
    public void cancelled(Call c) {
        synchronized (open) {
            c.cancelled = true;
        }
    }

    /**
     * A final response of 300 or more went upstream for the call's INVITE and the call is over.
     *
     * @param fromCallee whether the response came from the called side (else the proxy made it)
     */
    public void failed(Call c, int status, boolean fromCallee) {
        CallRecord done;
        synchronized (open) {
            if (c.answer != null || open.get(c.callId) != c) {
                return;
            }
            open.remove(c.callId);
            c.status = status;
            EndedBy by = c.cancelled ? EndedBy.CALLER : fromCallee ? EndedBy.CALLEE
                    : status == 408 ? EndedBy.TIMEOUT : EndedBy.NONE;
            done = c.record(now(), by);
        }
        finished.accept(done);
    }

    /** A BYE of this Call-ID, From tag {@code fromTag}, was relayed or answered: the answered call ends now. */
    public void byeRelayed(String callId, String fromTag) {
        CallRecord done;
        synchronized (open) {
            Call c = callId == null ? null : open.get(callId);
            if (c == null || c.answer == null) {
                return;
            }
            open.remove(callId);
            done = c.record(now(), c.callerTag != null && c.callerTag.equals(fromTag)
                    ? EndedBy.CALLER : EndedBy.CALLEE);
        }
        finished.accept(done);
    }

    /** The operator ended the answered call of this Call-ID (the proxy sent the BYEs): it ends now. */
    public void endedByAdmin(String callId) {
        endAnswered(callId, true, EndedBy.ADMIN);
    }

    /** The dialog of this Call-ID was forgotten without its BYE: an answered call ends, its end unknown. */
    public void forgotten(String callId) {
        endAnswered(callId, false, EndedBy.UNKNOWN);
    }

    /** Ends the answered call of this Call-ID, now or at an unknown time; nothing for an unknown or unanswered one. */
    private void endAnswered(String callId, boolean endsNow, EndedBy by) {
        CallRecord done;
        synchronized (open) {
            Call c = open.get(callId);
            if (c == null || c.answer == null) {
                return;
            }
            open.remove(callId);
            done = c.record(endsNow ? now() : null, by);
        }
        finished.accept(done);
    }

    /** The time now, in milliseconds as records keep it, so that a duration is the difference of the times shown. */
    private Instant now() {
        return clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    }

    /** Calls in progress. */
    public int size() {
        synchronized (open) {
            return open.size();
        }
    }
}
