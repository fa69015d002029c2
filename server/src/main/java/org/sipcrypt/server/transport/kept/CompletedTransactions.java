package org.sipcrypt.server.transport.kept;

import com.github.benmanes.caffeine.cache.Ticker;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import javax.sip.header.ViaHeader;
import org.sipcrypt.server.transport.TopVia;

/**
 * What is left of a server transaction over UDP once its final response has gone: the response's
 * bytes, where they went, and the transaction's key. RFC 3261 §17.2.2 keeps a non-INVITE
 * transaction "completed" for Timer J (64 × T1 = 32 s) only so that a retransmitted request is
 * answered with the same response; this keeps exactly that, a few hundred bytes, instead of
 * JAIN-SIP's transaction with both parsed messages, its timers and its channel. The server ends
 * the JAIN-SIP transaction as soon as the final response is sent, and a retransmitted request
 * that matches an entry (RFC 3261 §17.2.3: branch, sent-by and method) is answered from here
 * before it reaches the transaction layer. Entries expire after Timer J and are swept by
 * {@link #sweepExpired} on a timer as well as on writes; beyond {@code maxEntries}, or beyond
 * {@code maxBytes} (what the entries hold, responses included: a 407 to an INVITE with hundreds of Via
 * lines copies them all), the oldest go first, and a retransmission of one of them is then handled as
 * a new request (the registrar and the proxy answer it again; a proxied BYE is forwarded again).
 * Removals to stay within a bound are counted ({@link #evicted}); the heap guard may {@link #trim}
 * the store down to nothing.
 * Only requests with an RFC 3261 branch ({@code z9hG4bK}) are kept: older ones cannot be matched
 * by branch.
 * <p>An INVITE the server rejects itself (300–699, e.g. the 407 of a digest challenge) is kept the
 * same way (RFC 3261 §17.2.1): its retransmissions get the response again until the ACK, for
 * Timer H (64 × T1); the ACK, which carries the INVITE's branch (§17.1.1.3), is absorbed here and
 * the bytes go, leaving only the key to absorb copies of the ACK and of the INVITE for Timer I
 * (T4 = 5 s). An INVITE answered with 2xx keeps its key only, for Timer J (RFC 6026 §7.1). An
 * INVITE still in progress whose provisional response went upstream without the stack's transaction
 * (a proxied 180 relayed from its bytes) keeps that response, which answers its retransmissions as
 * the transaction would (§17.2.1) until the final response goes.
 * <p>What is kept per transaction is one byte array ({@link KeptEntry}: key, destination as address
 * bytes and port, response bytes) in a {@link KeptEntryTable}, so that a server answering thousands of
 * calls a second holds two objects per call for Timer J (the INVITE's key, the BYE's answer), not a cache
 * node, a key, an answer and an address graph for each; the {@link Answer} and its destination are
 * built only for a retransmission.
 * Threading: thread-safe; lookups read without a lock unless a write ran meanwhile, writes hold a
 * write lock for a few probes.
 */
public final class CompletedTransactions {

    /**
     * RFC 3261 §17.1.2.2: Timer J for unreliable transports, 64 × T1 with T1 = 500 ms; also Timer H
     * (§17.2.1), how long a rejected INVITE waits for its ACK.
     */
    public static final Duration TIMER_J = Duration.ofSeconds(32);
    /** RFC 3261 §17.2.1: Timer I for unreliable transports, T4 = 5 s after the ACK. */
    public static final Duration TIMER_I = Duration.ofSeconds(5);
    /**
     * What a response's application data ({@code MessageExt.setApplicationData}) says to the transport.
     */
    public enum Mark {
        /**
         * A 300–699 response to an INVITE that the server sends without the stack's transaction: the
         * transport keeps its bytes here. Other responses to an INVITE are not kept: a relayed one
         * stays with its transaction.
         */
        REJECTED_INVITE
    }


    /**
     * The response to send again, and where; no bytes and no destination when the retransmission is
     * absorbed (an INVITE answered with 2xx, or a rejected one whose ACK has arrived).
     */
    public record Answer(byte[] response, InetSocketAddress destination) {
        public Answer {
            Objects.requireNonNull(response, "response");
        }

        /** Whether the retransmission is absorbed silently. */
        public boolean absorb() {
            return destination == null;
        }
    }

    /** What a retransmission gets when it is absorbed without an answer. */
    private static final Answer ABSORB = new Answer(new byte[0], null);

    private final KeptEntryTable entries;

    /**
     * @param lifetime   how long a final response is kept (Timer J; Timer H for a rejected INVITE)
     * @param afterAck   how long a rejected INVITE's key is kept once its ACK has arrived (Timer I)
     * @param maxEntries most responses kept at once (at most 2^24); the table is sized for it at once
     * @param ticker     the clock entries age by (nanoseconds; tests pass their own)
     */
    public CompletedTransactions(Duration lifetime, Duration afterAck, long maxEntries, Ticker ticker) {
        this(lifetime, afterAck, maxEntries, Long.MAX_VALUE, ticker);
    }

    /**
     * @param lifetime   how long a final response is kept (Timer J; Timer H for a rejected INVITE)
     * @param afterAck   how long a rejected INVITE's key is kept once its ACK has arrived (Timer I)
     * @param maxEntries most responses kept at once (at most 2^24); the table is sized for it at once
     * @param maxBytes   most bytes kept at once (entries with their keys and responses); beyond it the
     *                   oldest go, and a response larger than all of it is not kept
     * @param ticker     the clock entries age by (nanoseconds; tests pass their own)
     */
    public CompletedTransactions(Duration lifetime, Duration afterAck, long maxEntries, long maxBytes,
                                 Ticker ticker) {
        this.entries = new KeptEntryTable(lifetime, afterAck, maxEntries, maxBytes, ticker);
    }

    /**
     * The key of a server transaction (RFC 3261 §17.2.3), or null when the branch is not an
     * RFC 3261 one.
     *
     * @param branch the top Via's branch parameter
     * @param host   the top Via's sent-by host
     * @param port   the top Via's sent-by port, or -1 when it has none
     * @param method the request's method (for a response, its CSeq method)
     */
    public static String key(String branch, String host, int port, String method) {
        if (!TopVia.rfc3261Branch(branch) || host == null || method == null) {
            return null;
        }
        return branch + ' ' + host.toLowerCase(Locale.ROOT) + ':' + port + ' ' + method.toUpperCase(Locale.ROOT);
    }

    /**
     * {@link #key(String, String, int, String)} read from a raw request's bytes without parsing it: the
     * top Via's branch and sent-by, for {@code method}. Null when the top Via is not in the plain form
     * {@link TopVia} reads: the parsed message's key decides then. Where this gives a key, it is the
     * one {@link #key(ViaHeader, String)} gives for the parsed message.
     */
    public static String key(byte[] request, String method) {
        return key(TopVia.read(request), method);
    }

    /** {@link #key(String, String, int, String)} of a top Via read from the bytes; null when {@code via} is. */
    public static String key(TopVia via, String method) {
        return via == null ? null : key(via.branch(), via.host(), via.port(), method);
    }

    /** {@link #key(String, String, int, String)} of a message's top Via; null when there is no Via. */
    public static String key(ViaHeader via, String method) {
        return via == null ? null : key(via.getBranch(), via.getHost(), via.getPort(), method);
    }

    /** Keeps the final response of a completed transaction; a null key is ignored. */
    public void completed(String key, byte[] response, InetSocketAddress destination) {
        Objects.requireNonNull(destination, "destination");
        if (key != null) {
            entries.put(KeptEntry.answer(bytes(key), Objects.requireNonNull(response, "response"), destination));
        }
    }

    /**
     * Notes an INVITE answered with a 2xx (RFC 6026 §7.1, "Accepted"): its retransmissions are
     * absorbed without an answer, the UAS core retransmitting the 2xx itself; a null key is ignored.
     */
    public void absorbed(String key) {
        if (key != null) {
            entries.put(KeptEntry.absorbing(KeptEntry.ACCEPTED, bytes(key)));
        }
    }

    /**
     * Keeps the provisional response {@code response} to an INVITE still in progress over UDP, sent
     * upstream without the stack's transaction (a relayed 180): a retransmission of the INVITE gets
     * it again (RFC 3261 §17.2.1, "the most recent provisional response"), and its ACK is not
     * absorbed. It replaces an earlier provisional one, never a final one kept under the key; it
     * lives as long as a final response (64 × T1: the client has stopped retransmitting by then) or
     * until {@link #finalResponse}. A null key is ignored.
     */
    public void provisional(String key, byte[] response, InetSocketAddress destination) {
        Objects.requireNonNull(destination, "destination");
        if (key == null) {
            return;
        }
        byte[] k = bytes(key);
        byte[] kept = entries.get(k);
        if (kept == null || KeptEntry.provisional(kept)) {
            entries.put(KeptEntry.answer(k, Objects.requireNonNull(response, "response"), destination, true));
        }
    }

    /**
     * A final response to the INVITE of {@code key} goes through the stack's transaction, which
     * answers the INVITE's retransmissions, and takes its ACK, from now on: the provisional response
     * kept for it ({@link #provisional}), if any, goes. A null key is ignored.
     */
    public void finalResponse(String key) {
        byte[] kept = key == null ? null : entries.get(bytes(key));
        if (kept != null && KeptEntry.provisional(kept)) {
            entries.remove(kept);
        }
    }

    /**
     * An ACK (RFC 3261 §17.2.1): whether it belongs to a rejected INVITE kept here, {@code inviteKey}
     * being the ACK's key with method INVITE. If so it is to be absorbed: the first one drops the
     * response's bytes and keeps the key for Timer I, to absorb its copies. An ACK matching an INVITE
     * answered with 2xx, or nothing, is not absorbed (it is the start of a transaction of its own);
     * nor is one matching a provisional response kept for an INVITE in progress.
     */
    public boolean acknowledged(String inviteKey) {
        if (inviteKey == null) {
            return false;
        }
        byte[] key = bytes(inviteKey);
        byte[] kept = entries.get(key);
        if (kept == null || KeptEntry.kind(kept) == KeptEntry.ACCEPTED || KeptEntry.provisional(kept)) {
            return false;
        }
        if (KeptEntry.kind(kept) != KeptEntry.CONFIRMED) {
            entries.replace(kept, KeptEntry.absorbing(KeptEntry.CONFIRMED, key));
        }
        return true;
    }

    /** The response kept for a retransmitted request, or null; {@link Answer#absorb()} says to send nothing. */
    public Answer retransmission(String key) {
        byte[] kept = key == null ? null : entries.get(bytes(key));
        if (kept == null) {
            return null;
        }
        byte kind = KeptEntry.kind(kept);
        return kind == KeptEntry.ACCEPTED || kind == KeptEntry.CONFIRMED ? ABSORB
                : new Answer(KeptEntry.response(kept), KeptEntry.destination(kept));
    }

    /**
     * Removes every expired entry now, whether or not anything is written; for a timer off the event
     * loops (it takes the write lock a thousand entries at a time). The entries removed.
     */
    public int sweepExpired() {
        return entries.sweepExpired();
    }

    /**
     * Removes the oldest entries, expired or not, until at most {@code targetBytes} are kept: what the
     * heap guard frees when the heap is full. Their retransmissions are then handled as new requests.
     * The entries removed.
     */
    public int trim(long targetBytes) {
        return entries.trim(targetBytes);
    }

    /** Bytes kept now (entries with their keys and responses), expired ones not yet swept included. */
    public long keptBytes() {
        return entries.bytes();
    }

    /** The byte budget ({@code overload.maxKeptBytes}). */
    public long maxBytes() {
        return entries.maxBytes();
    }

    /**
     * Entries removed before their time so far: {@code entries} and {@code bytes} to stay within a
     * bound, {@code trim} by {@link #trim}, {@code too_large} responses not kept at all.
     */
    public long evicted(String reason) {
        return entries.evicted(reason);
    }

    /** Responses kept now, expired ones removed first. */
    public long size() {
        return entries.size();
    }

    /** Write-order ring slots still holding an entry that has left the store (for tests). */
    int ringHeldRemoved() {
        return entries.ringHeldRemoved();
    }

    /** Entries held, expired ones that no write has swept yet included (for tests). */
    long held() {
        return entries.held();
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
