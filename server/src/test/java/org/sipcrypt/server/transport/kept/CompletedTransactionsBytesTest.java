package org.sipcrypt.server.transport.kept;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kept-transactions store bounded in bytes as well as in entries, its expired entries swept by
 * time without a write, and trimmed for the heap guard; time is a ticker the test moves.
 */
@Timeout(60)
class CompletedTransactionsBytesTest {

    /** A 407 with 780 Via lines, as a legal INVITE makes the challenge copy them: about 50 KB. */
    private static final int LARGE = 50_000;
    private static final long BUDGET = 1024 * 1024;

    private final AtomicLong nanos = new AtomicLong();
    private final InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 5070);

    private CompletedTransactions store(long maxEntries, long maxBytes) {
        return new CompletedTransactions(CompletedTransactions.TIMER_J, CompletedTransactions.TIMER_I, maxEntries,
                maxBytes, nanos::get);
    }

    private static String invite(int i) {
        return CompletedTransactions.key("z9hG4bK-" + i, "127.0.0.1", 5070, "INVITE");
    }

    private static byte[] response(int i, int length) {
        byte[] r = new byte[length];
        Arrays.fill(r, (byte) 'v');
        byte[] head = ("SIP/2.0 407 " + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, r, 0, head.length);
        return r;
    }

    @Test
    void keptBytesStayWithinTheBudgetTheOldestAnswersGoingFirst() {
        CompletedTransactions c = store(200_000, BUDGET);
        int written = 200;
        for (int i = 0; i < written; i++) {
            c.completed(invite(i), response(i, LARGE), peer);
            nanos.incrementAndGet();
            assertTrue(c.keptBytes() <= BUDGET, "after " + (i + 1) + " answers: " + c.keptBytes() + " bytes kept");
        }
        long fit = BUDGET / LARGE;
        assertTrue(c.size() >= fit - 1 && c.size() <= fit, c.size() + " answers kept in " + BUDGET + " bytes");
        assertEquals(written - c.size(), c.evicted("bytes"));
        assertEquals(0, c.evicted("entries"));
        for (int i = 0; i < written - c.size(); i++) {
            assertNull(c.retransmission(invite(i)), "older answer " + i + " evicted");
        }
        for (int i = (int) (written - c.size()); i < written; i++) {
            assertArrayEquals(response(i, LARGE), c.retransmission(invite(i)).response(), "newer answer " + i + " kept");
        }
    }

    @Test
    void smallAnswersAreBoundedByEntriesAndLargeOnesByBytesInTheSameStore() {
        CompletedTransactions c = store(100, BUDGET);
        for (int i = 0; i < 150; i++) {
            c.completed(invite(i), response(i, 100), peer);
            nanos.incrementAndGet();
        }
        assertEquals(100, c.size());
        assertEquals(50, c.evicted("entries"));
        for (int i = 150; i < 180; i++) {
            c.completed(invite(i), response(i, LARGE), peer);
            nanos.incrementAndGet();
        }
        assertTrue(c.keptBytes() <= BUDGET, c.keptBytes() + " bytes kept");
        assertNotNull(c.retransmission(invite(179)), "the newest answer is kept");
        assertTrue(c.evicted("bytes") > 0);
    }

    @Test
    void anAnswerLargerThanTheWholeBudgetIsNotKeptAndTakesItsKeysEarlierAnswerAway() {
        CompletedTransactions c = store(1000, 64 * 1024);
        c.provisional(invite(1), response(1, 200), peer);
        c.completed(invite(2), response(2, 200), peer);
        c.completed(invite(1), response(1, 70_000), peer);
        assertNull(c.retransmission(invite(1)), "neither the large answer nor the provisional one it replaces");
        assertNotNull(c.retransmission(invite(2)), "other answers stay");
        assertEquals(1, c.evicted("too_large"));
        assertEquals(1, c.size());
    }

    @Test
    void acknowledgingAnAnswerReturnsItsBytes() {
        CompletedTransactions c = store(1000, BUDGET);
        c.completed(invite(1), response(1, LARGE), peer);
        long withAnswer = c.keptBytes();
        assertTrue(c.acknowledged(invite(1)));
        assertTrue(c.keptBytes() < withAnswer - LARGE + 100, c.keptBytes() + " bytes kept after the ACK");
    }

    @Test
    void expiredEntriesAreSweptByTimeWithoutAnyWrite() {
        CompletedTransactions c = store(200_000, 64L * 1024 * 1024);
        for (int i = 0; i < 3000; i++) {
            c.completed(invite(i), response(i, 5_000), peer);
        }
        long kept = c.keptBytes();
        assertTrue(kept >= 3000L * 5_000, kept + " bytes kept");
        nanos.addAndGet(CompletedTransactions.TIMER_J.minusMillis(1).toNanos());
        assertEquals(0, c.sweepExpired(), "nothing has expired yet");
        assertEquals(kept, c.keptBytes());

        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        // no write since: only the timer's sweep removes them (more than one hold of the lock's worth)
        assertEquals(3000, c.held(), "expired entries wait for a write or the sweep");
        assertEquals(3000, c.sweepExpired());
        assertEquals(0, c.held());
        assertEquals(0, c.keptBytes());
        assertEquals(0, c.evicted("bytes") + c.evicted("entries") + c.evicted("trim"), "expiry is no eviction");
    }

    @Test
    void theSweepStopsAtTheFirstLiveEntryOfEachLifetime() {
        CompletedTransactions c = store(1000, BUDGET);
        c.completed(invite(1), response(1, 300), peer);
        assertTrue(c.acknowledged(invite(1)), "kept for Timer I from now");
        c.completed(invite(2), response(2, 300), peer);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        c.completed(invite(3), response(3, 300), peer);
        nanos.addAndGet(CompletedTransactions.TIMER_I.minusSeconds(1).toNanos());
        assertEquals(1, c.sweepExpired(), "the acknowledged INVITE's Timer I has passed");
        assertEquals(2, c.held());
        nanos.addAndGet(CompletedTransactions.TIMER_J.minus(CompletedTransactions.TIMER_I).toNanos());
        assertEquals(1, c.sweepExpired(), "the second answer's Timer J has passed, not the third's");
        assertNotNull(c.retransmission(invite(3)));
    }

    @Test
    void trimFreesTheOldestAnswersLiveOrNotDownToItsTarget() {
        CompletedTransactions c = store(200_000, 64L * 1024 * 1024);
        for (int i = 0; i < 2000; i++) {
            c.completed(invite(i), response(i, 1_000), peer);
            nanos.incrementAndGet();
        }
        long half = c.keptBytes() / 2;
        int removed = c.trim(half);
        assertTrue(c.keptBytes() <= half, c.keptBytes() + " bytes after trimming to " + half);
        assertTrue(removed >= 999 && removed <= 1001, removed + " removed");
        assertNull(c.retransmission(invite(0)), "the oldest went");
        assertNotNull(c.retransmission(invite(1999)), "the newest stayed");
        assertEquals(2000 - removed, c.trim(0));
        assertEquals(0, c.keptBytes());
        assertEquals(0, c.size());
        assertEquals(2000, c.evicted("trim"));
        c.completed(invite(5000), response(5000, 1_000), peer);
        assertNotNull(c.retransmission(invite(5000)), "the store keeps answers again after a trim");
    }

    @Test
    void theByteBudgetIsChecked() {
        Duration j = CompletedTransactions.TIMER_J;
        Duration i = CompletedTransactions.TIMER_I;
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(j, i, 1, 0, nanos::get));
    }
}
