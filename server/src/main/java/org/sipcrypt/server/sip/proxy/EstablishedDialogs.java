package org.sipcrypt.server.sip.proxy;

import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Message;

/**
 * The calls this proxy record-routed and saw established: what a shutdown drain waits for (RFC 3261
 * §16.6 step 4: a proxy that record-routes stays on the dialog's path), and what a signed route
 * must match to prove a live dialog ({@code AccessPolicy}; overload shedding asks {@link #tracks}).
 * A dialog is added when a 2xx to an INVITE is forwarded, with its caller's tag (the From tag of
 * the 2xx), refreshed by each later 2xx to a re-INVITE and by each in-dialog request its signed
 * route lets through ({@link #live}), and removed when a BYE in it has been relayed or answered
 * (RFC 3261 §15.1.2: whatever the answer) or when it has gone {@code lifetime} without a refresh
 * (its BYE may have taken another path). At most {@code maxDialogs} are kept; beyond that the
 * oldest is forgotten. A dialog ended by a BYE relayed from its bytes is remembered for
 * {@link #BYE_RETRANSMISSIONS} with that BYE's branch, CSeq and Request-URI, so that the BYE's own
 * retransmissions and the ACKs of the 2xx, and nothing else, are still relayed (RFC 3261 §17.1.2.2:
 * a BYE is retransmitted for up to 64*T1); at most {@code maxDialogs} of those too. Each entry is one key string (Call-ID
 * and both tags) with the caller's tag and its time, about 250 bytes; with {@code keepsCalls} (the
 * management API on) also its {@link EstablishedCall}, about 1 to 2 KB more. Counted: gauge
 * {@code sip.dialogs.established}, {@code sip.dialogs.forgotten{reason=full|expired}}.
 * Threading: thread-safe; never blocks (one short lock per call event).
 */
public final class EstablishedDialogs {

    /** How long a BYE relayed from its bytes is still relayed again: 64*T1, Timer F (RFC 3261 §17.1.2.2). */
    static final Duration BYE_RETRANSMISSIONS = Duration.ofSeconds(32);

    private final int maxDialogs;
    private final long lifetimeNanos;
    private final Ticker ticker;
    private final Counter forgottenFull;
    private final Counter forgottenExpired;
    private final Consumer<String> forgotten;
    private final boolean keepsCalls;
    /** Insertion order is refresh order (an entry is re-inserted when refreshed): oldest first. */
    private final LinkedHashMap<String, Dialog> dialogs = new LinkedHashMap<>();
    /** Dialogs ended by a BYE relayed from its bytes, oldest first; their {@code bye} is set. */
    private final LinkedHashMap<String, Dialog> ended = new LinkedHashMap<>();

    /**
     * A dialog: its caller's tag, when it was last refreshed, the BYE that ends it (null until one is
     * let through), and what is kept to list and end it (null when not known).
     */
    private static final class Dialog {
        final String callerTag;
        long refreshed;
        String bye;
        EstablishedCall call;

        Dialog(String callerTag, long refreshed) {
            this.callerTag = callerTag;
            this.refreshed = refreshed;
        }
    }

    /**
     * @param maxDialogs most dialogs kept (at least 1)
     * @param lifetime   how long a dialog is kept without a refresh
     */
    public EstablishedDialogs(int maxDialogs, Duration lifetime, Ticker ticker, MeterRegistry registry) {
        this(maxDialogs, lifetime, ticker, registry, null);
    }

    /**
     * As above, telling {@code forgotten} the Call-ID of each dialog forgotten without its BYE (full
     * or expired), under this object's lock: it must be quick and never block (call detail records).
     */
    public EstablishedDialogs(int maxDialogs, Duration lifetime, Ticker ticker, MeterRegistry registry,
                              Consumer<String> forgotten) {
        this(maxDialogs, lifetime, ticker, registry, forgotten, false);
    }

    /**
     * As above; with {@code keepsCalls} each dialog also keeps its {@link EstablishedCall} (the
     * management API's listing and ending of calls), about 1 to 2 KB more per dialog.
     */
    public EstablishedDialogs(int maxDialogs, Duration lifetime, Ticker ticker, MeterRegistry registry,
                              Consumer<String> forgotten, boolean keepsCalls) {
        this.forgotten = forgotten;
        this.keepsCalls = keepsCalls;
        if (maxDialogs < 1) {
            throw new IllegalArgumentException("maxDialogs must be at least 1: " + maxDialogs);
        }
        this.maxDialogs = maxDialogs;
        this.lifetimeNanos = lifetime.toNanos();
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.forgottenFull = Counter.builder("sip.dialogs.forgotten").tag("reason", "full").register(registry);
        this.forgottenExpired = Counter.builder("sip.dialogs.forgotten").tag("reason", "expired").register(registry);
        Gauge.builder("sip.dialogs.established", this, EstablishedDialogs::size).register(registry);
    }

    /** Whether each dialog keeps its {@link EstablishedCall}: else those handed in are dropped, and none need be made. */
    public boolean keepsCalls() {
        return keepsCalls;
    }

    /** A 2xx to an INVITE was forwarded: its dialog is established (or refreshed, for a re-INVITE). */
    public void established(Message okToInvite) {
        established(okToInvite, null);
    }

    /** As {@link #established(Message)}, keeping {@code call} (null for none) for a dialog new here. */
    public void established(Message okToInvite, EstablishedCall call) {
        FromHeader from = (FromHeader) okToInvite.getHeader(FromHeader.NAME);
        established(key(okToInvite), from == null ? null : from.getTag(), call);
    }

    /** A 2xx to an INVITE with this Call-ID and these tags was relayed from its bytes: as {@link #established(Message)}. */
    public void established(String callId, String fromTag, String toTag) {
        established(callId, fromTag, toTag, null);
    }

    /** As {@link #established(String, String, String)}, keeping {@code call} (null for none) for a dialog new here. */
    public void established(String callId, String fromTag, String toTag, EstablishedCall call) {
        established(fromTag == null || toTag == null ? null : key(callId, fromTag, toTag), fromTag, call);
    }

    /**
     * A request of CSeq {@code number} from the party whose tag is {@code fromTag} went through the
     * dialog (a re-INVITE answered 2xx): a BYE this proxy sends that party's peer must carry a higher one.
     */
    public void seen(String callId, String fromTag, String toTag, long number) {
        if (callId == null || fromTag == null || toTag == null) {
            return;
        }
        synchronized (dialogs) {
            Dialog d = dialogs.get(key(callId, fromTag, toTag));
            if (d != null && d.call != null) {
                d.call = d.call.seen(fromTag, number);
            }
        }
    }

    /**
     * The calls kept with their details that {@code filter} accepts, oldest refresh first, at most
     * {@code limit}; {@code truncated} when more matched.
     * Threading: immutable.
     */
    public record Listing(List<EstablishedCall> calls, boolean truncated) {
    }

    /**
     * The established calls {@code filter} accepts, at most {@code limit} of them. The lock is held
     * only to copy the references; {@code filter} runs after, on the caller's thread.
     */
    public Listing calls(Predicate<EstablishedCall> filter, int limit) {
        List<EstablishedCall> all;
        synchronized (dialogs) {
            expire(ticker.read());
            all = new ArrayList<>(dialogs.size());
            for (Dialog d : dialogs.values()) {
                if (d.call != null) {
                    all.add(d.call);
                }
            }
        }
        List<EstablishedCall> out = new ArrayList<>(Math.min(limit, 64));
        for (EstablishedCall c : all) {
            if (filter.test(c)) {
                if (out.size() == limit) {
                    return new Listing(out, true);
                }
                out.add(c);
            }
        }
        return new Listing(out, false);
    }

    /**
     * The proxy itself ends {@code call} (its BYEs are sent by the caller of this): the dialog is
     * forgotten, and no BYE of its parties is relayed for it any more. Returns whether it was still
     * established.
     */
    public boolean endedHere(EstablishedCall call) {
        synchronized (dialogs) {
            return dialogs.remove(key(call.callId(), call.callerTag(), call.calleeTag())) != null;
        }
    }

    private void established(String key, String callerTag, EstablishedCall call) {
        if (key == null) {
            return;
        }
        long now = ticker.read();
        synchronized (dialogs) {
            Dialog d = dialogs.remove(key);
            if (d == null) {
                // a 2xx to a re-INVITE of the callee carries the callee's tag in From: a dialog keeps its caller
                d = new Dialog(callerTag, now);
            }
            if (d.call == null && keepsCalls) {
                d.call = call;
            }
            d.refreshed = now;
            dialogs.put(key, d);
            expire(now);
            while (dialogs.size() > maxDialogs) {
                Iterator<String> eldest = dialogs.keySet().iterator();
                String gone = eldest.next();
                eldest.remove();
                forgottenFull.increment();
                tellForgotten(gone);
            }
        }
    }

    /**
     * Whether the dialog of {@code callId} whose caller's tag is {@code callerTag} and whose callee's
     * tag is {@code calleeTag} is established and live; if so it is refreshed (in-dialog traffic).
     * A dialog its BYE has ended is live no more, except to a retransmission of that BYE.
     *
     * @param bye for a BYE read from its bytes, its top Via branch, CSeq number and Request-URI in
     *            one string, which the dialog remembers; else null
     */
    public boolean live(String callId, String callerTag, String calleeTag, String bye) {
        if (callId == null || callerTag == null || calleeTag == null) {
            return false;
        }
        String key = key(callId, callerTag, calleeTag);
        long now = ticker.read();
        synchronized (dialogs) {
            expire(now);
            Dialog d = dialogs.get(key);
            if (d != null && d.callerTag.equals(callerTag)) {
                dialogs.remove(key);
                d.refreshed = now;
                if (bye != null) {
                    d.bye = bye;
                }
                dialogs.put(key, d);
                return true;
            }
            Dialog gone = ended.get(key);
            return gone != null && bye != null && gone.callerTag.equals(callerTag) && bye.equals(gone.bye);
        }
    }

    /**
     * {@link #live} for an ACK: also true in the {@link #BYE_RETRANSMISSIONS} after a BYE relayed from
     * its bytes ended the dialog, as the ACK for a 2xx the callee retransmitted late (or the ACK of a
     * caller that sent its BYE right after it) may come after the BYE; the callee's INVITE transaction
     * needs it to end (RFC 3261 §13.3.1.4).
     */
    public boolean liveForAck(String callId, String callerTag, String calleeTag) {
        if (live(callId, callerTag, calleeTag, null)) {
            return true;
        }
        String key = key(callId, callerTag, calleeTag);
        synchronized (dialogs) {
            Dialog gone = ended.get(key);
            return gone != null && gone.callerTag.equals(callerTag);
        }
    }

    /**
     * Whether this Call-ID and these tags (in either order) name a dialog established here, live or
     * ended so recently that its BYE may still be retransmitted: what overload shedding counts as a
     * call in progress. Refreshes nothing.
     */
    public boolean tracks(String callId, String fromTag, String toTag) {
        if (callId == null || fromTag == null || toTag == null) {
            return false;
        }
        String key = key(callId, fromTag, toTag);
        long now = ticker.read();
        synchronized (dialogs) {
            expire(now);
            return dialogs.containsKey(key) || ended.containsKey(key);
        }
    }

    /** A BYE within a dialog was answered: the dialog has ended. */
    public void ended(Message bye) {
        end(key(bye));
    }

    /** A BYE with this Call-ID and these tags was relayed statelessly: the dialog has ended. */
    public void ended(String callId, String fromTag, String toTag) {
        end(fromTag == null || toTag == null ? null : key(callId, fromTag, toTag));
    }

    private void end(String key) {
        if (key == null) {
            return;
        }
        long now = ticker.read();
        synchronized (dialogs) {
            Dialog d = dialogs.remove(key);
            if (d != null && d.bye != null) {
                d.refreshed = now;
                ended.remove(key);
                ended.put(key, d);
                while (ended.size() > maxDialogs) {
                    Iterator<?> eldest = ended.keySet().iterator();
                    eldest.next();
                    eldest.remove();
                }
            }
        }
    }

    /** Dialogs still established (those past their lifetime forgotten first). */
    public int size() {
        synchronized (dialogs) {
            expire(ticker.read());
            return dialogs.size();
        }
    }

    private void expire(long now) {
        Iterator<Map.Entry<String, Dialog>> it = dialogs.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Dialog> e = it.next();
            if (now - e.getValue().refreshed < lifetimeNanos) {
                break;
            }
            it.remove();
            forgottenExpired.increment();
            tellForgotten(e.getKey());
        }
        Iterator<Map.Entry<String, Dialog>> byes = ended.entrySet().iterator();
        while (byes.hasNext()) {
            if (now - byes.next().getValue().refreshed < BYE_RETRANSMISSIONS.toNanos()) {
                return;
            }
            byes.remove();
        }
    }
    /** Tells the listener, if any, the Call-ID of a dialog forgotten without its BYE (the key's first line). */
    private void tellForgotten(String key) {
        if (forgotten != null) {
            forgotten.accept(key.substring(0, key.indexOf('\n')));
        }
    }

    /**
     * Call-ID and both tags, the tags in a fixed order so that a BYE from either side finds the
     * dialog (RFC 3261 §12: the dialog ID is the Call-ID with the local and remote tags); null when a
     * tag is missing.
     */
    static String key(Message m) {
        CallIdHeader callId = (CallIdHeader) m.getHeader(CallIdHeader.NAME);
        FromHeader from = (FromHeader) m.getHeader(FromHeader.NAME);
        ToHeader to = (ToHeader) m.getHeader(ToHeader.NAME);
        if (callId == null || from == null || to == null || from.getTag() == null || to.getTag() == null) {
            return null;
        }
        return key(callId.getCallId(), from.getTag(), to.getTag());
    }

    private static String key(String callId, String a, String b) {
        return a.compareTo(b) <= 0 ? callId + '\n' + a + '\n' + b : callId + '\n' + b + '\n' + a;
    }
}
