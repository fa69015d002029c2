package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CompletedTransactionsTest {

    private final AtomicLong nanos = new AtomicLong();
    private final InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 5070);

    private CompletedTransactions store(long max) {
        return new CompletedTransactions(CompletedTransactions.TIMER_J, CompletedTransactions.TIMER_I, max, nanos::get);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void keyIsBranchSentByAndMethodPerRfc3261() {
        String k = CompletedTransactions.key("z9hG4bK-1", "Host.Example", 5060, "bye");
        assertEquals(k, CompletedTransactions.key("z9hG4bK-1", "host.example", 5060, "BYE"));
        assertNotEquals(k, CompletedTransactions.key("z9hG4bK-1", "host.example", 5061, "BYE"), "other sent-by port");
        assertNotEquals(k, CompletedTransactions.key("z9hG4bK-1", "other.example", 5060, "BYE"), "other sent-by host");
        assertNotEquals(k, CompletedTransactions.key("z9hG4bK-1", "host.example", 5060, "REGISTER"), "other method");
        assertNotEquals(k, CompletedTransactions.key("z9hG4bK-2", "host.example", 5060, "BYE"), "other branch");
    }

    @Test
    void branchesWithoutTheMagicCookieAreNotKept() {
        assertNull(CompletedTransactions.key("1234", "host", 5060, "BYE"));
        assertNull(CompletedTransactions.key(null, "host", 5060, "BYE"));
        CompletedTransactions c = store(10);
        c.completed(null, bytes("SIP/2.0 200 OK"), peer);
        assertEquals(0, c.size());
    }

    @Test
    void aRetransmissionGetsTheKeptResponseUntilTimerJ() {
        CompletedTransactions c = store(10);
        String key = CompletedTransactions.key("z9hG4bK-a", "127.0.0.1", 5070, "BYE");
        c.completed(key, bytes("SIP/2.0 200 OK\r\n"), peer);
        CompletedTransactions.Answer a = c.retransmission(key);
        assertArrayEquals(bytes("SIP/2.0 200 OK\r\n"), a.response());
        assertEquals(peer, a.destination());
        assertFalse(a.absorb());

        nanos.addAndGet(CompletedTransactions.TIMER_J.minusMillis(1).toNanos());
        assertTrue(c.retransmission(key) != null, "still kept just before Timer J");
        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        assertNull(c.retransmission(key), "gone after Timer J");
    }

    @Test
    void anAcceptedInviteIsAbsorbedWithoutAnAnswerButNotItsAck() {
        CompletedTransactions c = store(10);
        String key = CompletedTransactions.key("z9hG4bK-i", "127.0.0.1", 5070, "INVITE");
        c.absorbed(key);
        assertTrue(c.retransmission(key).absorb());
        assertFalse(c.acknowledged(key), "an ACK for a 2xx is a transaction of its own (RFC 3261 §13.2.2.4)");
        assertNull(c.retransmission(CompletedTransactions.key("z9hG4bK-i", "127.0.0.1", 5070, "BYE")));
    }

    @Test
    void aRejectedInviteIsAnsweredAgainUntilItsAckThenOnlyAbsorbedForTimerI() {
        CompletedTransactions c = store(10);
        String key = CompletedTransactions.key("z9hG4bK-r", "127.0.0.1", 5070, "INVITE");
        c.completed(key, bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), peer);
        assertArrayEquals(bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), c.retransmission(key).response());
        assertFalse(c.acknowledged(CompletedTransactions.key("z9hG4bK-other", "127.0.0.1", 5070, "INVITE")),
                "an ACK of another branch is not this transaction's");
        assertFalse(c.acknowledged(null));

        nanos.addAndGet(CompletedTransactions.TIMER_J.minusSeconds(1).toNanos());
        assertTrue(c.acknowledged(key), "the ACK, within Timer H, is absorbed");
        assertTrue(c.retransmission(key).absorb(), "after the ACK the response is not sent again");
        assertTrue(c.acknowledged(key), "a copy of the ACK is absorbed too");

        nanos.addAndGet(CompletedTransactions.TIMER_I.minusMillis(1).toNanos());
        assertTrue(c.acknowledged(key), "still absorbed just before Timer I");
        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        assertFalse(c.acknowledged(key), "gone after Timer I, counted from the first ACK");
        assertNull(c.retransmission(key));
    }

    @Test
    void anUnacknowledgedRejectedInviteGoesAfterTimerH() {
        CompletedTransactions c = store(10);
        String key = CompletedTransactions.key("z9hG4bK-h", "127.0.0.1", 5070, "INVITE");
        c.completed(key, bytes("SIP/2.0 486 Busy Here\r\n"), peer);
        nanos.addAndGet(CompletedTransactions.TIMER_J.plusMillis(1).toNanos());
        assertNull(c.retransmission(key));
        assertFalse(c.acknowledged(key), "a late ACK is not absorbed here");
    }

    @Test
    void theBoundKeepsTheNewestEntries() {
        CompletedTransactions c = store(100);
        for (int i = 0; i < 1_000; i++) {
            c.completed(CompletedTransactions.key("z9hG4bK-" + i, "h", 1, "BYE"), bytes("r" + i), peer);
        }
        // Caffeine evicts by frequency and recency; what matters here is the bound itself
        assertTrue(c.size() <= 100, "size " + c.size());
    }

    @Test
    void settingsAreChecked() {
        Duration j = CompletedTransactions.TIMER_J;
        Duration i = CompletedTransactions.TIMER_I;
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(Duration.ZERO, i, 1, nanos::get));
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(j, Duration.ZERO, 1, nanos::get));
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(j, i, 0, nanos::get));
    }
}
