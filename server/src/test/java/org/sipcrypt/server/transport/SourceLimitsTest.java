package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.transport.SourceLimits.Verdict.ADMIT;
import static org.sipcrypt.server.transport.SourceLimits.Verdict.BANNED_ANSWERED;
import static org.sipcrypt.server.transport.SourceLimits.Verdict.RATE_ANSWERED;
import static org.sipcrypt.server.transport.SourceLimits.Verdict.RATE_DROPPED;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The per-source buckets, bans and the bound on the table, with a time the test moves. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SourceLimitsTest {

    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final Duration BAN = Duration.ofMinutes(10);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final MeterRegistry registry = new SimpleMeterRegistry();

    private SourceLimits limits(int perSecond, int burst, int failures, int maxSources) {
        return new SourceLimits(perSecond, burst, failures, WINDOW, BAN, maxSources,
                a -> a.getHostAddress().equals("192.0.2.99"), now::get, registry);
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }

    private static List<SourceLimits.Verdict> take(SourceLimits limits, InetAddress source, int n) {
        List<SourceLimits.Verdict> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(limits.admit(source));
        }
        return out;
    }

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void aSourceGetsItsBurstThenAnswersUpToItsDebtThenNothing() {
        SourceLimits limits = limits(10, 3, 0, 100);
        InetAddress scanner = ip("192.0.2.1");
        assertEquals(List.of(ADMIT, ADMIT, ADMIT, RATE_ANSWERED, RATE_ANSWERED, RATE_ANSWERED, RATE_DROPPED,
                RATE_DROPPED), take(limits, scanner, 8));
        // 100 ms: one token back, owed: refused, but answered
        advance(Duration.ofMillis(100));
        assertEquals(List.of(RATE_ANSWERED, RATE_DROPPED), take(limits, scanner, 2));
        // the bucket refills at 10 a second from its debt of 3 up to its size of 3
        advance(Duration.ofMillis(600));
        assertEquals(List.of(ADMIT, ADMIT, ADMIT, RATE_ANSWERED), take(limits, scanner, 4));
        assertEquals(List.of(ADMIT, ADMIT), take(limits, ip("192.0.2.2"), 2), "another source has its own bucket");
    }

    @Test
    void aSourceWithinItsRateIsNeverLimited() {
        SourceLimits limits = limits(10, 2, 0, 100);
        InetAddress trunk = ip("192.0.2.1");
        for (int i = 0; i < 1000; i++) {
            assertEquals(ADMIT, limits.admit(trunk), "request " + i);
            advance(Duration.ofMillis(100));
        }
    }

    @Test
    void exemptSourcesAreNeverLimitedNorBanned() {
        SourceLimits limits = limits(1, 1, 2, 100);
        InetAddress allowed = ip("192.0.2.99");
        for (int i = 0; i < 10; i++) {
            limits.authFailed(allowed);
        }
        assertEquals(List.of(ADMIT, ADMIT, ADMIT, ADMIT, ADMIT), take(limits, allowed, 5));
        assertEquals(0, limits.trackedSources());
        assertEquals(0, limits.bannedCount());
    }

    @Test
    void failuresWithinTheWindowBanTheSourceUntilTheBanTimeIsOver() {
        SourceLimits limits = limits(0, 1, 3, 100);
        InetAddress cracker = ip("192.0.2.1");
        limits.authFailed(cracker);
        limits.authFailed(cracker);
        assertEquals(ADMIT, limits.admit(cracker));
        limits.authFailed(cracker);
        assertTrue(limits.banned(cracker));
        assertEquals(1, limits.bannedCount());
        // with the rate off every request of a banned source is answered, as it would be otherwise
        assertEquals(List.of(BANNED_ANSWERED, BANNED_ANSWERED), take(limits, cracker, 2));
        assertEquals(ADMIT, limits.admit(ip("192.0.2.2")));

        advance(BAN.minusSeconds(1));
        assertEquals(BANNED_ANSWERED, limits.admit(cracker));
        advance(Duration.ofSeconds(1));
        assertEquals(ADMIT, limits.admit(cracker));
        assertFalse(limits.banned(cracker));
        assertEquals(0, limits.bannedCount());
    }

    @Test
    void failuresSpreadWiderThanTheWindowDoNotBan() {
        SourceLimits limits = limits(0, 1, 3, 100);
        InetAddress phone = ip("192.0.2.1");
        for (int i = 0; i < 10; i++) {
            limits.authFailed(phone);
            advance(WINDOW.dividedBy(2));
        }
        assertFalse(limits.banned(phone));
        assertEquals(ADMIT, limits.admit(phone));
    }

    @Test
    void aBannedSourceIsAnsweredWithinItsRateAndDroppedBeyond() {
        SourceLimits limits = limits(10, 2, 1, 100);
        InetAddress cracker = ip("192.0.2.1");
        limits.authFailed(cracker);
        List<SourceLimits.Verdict> verdicts = take(limits, cracker, 6);
        assertEquals(List.of(BANNED_ANSWERED, BANNED_ANSWERED, BANNED_ANSWERED, BANNED_ANSWERED,
                SourceLimits.Verdict.BANNED_DROPPED, SourceLimits.Verdict.BANNED_DROPPED), verdicts);
    }

    @Test
    void theTableStaysBoundedUnderAFloodOfDistinctSourcesWhichThenShareOneBucket() {
        int max = 1_000;
        SourceLimits limits = limits(10, 5, 1, max);
        int admitted = 0;
        for (int i = 0; i < 100_000; i++) {
            InetAddress forged = ip("10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
            if (limits.admit(forged) == ADMIT) {
                admitted++;
            }
            // nor does a failure reported for a source beyond the bound create an entry or ban anyone
            limits.authFailed(forged);
            assertTrue(limits.trackedSources() <= max, "tracked " + limits.trackedSources());
        }
        assertEquals(max, limits.trackedSources());
        // the first 1,000 sources had a bucket each; the other 99,000 shared one of 5
        assertEquals(max + 5, admitted);
        assertEquals(99_000, registry.get("sip.sources.shared").counter().count());
        assertEquals(max, limits.bannedCount(), "the sources in the table were banned, the others not");

        // the bans end, the buckets refill, and the sweep empties the table
        advance(BAN);
        limits.sweep();
        assertEquals(0, limits.trackedSources());
        assertEquals(0, limits.bannedCount());
        assertEquals(ADMIT, limits.admit(ip("192.0.2.1")), "a new source has its own bucket again");
    }

    @Test
    void theCountOfSourcesStaysExactWhileEventLoopsAndTheSweepRace() throws Exception {
        int max = 300;
        SourceLimits limits = limits(1_000, 1, 0, max);
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < 3; t++) {
            int seed = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < 30_000; i++) {
                    int k = (i * 7 + seed) % 500;
                    limits.admit(ip("10.0." + k / 250 + "." + k % 250));
                    now.addAndGet(50_000);
                    most.accumulateAndGet(limits.trackedSources(), Math::max);
                }
            }, "loop-" + t));
        }
        threads.add(new Thread(() -> {
            while (!stop.get()) {
                limits.sweep();
            }
        }, "sweeper"));
        threads.forEach(Thread::start);
        for (Thread t : threads.subList(0, 3)) {
            t.join(20_000);
        }
        stop.set(true);
        threads.get(3).join(20_000);
        assertTrue(most.get() <= max, "tracked at most " + most.get());

        advance(Duration.ofSeconds(1));
        limits.sweep();
        assertEquals(0, limits.trackedSources(), "every entry counted once, removed once");
        assertEquals(ADMIT, limits.admit(ip("192.0.2.1")));
        assertEquals(1, limits.trackedSources());
    }

    @Test
    void anIpv6SourceIsKeptByItsSlash64() {
        SourceLimits limits = limits(10, 2, 0, 100);
        for (int i = 0; i < 1_000; i++) {
            limits.admit(ip("2001:db8:0:1::" + Integer.toHexString(i + 1)));
        }
        assertEquals(1, limits.trackedSources());
        assertEquals(RATE_DROPPED, limits.admit(ip("2001:db8:0:1:ffff::1")));
        assertEquals(ADMIT, limits.admit(ip("2001:db8:0:2::1")), "another /64 is another source");
    }

    @Test
    void refusalsAreCountedByReasonAndAction() {
        SourceLimits limits = limits(10, 1, 1, 100);
        InetAddress source = ip("192.0.2.1");
        for (SourceLimits.Verdict v : take(limits, source, 4)) {
            if (v != ADMIT) {
                limits.count(v);
            }
        }
        assertEquals(1, registry.get("sip.sources.limited").tag("reason", "rate").tag("action", "answered")
                .counter().count());
        assertEquals(2, registry.get("sip.sources.limited").tag("reason", "rate").tag("action", "dropped")
                .counter().count());
        limits.authFailed(source);
        assertEquals(1, registry.get("sip.sources.banned").gauge().value());
    }
}
