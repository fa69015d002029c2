package org.sipcrypt.server.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-source limits on new requests, decided on the event loop before a message is queued: a token
 * bucket per source address (an IPv6 source by its /64, which one host usually holds whole), and a
 * ban of a source after {@code authFailures} failed digest authentications within a window.
 * <p>A request over its source's rate is refused, and the refusal itself costs the source a token:
 * the bucket may go {@code burst} tokens into debt, and while it can, the refusal is answered (503
 * with Retry-After, or 403 while banned); beyond that debt it is dropped without an answer. So a
 * source gets at most {@code requestsPerSecond} answers a second, admitted or refused, after twice
 * its burst, and a flood, with a forged source or not, is not answered at its own pace. With the
 * rate limit off (0), a banned source's requests are all answered 403, as they would all be
 * answered otherwise.
 * <p>The table holds at most {@code maxSources} sources; an entry goes once its bucket is full
 * again, its failures are past their window and it is not banned ({@link #sweep}, every second). A
 * source that finds the table full shares one bucket with every other such source and cannot be
 * banned: a flood from forged sources fills the table and then limits itself, rather than growing
 * it or getting a fresh bucket per forged address.
 * Counted in {@code sip.sources.limited{reason=rate|banned,action=answered|dropped}},
 * {@code sip.sources.shared} (requests charged to the shared bucket); gauges {@code sip.sources.banned}
 * and {@code sip.sources.tracked}. Each ban and each end of a ban is logged once (at most
 * {@value #BAN_LOGS_PER_MINUTE} such lines a minute, then one warning).
 * Threading: thread-safe; never blocks (a source's state is changed under its own monitor, for a
 * few arithmetic operations); {@link #sweep} runs on one thread at a time.
 */
public final class SourceLimits {

    /** What to do with a new request. */
    public enum Verdict {
        ADMIT(null, false), RATE_ANSWERED("rate", true), RATE_DROPPED("rate", false),
        BANNED_ANSWERED("banned", true), BANNED_DROPPED("banned", false);

        private final String reason;
        private final boolean answered;

        Verdict(String reason, boolean answered) {
            this.reason = reason;
            this.answered = answered;
        }

        /** Whether the refusal is answered (503 for the rate, 403 for a ban) rather than dropped. */
        public boolean answered() {
            return answered;
        }

        /** Whether the source is banned. */
        public boolean banned() {
            return this == BANNED_ANSWERED || this == BANNED_DROPPED;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(SourceLimits.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);
    static final int BAN_LOGS_PER_MINUTE = 60;
    private static final long MINUTE_NANOS = 60_000_000_000L;

    /** One token in the buckets' unit: they count in token-nanoseconds, so refilling is exact integer work. */
    private static final long TOKEN = 1_000_000_000L;

    private final int requestsPerSecond;
    /** A full bucket, and the deepest debt, in {@link #TOKEN} units. */
    private final long capacity;
    private final int authFailures;
    private final long windowNanos;
    private final long banNanos;
    private final Duration banTime;
    private final Duration window;
    private final int maxSources;
    private final Predicate<InetAddress> exempt;
    private final LongSupplier nanos;
    private final ConcurrentHashMap<InetAddress, Source> table = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicInteger banned = new AtomicInteger();
    private final Source shared;
    private final Map<Verdict, Counter> limited = new java.util.EnumMap<>(Verdict.class);
    private final Counter sharedCount;
    /** Ban and ban-end lines logged in the current minute, which began at {@link #logMinute}. */
    private int banLogs;
    private long logMinute;

    /**
     * @param requestsPerSecond new requests a source may send per second; 0: no rate limit
     * @param burst             the bucket's size (at least 1)
     * @param authFailures      failures within {@code window} that ban a source; 0: no bans
     * @param exempt            sources never limited nor banned ({@code limits.allow}, {@code auth.trustedPeers})
     * @param nanos             the time in nanoseconds, from any origin; the server's clock (tests move it)
     */
    public SourceLimits(int requestsPerSecond, int burst, int authFailures, Duration window, Duration banTime,
                        int maxSources, Predicate<InetAddress> exempt, LongSupplier nanos, MeterRegistry registry) {
        if (requestsPerSecond < 0 || burst < 1 || authFailures < 0 || maxSources < 1) {
            throw new IllegalArgumentException("requestsPerSecond " + requestsPerSecond + ", burst " + burst
                    + ", authFailures " + authFailures + ", maxSources " + maxSources);
        }
        this.requestsPerSecond = requestsPerSecond;
        this.capacity = burst * TOKEN;
        this.authFailures = authFailures;
        this.window = Objects.requireNonNull(window, "window");
        this.windowNanos = window.toNanos();
        this.banTime = Objects.requireNonNull(banTime, "banTime");
        this.banNanos = banTime.toNanos();
        this.maxSources = maxSources;
        this.exempt = Objects.requireNonNull(exempt, "exempt");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        long now = nanos.getAsLong();
        this.shared = new Source(null, now);
        this.logMinute = now;
        for (Verdict v : Verdict.values()) {
            if (v != Verdict.ADMIT) {
                limited.put(v, Counter.builder("sip.sources.limited").tag("reason", v.reason)
                        .tag("action", v.answered ? "answered" : "dropped").register(registry));
            }
        }
        this.sharedCount = Counter.builder("sip.sources.shared").register(registry);
        Gauge.builder("sip.sources.banned", banned, AtomicInteger::get).register(registry);
        Gauge.builder("sip.sources.tracked", size, AtomicInteger::get).register(registry);
    }

    /** Whether {@code source} is never limited nor banned ({@code limits.allow}, {@code auth.trustedPeers}). */
    public boolean exempt(InetAddress source) {
        return exempt.test(source);
    }

    /**
     * The verdict on a new request (outside a dialog; not ACK, CANCEL or a response) from
     * {@code source}; a refusal is counted by {@link #count} once the caller has acted on it. Runs
     * on event loops.
     */
    public Verdict admit(InetAddress source) {
        if (exempt.test(source)) {
            return Verdict.ADMIT;
        }
        long now = nanos.getAsLong();
        while (true) {
            Source s = lookup(source, now);
            if (s == shared) {
                sharedCount.increment();
            }
            boolean ended;
            Verdict v;
            synchronized (s) {
                if (s.removed) {
                    forget(s);
                    continue;
                }
                ended = s.banEnds(now);
                v = s.take(now);
            }
            if (ended) {
                banEnded(s);
            }
            return v;
        }
    }

    /** Counts a refusal in {@code sip.sources.limited{reason,action}}. */
    public void count(Verdict refusal) {
        Counter c = limited.get(refusal);
        if (c == null) {
            throw new IllegalArgumentException("not a refusal: " + refusal);
        }
        c.increment();
    }

    /**
     * A digest authentication from {@code source} failed (wrong password, unknown or disabled user);
     * the one that reaches {@code authFailures} within the window bans the source. A source that
     * found the table full is not counted. Runs on SIP lanes.
     */
    public void authFailed(InetAddress source) {
        if (authFailures == 0 || exempt.test(source)) {
            return;
        }
        long now = nanos.getAsLong();
        while (true) {
            Source s = lookup(source, now);
            if (s == shared) {
                rateLimited.warn("failures_shared", "limits: authentication failures from {} not counted: the"
                        + " table of sources is full (limits.maxSources {})", source.getHostAddress(), maxSources);
                return;
            }
            boolean ban;
            synchronized (s) {
                if (s.removed) {
                    forget(s);
                    continue;
                }
                ban = s.failed(now);
            }
            if (ban) {
                banned.incrementAndGet();
                logBan("{} banned for {} s after {} authentication failures within {} s (limits.authFailures);"
                        + " its new requests get 403", s.address.getHostAddress(), banTime.toSeconds(), authFailures,
                        window.toSeconds());
            }
            return;
        }
    }

    /** Whether {@code source} is banned now. */
    public boolean banned(InetAddress source) {
        Source s = table.get(key(source));
        if (s == null) {
            return false;
        }
        synchronized (s) {
            return s.bannedUntil != 0 && nanos.getAsLong() - s.bannedUntil < 0;
        }
    }

    /** Sources banned now (bans whose end nobody has seen yet included, until the next sweep). */
    public int bannedCount() {
        return banned.get();
    }

    /** Sources whose state is kept. */
    public int trackedSources() {
        return size.get();
    }

    /**
     * Removes the sources with nothing left to remember: bucket full again, failures past their
     * window, no ban; logs bans that have ended. Called every second off the event loops.
     */
    public void sweep() {
        long now = nanos.getAsLong();
        for (Source s : table.values()) {
            boolean ended;
            boolean idle;
            synchronized (s) {
                ended = s.banEnds(now);
                idle = s.idle(now);
                if (idle) {
                    s.removed = true;
                }
            }
            if (ended) {
                banEnded(s);
            }
            if (idle) {
                forget(s);
            }
        }
    }

    /**
     * Takes an entry marked removed out of the table, unless whoever marked it or met it first
     * already did: the sweep and a request that finds it marked may both try.
     */
    private void forget(Source s) {
        if (table.remove(s.address, s)) {
            size.decrementAndGet();
        }
    }

    /** Counts one more entry unless the table is full: the count never passes {@code maxSources}, even for a moment. */
    private boolean reserve() {
        int n;
        do {
            n = size.get();
            if (n >= maxSources) {
                return false;
            }
        } while (!size.compareAndSet(n, n + 1));
        return true;
    }

    /** The source's entry: its own, a new one, or the shared bucket when the table is full. */
    private Source lookup(InetAddress source, long now) {
        InetAddress key = key(source);
        Source s = table.get(key);
        if (s != null) {
            return s;
        }
        if (!reserve()) {
            rateLimited.warn("sources_full", "limits: {} sources tracked (limits.maxSources); new sources share one"
                    + " bucket of {} requests/s until entries lapse", maxSources, requestsPerSecond);
            return shared;
        }
        Source fresh = new Source(key, now);
        Source raced = table.putIfAbsent(key, fresh);
        if (raced != null) {
            size.decrementAndGet();
            return raced;
        }
        return fresh;
    }

    private void banEnded(Source s) {
        banned.decrementAndGet();
        logBan("{}: ban of {} s ended", s.address.getHostAddress(), banTime.toSeconds());
    }

    /** Logs a ban or its end, at most {@value #BAN_LOGS_PER_MINUTE} lines a minute. */
    private void logBan(String format, Object... args) {
        boolean log;
        synchronized (this) {
            long now = nanos.getAsLong();
            if (now - logMinute >= MINUTE_NANOS) {
                logMinute = now;
                banLogs = 0;
            }
            log = ++banLogs <= BAN_LOGS_PER_MINUTE;
        }
        if (log) {
            SourceLimits.log.warn(format, args);
        } else {
            rateLimited.warn("ban_logs", "limits: more than {} bans or ends of bans a minute; the rest are not"
                    + " logged (gauge sip.sources.banned)", BAN_LOGS_PER_MINUTE);
        }
    }

    /** The address a source is kept under: itself, or for IPv6 its /64 prefix. */
    static InetAddress key(InetAddress source) {
        if (!(source instanceof Inet6Address)) {
            return source;
        }
        byte[] b = source.getAddress();
        for (int i = 8; i < 16; i++) {
            b[i] = 0;
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are an IPv6 address", e);
        }
    }

    /**
     * One source's bucket, failures and ban.
     * Threading: guarded by its own monitor.
     */
    private final class Source {
        /** The source's address (its /64 for IPv6); null for the shared bucket. */
        final InetAddress address;
        /** Tokens in {@link #TOKEN} units, from {@code -capacity} (the deepest debt) to {@code capacity}. */
        long credit;
        long refilled;
        int failures;
        long firstFailure;
        /** When the ban ends; 0 when not banned. */
        long bannedUntil;
        /** Taken out of the table: whoever holds it looks the source up again. */
        boolean removed;

        Source(InetAddress address, long now) {
            this.address = address;
            this.credit = capacity;
            this.refilled = now;
        }

        /** Takes a token for a request, or refuses it; a refusal answered costs one too, down to a debt of {@code burst}. */
        Verdict take(long now) {
            boolean isBanned = bannedUntil != 0;
            if (requestsPerSecond == 0) {
                return isBanned ? Verdict.BANNED_ANSWERED : Verdict.ADMIT;
            }
            long elapsed = now - refilled;
            if (elapsed > 0) {
                // a clock that went back refills nothing; one far ahead fills the bucket without overflow
                long room = capacity - credit;
                credit = elapsed >= room / requestsPerSecond + 1 ? capacity : credit + elapsed * requestsPerSecond;
                refilled = now;
            }
            if (!isBanned && credit >= TOKEN) {
                credit -= TOKEN;
                return Verdict.ADMIT;
            }
            if (credit - TOKEN >= -capacity) {
                credit -= TOKEN;
                return isBanned ? Verdict.BANNED_ANSWERED : Verdict.RATE_ANSWERED;
            }
            return isBanned ? Verdict.BANNED_DROPPED : Verdict.RATE_DROPPED;
        }

        /** Counts a failure; true when it bans the source. */
        boolean failed(long now) {
            if (bannedUntil != 0) {
                return false;
            }
            if (failures == 0 || now - firstFailure >= windowNanos) {
                failures = 0;
                firstFailure = now;
            }
            if (++failures < authFailures) {
                return false;
            }
            failures = 0;
            bannedUntil = now + banNanos;
            if (bannedUntil == 0) {
                bannedUntil = 1;
            }
            return true;
        }

        /** Ends a ban whose time is up; true when it did (the caller logs it). */
        boolean banEnds(long now) {
            if (bannedUntil != 0 && now - bannedUntil >= 0) {
                bannedUntil = 0;
                return true;
            }
            return false;
        }

        /** Nothing to remember: bucket full again, no failures in their window, no ban. */
        boolean idle(long now) {
            long room = capacity - credit;
            boolean full = requestsPerSecond == 0 || now - refilled >= (room + requestsPerSecond - 1) / requestsPerSecond;
            boolean noFailures = failures == 0 || now - firstFailure >= windowNanos;
            return full && noFailures && bannedUntil == 0;
        }
    }
}
