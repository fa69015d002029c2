package org.sipcrypt.server.transport;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * What is left of a non-INVITE server transaction over UDP once its final response has gone:
 * the response's bytes, where they went, and the transaction's key. RFC 3261 §17.2.2 keeps such a
 * transaction "completed" for Timer J (64 × T1 = 32 s) only so that a retransmitted request is
 * answered with the same response; this keeps exactly that, a few hundred bytes, instead of
 * JAIN-SIP's transaction with both parsed messages, its timers and its channel. The server ends
 * the JAIN-SIP transaction as soon as the final response is sent, and a retransmitted request
 * that matches an entry (RFC 3261 §17.2.3: branch, sent-by and method) is answered from here
 * before it reaches the transaction layer. Entries expire after Timer J; beyond
 * {@code maxEntries} the oldest go first, and a retransmission of one of them is then handled as
 * a new request (the registrar and the proxy answer it again; a proxied BYE is forwarded again).
 * Only requests with an RFC 3261 branch ({@code z9hG4bK}) are kept: older ones cannot be matched
 * by branch.
 * Threading: thread-safe; never blocks.
 */
public final class CompletedTransactions {

    /** RFC 3261 §17.1.2.2: Timer J for unreliable transports, 64 × T1 with T1 = 500 ms. */
    public static final Duration TIMER_J = Duration.ofSeconds(32);

    private static final String MAGIC_COOKIE = "z9hG4bK";

    /** The response to send again, and where; no bytes and no destination for an INVITE answered with 2xx. */
    public record Answer(byte[] response, InetSocketAddress destination) {
        public Answer {
            Objects.requireNonNull(response, "response");
        }

        /** Whether the retransmission is absorbed silently. */
        public boolean absorb() {
            return destination == null;
        }
    }

    private static final Answer ABSORB = new Answer(new byte[0], null);

    private final Cache<String, Answer> answers;

    /**
     * @param lifetime   how long a final response is kept (Timer J)
     * @param maxEntries most responses kept at once
     * @param ticker     the clock entries age by (nanoseconds; tests pass their own)
     */
    public CompletedTransactions(Duration lifetime, long maxEntries, Ticker ticker) {
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("lifetime must be positive: " + lifetime);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1: " + maxEntries);
        }
        this.answers = Caffeine.newBuilder()
                .expireAfterWrite(lifetime)
                .maximumSize(maxEntries)
                .ticker(Objects.requireNonNull(ticker, "ticker"))
                .executor(Runnable::run)
                .build();
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
        if (branch == null || !branch.regionMatches(true, 0, MAGIC_COOKIE, 0, MAGIC_COOKIE.length())
                || host == null || method == null) {
            return null;
        }
        return branch + ' ' + host.toLowerCase(Locale.ROOT) + ':' + port + ' ' + method.toUpperCase(Locale.ROOT);
    }

    /** Keeps the final response of a completed transaction; a null key is ignored. */
    public void completed(String key, byte[] response, InetSocketAddress destination) {
        Objects.requireNonNull(destination, "destination");
        if (key != null) {
            answers.put(key, new Answer(response, destination));
        }
    }

    /**
     * Notes an INVITE answered with a 2xx (RFC 6026 §7.1, "Accepted"): its retransmissions are
     * absorbed without an answer, the UAS core retransmitting the 2xx itself; a null key is ignored.
     */
    public void absorbed(String key) {
        if (key != null) {
            answers.put(key, ABSORB);
        }
    }

    /** The response kept for a retransmitted request, or null; {@link Answer#absorb()} says to send nothing. */
    public Answer retransmission(String key) {
        return key == null ? null : answers.getIfPresent(key);
    }

    /** Responses kept now (an estimate while expired ones await removal). */
    public long size() {
        return answers.estimatedSize();
    }
}
