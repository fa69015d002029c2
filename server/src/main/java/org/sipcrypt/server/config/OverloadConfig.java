package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.Objects;

/**
 * When the server refuses new work to keep serving the calls it has (overload), and what a
 * shutdown drain waits for. New out-of-dialog requests get {@code 503 Service Unavailable} with
 * {@code Retry-After} as soon as any budget is exceeded; responses, ACK, CANCEL and requests within
 * a dialog are never refused for overload. Zero turns a budget off where stated.
 * Threading: immutable.
 *
 * @param queueThreshold     new requests are refused while the lane they would join holds this many
 *                           messages (at most {@code sip.queueCapacity}; the rest of the queue is kept
 *                           for responses and in-dialog requests)
 * @param maxQueueDelay      new requests are refused while the oldest message in their lane has waited
 *                           longer than this; zero turns the check off
 * @param queueTarget        new requests are refused while the oldest message in their lane has waited
 *                           longer than this, once it has done so for {@code queueInterval} (a standing
 *                           queue, not a burst); zero turns the check off
 * @param queueInterval      how long the oldest message's wait must stay above {@code queueTarget}
 * @param maxTransactions    new requests are refused while this many requests await their final
 *                           response; zero turns the check off
 * @param maxHeapAfterGc     new requests are refused while the heap in use after the last garbage
 *                           collection is above this percentage of the maximum heap; zero turns it off
 * @param retryAfter         the {@code Retry-After} of a refusal; each one adds a random part of up to
 *                           the same again, so refused clients do not all come back at once
 * @param maxDialogs         most established dialogs remembered for the shutdown drain and for proving
 *                           in-dialog requests (beyond it the oldest is forgotten); zero keeps none:
 *                           shutdown waits for transactions only, and in-dialog requests are challenged
 * @param dialogLifetime     a dialog remembered this long without in-dialog traffic is forgotten (its
 *                           BYE may have taken another path), and its signed route proves nothing more
 * @param maxKeptBytes       most bytes of answers kept for retransmissions (over UDP, Timer J and H:
 *                           the kept-transactions table); beyond it the oldest go. When the heap after GC
 *                           is above {@code maxHeapAfterGc} they all go, so that the heap can fall again
 * @param maxQueuedBytes     most bytes of messages waiting in all SIP worker lanes together; a message
 *                           beyond it is refused: a request that can be answered gets 503, anything
 *                           else is dropped and counted
 */
public record OverloadConfig(
        int queueThreshold,
        Duration maxQueueDelay,
        Duration queueTarget,
        Duration queueInterval,
        int maxTransactions,
        int maxHeapAfterGc,
        Duration retryAfter,
        int maxDialogs,
        Duration dialogLifetime,
        int maxKeptBytes,
        int maxQueuedBytes) {

    public OverloadConfig {
        if (queueThreshold < 1) {
            throw new IllegalArgumentException("overload.queueThreshold: " + queueThreshold + " (expected at least 1)");
        }
        Objects.requireNonNull(maxQueueDelay, "maxQueueDelay");
        Objects.requireNonNull(queueTarget, "queueTarget");
        Objects.requireNonNull(queueInterval, "queueInterval");
        if (queueTarget.isNegative()) {
            throw new IllegalArgumentException("overload.queueTarget: " + ConfigValues.format(queueTarget)
                    + " (expected 0 or more)");
        }
        if (queueInterval.isNegative() || queueInterval.isZero()) {
            throw new IllegalArgumentException("overload.queueInterval: " + ConfigValues.format(queueInterval)
                    + " (expected above 0)");
        }
        if (maxTransactions < 0) {
            throw new IllegalArgumentException("overload.maxTransactions: " + maxTransactions + " (expected 0 or more)");
        }
        if (maxHeapAfterGc < 0 || maxHeapAfterGc > 100) {
            throw new IllegalArgumentException("overload.maxHeapAfterGc: " + maxHeapAfterGc
                    + " (expected a percentage from 0 to 100)");
        }
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative() || retryAfter.toSeconds() < 1) {
            throw new IllegalArgumentException("overload.retryAfter: " + ConfigValues.format(retryAfter)
                    + " (expected at least 1s: Retry-After counts whole seconds)");
        }
        if (maxDialogs < 0) {
            throw new IllegalArgumentException("shutdown.maxDialogs: " + maxDialogs + " (expected 0 or more)");
        }
        Objects.requireNonNull(dialogLifetime, "dialogLifetime");
        if (maxKeptBytes < 65_536) {
            throw new IllegalArgumentException("overload.maxKeptBytes: " + maxKeptBytes + " (expected at least 65536)");
        }
        if (maxQueuedBytes < 65_536) {
            throw new IllegalArgumentException("overload.maxQueuedBytes: " + maxQueuedBytes
                    + " (expected at least 65536)");
        }
    }

    /**
     * The defaults: refuse while a lane's oldest message has waited more than 10 ms after it had done
     * so for 50 ms (a standing queue: bursts that drain sooner refuse nothing), at 2,000 messages in a
     * lane, or at 100 ms of queueing (well before T1, 500 ms, when clients over UDP send the request
     * again, so that serving it late never doubles the work: docs/benchmarks.md), 20,000 requests awaiting
     * an answer or 85 % of the heap after GC; {@code Retry-After} 5 to 10 s; 200,000 dialogs kept for
     * the drain (about 200 bytes each) for up to 4 hours; 64 MiB of kept answers (about 100,000 answers
     * of a typical 600 bytes, an eighth of a 512 MiB heap) and 64 MiB of messages queued on the lanes.
     */
    public static OverloadConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().queueThreshold(queueThreshold).maxQueueDelay(maxQueueDelay)
                .queueTarget(queueTarget).queueInterval(queueInterval)
                .maxTransactions(maxTransactions).maxHeapAfterGc(maxHeapAfterGc).retryAfter(retryAfter)
                .maxDialogs(maxDialogs).dialogLifetime(dialogLifetime).maxKeptBytes(maxKeptBytes)
                .maxQueuedBytes(maxQueuedBytes);
    }

    /**
     * Named settings for an {@link OverloadConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private int queueThreshold = 2_000;
        private Duration maxQueueDelay = Duration.ofMillis(100);
        private Duration queueTarget = Duration.ofMillis(10);
        private Duration queueInterval = Duration.ofMillis(50);
        private int maxTransactions = 20_000;
        private int maxHeapAfterGc = 85;
        private Duration retryAfter = Duration.ofSeconds(5);
        private int maxDialogs = 200_000;
        private Duration dialogLifetime = Duration.ofHours(4);
        private int maxKeptBytes = 64 * 1024 * 1024;
        private int maxQueuedBytes = 64 * 1024 * 1024;

        public Builder queueThreshold(int v) { queueThreshold = v; return this; }
        public Builder maxQueueDelay(Duration v) { maxQueueDelay = v; return this; }
        public Builder queueTarget(Duration v) { queueTarget = v; return this; }
        public Builder queueInterval(Duration v) { queueInterval = v; return this; }
        public Builder maxTransactions(int v) { maxTransactions = v; return this; }
        public Builder maxHeapAfterGc(int v) { maxHeapAfterGc = v; return this; }
        public Builder retryAfter(Duration v) { retryAfter = v; return this; }
        public Builder maxDialogs(int v) { maxDialogs = v; return this; }
        public Builder dialogLifetime(Duration v) { dialogLifetime = v; return this; }
        public Builder maxKeptBytes(int v) { maxKeptBytes = v; return this; }
        public Builder maxQueuedBytes(int v) { maxQueuedBytes = v; return this; }

        public OverloadConfig build() {
            return new OverloadConfig(queueThreshold, maxQueueDelay, queueTarget, queueInterval, maxTransactions, maxHeapAfterGc, retryAfter,
                    maxDialogs, dialogLifetime, maxKeptBytes, maxQueuedBytes);
        }
    }
}
