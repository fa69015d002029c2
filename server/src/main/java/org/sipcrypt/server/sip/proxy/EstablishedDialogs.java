package org.sipcrypt.server.sip.proxy;

import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Message;

/**
 * The calls this proxy record-routed and saw established, so that a shutdown drain can wait for
 * their BYE (RFC 3261 §16.6 step 4: a proxy that record-routes stays on the dialog's path). A dialog
 * is added when a 2xx to an INVITE is forwarded, refreshed by each later 2xx to a re-INVITE, and
 * removed when a BYE in it has been answered (RFC 3261 §15.1.2: whatever the answer) or when it has
 * gone {@code lifetime} without a refresh (its BYE may have taken another path). At most
 * {@code maxDialogs} are kept; beyond that the oldest is forgotten. Each entry is one key string
 * (Call-ID and both tags) and its time, about 200 bytes. Counted: gauge {@code sip.dialogs.established},
 * {@code sip.dialogs.forgotten{reason=full|expired}}.
 * Threading: thread-safe; never blocks (one short lock per call event).
 */
public final class EstablishedDialogs {

    private final int maxDialogs;
    private final long lifetimeNanos;
    private final Ticker ticker;
    private final Counter forgottenFull;
    private final Counter forgottenExpired;
    /** Insertion order is refresh order (an entry is re-inserted when refreshed): oldest first. */
    private final LinkedHashMap<String, Long> dialogs = new LinkedHashMap<>();

    /**
     * @param maxDialogs most dialogs kept (at least 1)
     * @param lifetime   how long a dialog is kept without a refresh
     */
    public EstablishedDialogs(int maxDialogs, Duration lifetime, Ticker ticker, MeterRegistry registry) {
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

    /** A 2xx to an INVITE was forwarded: its dialog is established (or refreshed, for a re-INVITE). */
    public void established(Message okToInvite) {
        established(key(okToInvite));
    }

    /** A 2xx to an INVITE with this Call-ID and these tags was relayed from its bytes: as {@link #established(Message)}. */
    public void established(String callId, String fromTag, String toTag) {
        established(fromTag == null || toTag == null ? null : key(callId, fromTag, toTag));
    }

    private void established(String key) {
        if (key == null) {
            return;
        }
        long now = ticker.read();
        synchronized (dialogs) {
            dialogs.remove(key);
            dialogs.put(key, now);
            expire(now);
            while (dialogs.size() > maxDialogs) {
                Iterator<?> eldest = dialogs.keySet().iterator();
                eldest.next();
                eldest.remove();
                forgottenFull.increment();
            }
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
        synchronized (dialogs) {
            dialogs.remove(key);
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
        Iterator<Map.Entry<String, Long>> it = dialogs.entrySet().iterator();
        while (it.hasNext()) {
            if (now - it.next().getValue() < lifetimeNanos) {
                return;
            }
            it.remove();
            forgottenExpired.increment();
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
