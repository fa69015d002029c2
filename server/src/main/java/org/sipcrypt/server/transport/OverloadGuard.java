package org.sipcrypt.server.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission to the SIP worker lanes, decided from the raw bytes before a message is queued, so that
 * refusing costs a header scan and one small write. New work (a request outside a dialog, other
 * than ACK and CANCEL) is answered {@code 503} with {@code Retry-After} (RFC 3261 §21.5.4), built
 * statelessly like a 400 for bad input, while any budget is exceeded: the lane it would join holds
 * {@code queueThreshold} messages, the lanes hold three quarters of their byte budget
 * ({@code overload.maxQueuedBytes}), the oldest message there has waited longer than
 * {@code maxQueueDelay}, or longer than a target for an interval ({@link #refuseStandingQueues}: a
 * standing queue), {@code maxTransactions} requests await their final response, or the heap
 * after the last collection is above {@code maxHeapAfterGc} percent; and always while the server
 * drains for shutdown. Responses, ACK, CANCEL and requests within a dialog the SIP layer can verify
 * ({@link Dialogs}: one it tracks, by Call-ID and both tags) are never refused here: they may fill a
 * lane up to {@code sip.queueCapacity}, so calls in progress end normally. A To tag alone is no
 * dialog (anyone can write one): a request whose tags name no verifiable dialog is new work, shed
 * like a new INVITE. The ACK a client sends for one of these 503s carries our To tag and is absorbed here
 * (RFC 3261 §17.1.1.3: it belongs to no transaction of ours). A retransmission of a request the
 * server is already handling (its branch names a transaction in progress) is let through to that
 * transaction (RFC 3261 §17.2.1, §17.2.2) rather than refused; one that arrives while its original
 * still waits in the lane cannot be told apart and may be refused.
 * <p>The heap budget must not lock the server into refusing everything: refused requests write
 * nothing, so whatever filled the heap would stay. Each time the sample finds the heap above its
 * budget the guard frees what it can ({@code relieve}: the server drops every kept answer) and then
 * asks for a collection ({@code collect}), since a server that refuses everything may allocate too
 * little for one to come by itself, and the freed answers would stay counted in the heap after GC
 * while every request is refused. It asks for one too when the reading has not changed for
 * {@value #STALE_SAMPLES} samples while above the budget (no collection since), so that the reading
 * the guard decides by is never older than that. Then admission resumes as soon as the heap is
 * back under its budget. Messages the lanes refuse
 * ({@code overload.maxQueuedBytes} or a full queue) are answered here too ({@link #refuse}).
 * Before any budget, a new request is held to its source's limits when there are any
 * ({@link SourceLimits}: a rate per source address, bans after failed authentication), answered
 * 503 or 403 or dropped as they say, whatever the load.
 * Counted in {@code sip.overload.rejected{method,reason}}, {@code sip.overload.acks.absorbed},
 * {@code sip.overload.heap.freed} (entries freed for the heap) and {@code sip.overload.heap.collections}
 * (collections asked for); a warning per reason at most once a minute.
 * Threading: thread-safe; {@link #admit} never blocks (it runs on event loops); {@link #sampleHeap} runs on
 * one thread at a time, off the event loops (it may wait for a collection).
 */
public final class OverloadGuard {

    /**
     * Whether a request read from its bytes belongs to a dialog the SIP layer can verify, so
     * transport code needs no SIP classes. Runs on event loops: it must never block.
     */
    @FunctionalInterface
    public interface Dialogs {
        /** Whether the request with this Call-ID, From tag and To tag (neither null) is within a verifiable dialog. */
        boolean verifiable(String callId, String fromTag, String toTag);
    }

    private static final Logger log = LoggerFactory.getLogger(OverloadGuard.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);
    /** Methods counted by name; anything else is {@code other}, so a flood cannot create meters. */
    private static final Set<String> COUNTED_METHODS = Set.of("invite", "register", "options", "subscribe",
            "notify", "refer", "message", "publish", "info", "update", "prack");
    private static final int MAX_METHOD_CHARS = 32;
    /** Samples above the budget with the same reading (no collection between them) before asking for one. */
    static final int STALE_SAMPLES = 5;

    private final int queueThreshold;
    private final long maxQueueDelayNanos;
    private final int maxTransactions;
    private final double maxHeapAfterGc;
    private final long retryAfterSeconds;
    private final SipWorkers workers;
    private final IntSupplier unanswered;
    private final Predicate<String> transactionInProgress;
    private final Dialogs dialogs;
    private final DoubleSupplier heapAfterGc;
    private final LongSupplier relieve;
    private final Runnable collect;
    private final Counter heapFreed;
    private final Counter heapCollections;
    /** The last heap reading and how many samples in a row found it unchanged above the budget (sampler only). */
    private double lastReading = -1;
    private int staleSamples;
    private final MeterRegistry registry;
    private final String refusalTag;
    private final Counter acksAbsorbed;
    private final ConcurrentMap<String, Counter> rejected = new ConcurrentHashMap<>();
    private volatile boolean heapHigh;
    private volatile boolean draining;
    private volatile SourceLimits sources;
    private volatile StandingQueue standingQueue;

    /**
     * @param queueThreshold  messages in a lane from which new requests are refused
     * @param maxQueueDelay   wait of a lane's oldest message beyond which new requests are refused; zero: no limit
     * @param maxTransactions requests awaiting a final response from which new ones are refused; 0: no limit
     * @param maxHeapAfterGc  percentage of the maximum heap in use after GC above which new requests are
     *                        refused; 0: no limit
     * @param retryAfter      the least Retry-After of a refusal (whole seconds, at least 1)
     * @param unanswered      how many requests await their final response now
     * @param transactionInProgress whether a server transaction exists for an RFC 3261 branch
     *                        (lower case): a request carrying it is a retransmission, never refused
     * @param dialogs         which requests with a To tag are within a dialog the SIP layer verifies
     * @param heapAfterGc     share (0 to 1) of the maximum heap in use after the last collection,
     *                        read by {@link #sampleHeap}; {@link #heapUsedAfterGc} in the server
     */
    public OverloadGuard(int queueThreshold, Duration maxQueueDelay, int maxTransactions, int maxHeapAfterGc,
                         Duration retryAfter, SipWorkers workers, IntSupplier unanswered,
                         Predicate<String> transactionInProgress, Dialogs dialogs, DoubleSupplier heapAfterGc,
                         MeterRegistry registry) {
        this(queueThreshold, maxQueueDelay, maxTransactions, maxHeapAfterGc, retryAfter, workers, unanswered,
                transactionInProgress, dialogs, heapAfterGc, () -> 0, () -> { }, registry);
    }

    /**
     * As above, with {@code relieve}: run by {@link #sampleHeap} whenever the heap is above its budget,
     * it frees what the server keeps from input and says how many entries it freed; and {@code collect},
     * which asks for a garbage collection ({@code System::gc} in the server) once something was freed,
     * or when the reading is stale.
     */
    public OverloadGuard(int queueThreshold, Duration maxQueueDelay, int maxTransactions, int maxHeapAfterGc,
                         Duration retryAfter, SipWorkers workers, IntSupplier unanswered,
                         Predicate<String> transactionInProgress, Dialogs dialogs, DoubleSupplier heapAfterGc,
                         LongSupplier relieve, Runnable collect, MeterRegistry registry) {
        if (queueThreshold < 1) {
            throw new IllegalArgumentException("queueThreshold must be at least 1: " + queueThreshold);
        }
        if (retryAfter.toSeconds() < 1) {
            throw new IllegalArgumentException("retryAfter must be at least 1 s: " + retryAfter);
        }
        this.queueThreshold = queueThreshold;
        this.maxQueueDelayNanos = maxQueueDelay.toNanos();
        this.maxTransactions = maxTransactions;
        this.maxHeapAfterGc = maxHeapAfterGc / 100.0;
        this.retryAfterSeconds = retryAfter.toSeconds();
        this.workers = Objects.requireNonNull(workers, "workers");
        this.unanswered = Objects.requireNonNull(unanswered, "unanswered");
        this.transactionInProgress = Objects.requireNonNull(transactionInProgress, "transactionInProgress");
        this.dialogs = Objects.requireNonNull(dialogs, "dialogs");
        this.heapAfterGc = Objects.requireNonNull(heapAfterGc, "heapAfterGc");
        this.relieve = Objects.requireNonNull(relieve, "relieve");
        this.collect = Objects.requireNonNull(collect, "collect");
        this.heapFreed = Counter.builder("sip.overload.heap.freed").register(registry);
        this.heapCollections = Counter.builder("sip.overload.heap.collections").register(registry);
        this.registry = Objects.requireNonNull(registry, "registry");
        this.refusalTag = "sc503" + Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        this.acksAbsorbed = Counter.builder("sip.overload.acks.absorbed").register(registry);
    }

    /**
     * Applies, from now on, per-source limits to new requests before the budgets: a source over its
     * rate, or banned, is refused whatever the load. Set once, at start.
     */
    public void limitSourcesWith(SourceLimits limits) {
        this.sources = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Refuses, from now on, new requests on a lane whose oldest message has waited longer than
     * {@code target} for {@code interval} ({@link StandingQueue}), while that wait stays above the
     * target: a queue that lasts is held near the target in time, while a burst that drains within
     * the interval refuses nothing. Set once, at start.
     */
    public void refuseStandingQueues(Duration target, Duration interval) {
        this.standingQueue = new StandingQueue(workers.laneCount(), target, interval);
    }

    /** As {@link #admit(byte[], InetAddress, String, Consumer)} for a message of unknown source: no per-source limits. */
    public boolean admit(byte[] message, String laneKey, Consumer<byte[]> reply) {
        return admit(message, null, laneKey, reply);
    }

    /**
     * Whether a message from {@code source} may join the lane of {@code laneKey}. When it may not, it
     * has been answered through {@code reply} (or dropped, when it cannot or must not be answered)
     * and counted. A new request is first held to its source's limits ({@link SourceLimits}); a
     * retransmission of a request in progress, and a request within a verifiable dialog, never are.
     */
    public boolean admit(byte[] message, InetAddress source, String laneKey, Consumer<byte[]> reply) {
        return admit(SipHead.of(message), source, laneKey, reply);
    }

    /** As {@link #admit(byte[], InetAddress, String, Consumer)}, reading the message's index built on receipt. */
    public boolean admit(SipHead head, InetAddress source, String laneKey, Consumer<byte[]> reply) {
        byte[] message = head.bytes();
        String method = method(head);
        if (method == null || method.equals("CANCEL")) {
            // a response, something the parser will reject, or a CANCEL: never refused
            return true;
        }
        String toTag = toTag(head);
        if (method.equals("ACK")) {
            if (refusalTag.equals(toTag)) {
                acksAbsorbed.increment();
                return false;
            }
            return true;
        }
        Boolean inDialog = null;
        SourceLimits limits = sources;
        if (limits != null && source != null && !limits.exempt(source)) {
            // the dialog is looked up here only for sources held to limits: allowed ones pay nothing more
            inDialog = toTag != null && inVerifiableDialog(head, toTag);
            if (!inDialog && !limitedSource(limits, source, head, reply)) {
                return false;
            }
        }
        String reason = draining ? "shutting_down" : exceeded(laneKey);
        // within a dialog the SIP layer verifies (looked up only when refusing): the call ends normally
        if (reason == null || (inDialog != null ? inDialog : toTag != null && inVerifiableDialog(head, toTag))
                || retransmission(head)) {
            return true;
        }
        count(method, reason);
        answer503(message, reply);
        return false;
    }

    /**
     * Whether a new request passes its source's limits; when not (and it is no retransmission of a
     * request in progress), it is answered 503 with Retry-After (over the rate) or 403 (banned), or
     * dropped beyond the source's answers, and counted.
     */
    private boolean limitedSource(SourceLimits limits, InetAddress source, SipHead head, Consumer<byte[]> reply) {
        SourceLimits.Verdict verdict = limits.admit(source);
        byte[] message = head.bytes();
        if (verdict == SourceLimits.Verdict.ADMIT || retransmission(head)) {
            return true;
        }
        limits.count(verdict);
        if (verdict.answered()) {
            byte[] response = verdict.banned()
                    ? BadRequestResponse.build(message, 403, "Forbidden", refusalTag, "")
                    : BadRequestResponse.build(message, 503, "Service Unavailable", refusalTag, retryAfter());
            if (response != null) {
                reply.accept(response);
            }
        }
        return false;
    }

    /**
     * A message the lanes refused after {@link #admit} let it through (the lane's queue full, or the
     * lanes' bytes at {@code overload.maxQueuedBytes}): a request other than ACK is answered 503 and
     * counted in {@code sip.overload.rejected{reason=queue_full}}; whether it was answered (if not, the
     * caller drops and counts it).
     */
    public boolean refuse(byte[] message, Consumer<byte[]> reply) {
        return refuse(SipHead.of(message), reply);
    }

    /** As {@link #refuse(byte[], Consumer)}, reading the message's index built on receipt. */
    public boolean refuse(SipHead head, Consumer<byte[]> reply) {
        byte[] message = head.bytes();
        String method = method(head);
        if (method == null || method.equals("ACK")) {
            return false;
        }
        rateLimited.warn("queue_full", "overload: the SIP lanes refused a message (sip.queueCapacity or"
                + " overload.maxQueuedBytes); requests get 503 (sip.overload.rejected)");
        if (!answer503(message, reply)) {
            return false;
        }
        count(method, "queue_full");
        return true;
    }

    /** Sends the 503 of a refusal to {@code message}; false when it cannot be built (no usable Via and the like). */
    private boolean answer503(byte[] message, Consumer<byte[]> reply) {
        byte[] response = BadRequestResponse.build(message, 503,
                draining ? "Shutting Down" : "Service Unavailable", refusalTag, retryAfter());
        if (response == null) {
            return false;
        }
        reply.accept(response);
        return true;
    }

    /** A Retry-After line: the least delay plus a random part of up to as much again, so refused clients spread out. */
    private String retryAfter() {
        return "Retry-After: " + (retryAfterSeconds + ThreadLocalRandom.current().nextLong(retryAfterSeconds + 1))
                + "\r\n";
    }

    /** Which budget a new request on {@code laneKey} would exceed now, or null when none. */
    private String exceeded(String laneKey) {
        if (heapHigh) {
            rateLimited.warn("heap", "overload: heap after GC above {} % of the maximum; new requests get 503"
                    + " (sip.overload.rejected)", Math.round(maxHeapAfterGc * 100));
            return "heap";
        }
        int queued = workers.queued(laneKey);
        if (queued >= queueThreshold) {
            rateLimited.warn("queue", "overload: a SIP lane holds {} messages (overload.queueThreshold {});"
                    + " new requests get 503 (sip.overload.rejected)", queued, queueThreshold);
            return "queue";
        }
        long bytes = workers.queuedBytes();
        long maxBytes = workers.maxQueuedBytes();
        // a quarter of the bytes is kept for responses and in-dialog requests, as the rest of a lane's count
        if (bytes >= maxBytes - maxBytes / 4) {
            rateLimited.warn("queue_bytes", "overload: the SIP lanes hold {} bytes (three quarters of"
                    + " overload.maxQueuedBytes {}); new requests get 503 (sip.overload.rejected)", bytes, maxBytes);
            return "queue_bytes";
        }
        StandingQueue standing = standingQueue;
        if (maxQueueDelayNanos > 0 || standing != null) {
            // the lane and the time read once for both checks: this runs for every new request, on event loops
            int lane = workers.laneIndex(laneKey);
            long now = workers.ticks();
            long delay = workers.queueDelayNanos(lane, now);
            if (standing != null && standing.refuse(lane, delay, now)) {
                rateLimited.warn("queue_standing", "overload: a SIP lane's oldest message has waited more than"
                        + " overload.queueTarget for overload.queueInterval ({} ms now); new requests get 503"
                        + " (sip.overload.rejected)", delay / 1_000_000);
                return "queue_standing";
            }
            if (maxQueueDelayNanos > 0 && delay > maxQueueDelayNanos) {
                rateLimited.warn("queue_delay", "overload: a SIP lane's oldest message waited {} ms"
                        + " (overload.maxQueueDelay {} ms); new requests get 503 (sip.overload.rejected)",
                        delay / 1_000_000, maxQueueDelayNanos / 1_000_000);
                return "queue_delay";
            }
        }
        if (maxTransactions > 0) {
            int open = unanswered.getAsInt();
            if (open >= maxTransactions) {
                rateLimited.warn("transactions", "overload: {} requests await their final response"
                        + " (overload.maxTransactions {}); new requests get 503 (sip.overload.rejected)",
                        open, maxTransactions);
                return "transactions";
            }
        }
        return null;
    }

    /** Whether a request with To tag {@code toTag} is within a dialog the SIP layer verifies. */
    private boolean inVerifiableDialog(SipHead head, String toTag) {
        String callId = head.callId();
        String fromTag = head.fromTag();
        return callId != null && fromTag != null && dialogs.verifiable(callId, fromTag, toTag);
    }

    /** Whether the top Via's branch (RFC 3261 form) names a server transaction in progress. */
    private boolean retransmission(SipHead head) {
        String via = head.value("via");
        if (via == null) {
            return false;
        }
        int comma = via.indexOf(',');
        String top = comma >= 0 ? via.substring(0, comma) : via;
        for (String param : top.split(";")) {
            int eq = param.indexOf('=');
            if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("branch")) {
                String branch = param.substring(eq + 1).trim();
                return TopVia.rfc3261Branch(branch) && transactionInProgress.test(branch.toLowerCase(Locale.ROOT));
            }
        }
        return false;
    }

    /** From now on every new request is refused with {@code 503 Shutting Down} (the shutdown drain). */
    public void startDraining() {
        draining = true;
    }

    /**
     * Reads the heap in use after the last collection; called periodically off the event loops, on one
     * thread. While it is above the budget, frees what the server keeps from input ({@code relieve})
     * and asks for a collection when that freed anything or the reading is stale, so that the next
     * sample can find the heap down again.
     */
    public void sampleHeap() {
        double reading = heapAfterGc.getAsDouble();
        heapHigh = maxHeapAfterGc > 0 && reading > maxHeapAfterGc;
        if (!heapHigh) {
            staleSamples = 0;
            lastReading = reading;
            return;
        }
        long freed = relieve.getAsLong();
        staleSamples = reading == lastReading ? staleSamples + 1 : 0;
        lastReading = reading;
        if (freed > 0) {
            heapFreed.increment(freed);
            log.warn("overload: heap after GC above {} % of the maximum; freed {} kept answers and asked for a"
                    + " collection (sip.overload.heap.freed)", Math.round(maxHeapAfterGc * 100), freed);
        }
        if (freed > 0 || staleSamples >= STALE_SAMPLES) {
            staleSamples = 0;
            heapCollections.increment();
            collect.run();
        }
    }

    /** New requests refused so far, all methods and reasons together. */
    public double rejectedCount() {
        return rejected.values().stream().mapToDouble(Counter::count).sum();
    }

    /**
     * The share of the maximum heap in use after the last collection of each heap pool (young
     * pools are nearly empty then, so this is mostly what survived in the old generation).
     */
    public static double heapUsedAfterGc() {
        long max = Runtime.getRuntime().maxMemory();
        if (max <= 0 || max == Long.MAX_VALUE) {
            return 0;
        }
        long used = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.isValid()) {
                MemoryUsage after = pool.getCollectionUsage();
                if (after != null) {
                    used += after.getUsed();
                }
            }
        }
        return (double) used / max;
    }

    private void count(String method, String reason) {
        String m = method.toLowerCase(Locale.ROOT);
        String tag = COUNTED_METHODS.contains(m) ? m : "other";
        rejected.computeIfAbsent(tag + '\u0000' + reason, k -> Counter.builder("sip.overload.rejected")
                .tag("method", tag).tag("reason", reason).register(registry)).increment();
    }

    /** The method of a request, upper case; null for a response or a first line without a method. */
    static String method(byte[] message) {
        return method(SipHead.of(message));
    }

    private static String method(SipHead head) {
        String token = head.requestToken(MAX_METHOD_CHARS);
        return token == null ? null : token.toUpperCase(Locale.ROOT);
    }

    /**
     * The {@code tag} parameter of the To header (RFC 3261 §20.39), read by {@link SipBytes#tag}, or
     * null; null too for a message {@link SipBytes#irregularity} names, whose To the parse may read
     * otherwise (a second To, or a second tag): such a request is judged as a new one.
     */
    static String toTag(byte[] message) {
        return toTag(SipHead.of(message));
    }

    private static String toTag(SipHead head) {
        String tag = head.toTag();
        return tag == null || head.irregularity() != null ? null : tag;
    }
}
