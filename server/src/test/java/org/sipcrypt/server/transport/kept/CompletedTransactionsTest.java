package org.sipcrypt.server.transport.kept;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
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

    /** A request with {@code via} as its Via header lines (the first one on top). */
    private static byte[] requestWithVia(String method, String... via) {
        StringBuilder m = new StringBuilder(method + " sip:bob@127.0.0.1 SIP/2.0\r\n");
        for (String v : via) {
            m.append(v).append("\r\n");
        }
        m.append("From: <sip:alice@127.0.0.1>;tag=a1\r\nTo: <sip:bob@127.0.0.1>\r\nCall-ID: c1\r\n")
                .append("CSeq: 1 ").append(method).append("\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n");
        return bytes(m.toString());
    }

    /** The key of the parsed request's top Via, as the transport computes it after JAIN-SIP's parse. */
    private static String parsedKey(byte[] request, String method) throws Exception {
        var parsed = (gov.nist.javax.sip.message.SIPRequest) new gov.nist.javax.sip.parser.StringMsgParser()
                .parseSIPMessage(request, true, false, null);
        return CompletedTransactions.key(parsed.getTopmostVia(), method);
    }

    @Test
    void aKeyReadFromTheBytesIsTheParsedRequestsKey() throws Exception {
        String[][] vias = {
            {"Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;rport"},
            {"v: SIP/2.0/UDP Host.Example;received=10.0.0.1;branch=z9hG4bK-2"},
            {"VIA:SIP/2.0/UDP 10.1.2.3:5060 ; branch = z9hG4bK-3 ; rport=5060"},
            {"Via: SIP/2.0/UDP 10.1.2.3:5062;branch=z9hG4bK-4, SIP/2.0/UDP 10.9.9.9:5060;branch=z9hG4bK-x"},
            {"Via: SIP/2.0/UDP 10.1.2.3:5063;branch=z9hG4bK-5", "Via: SIP/2.0/TCP 10.9.9.9;branch=z9hG4bK-y"},
            {"Via: sip/2.0/udp 10.1.2.3:5064;BRANCH=z9hG4bK-6"},
        };
        for (String[] via : vias) {
            for (String method : new String[] {"INVITE", "BYE"}) {
                byte[] request = requestWithVia(method, via);
                String fromBytes = CompletedTransactions.key(request, method);
                assertTrue(fromBytes != null, "no key read from " + via[0]);
                assertEquals(parsedKey(request, method), fromBytes, via[0]);
            }
        }
        // an ACK's key is its INVITE's: the same Via read for method INVITE
        assertEquals(parsedKey(requestWithVia("INVITE", vias[0]), "INVITE"),
                CompletedTransactions.key(requestWithVia("ACK", vias[0]), "INVITE"));
    }

    @Test
    void aViaInAFormTheBytesReaderDoesNotReadLeavesTheKeyToTheParse() {
        String[] unread = {
            "Via: SIP/2.0/UDP [::1]:5070;branch=z9hG4bK-v6",                 // IPv6 reference
            "Via: SIP / 2.0 / UDP 10.1.2.3:5070;branch=z9hG4bK-lws",         // LWS inside the protocol
            "Via: SIP/2.0/UDP 10.1.2.3 : 5070;branch=z9hG4bK-colon",         // LWS around the port's colon
            "Via: SIP/2.0/UDP 10.1.2.3:5070;x=\"a;branch=z9hG4bK-q\";branch=z9hG4bK-r", // a quoted parameter
            "Via: SIP/2.0/UDP 10.1.2.3:5070;branch=z9hG4bK-a;branch=z9hG4bK-b", // two branches
            "Via: SIP/2.0/UDP 10.1.2.3:99999;branch=z9hG4bK-port",           // no such port
            "Via: SIP/2.0/UDP 10.1.2.3:5070;branch=1234",                    // no magic cookie: never kept
            "Via: SIP/2.0/UDP 10.1.2.3:5070",                                // no branch
        };
        for (String via : unread) {
            assertNull(CompletedTransactions.key(requestWithVia("BYE", via), "BYE"), via);
        }
        assertNull(CompletedTransactions.key(bytes("BYE sip:bob@127.0.0.1 SIP/2.0\r\nCall-ID: c\r\n\r\n"), "BYE"),
                "no Via at all");
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
    void anInvitesProvisionalResponseAnswersItsRetransmissionsUntilTheFinalResponseGoes() {
        CompletedTransactions c = store(10);
        String key = CompletedTransactions.key("z9hG4bK-p", "127.0.0.1", 5070, "INVITE");
        InetSocketAddress v6 = new InetSocketAddress("::1", 5071);
        c.provisional(key, bytes("SIP/2.0 180 Ringing\r\n"), v6);
        CompletedTransactions.Answer a = c.retransmission(key);
        assertArrayEquals(bytes("SIP/2.0 180 Ringing\r\n"), a.response());
        assertEquals(v6, a.destination(), "kept with its address family");
        assertFalse(c.acknowledged(key), "an ACK is no provisional response's: it goes on to the stack");
        assertFalse(c.retransmission(key).absorb(), "the ACK changed nothing");

        // §17.2.1: "the most recent provisional response"
        c.provisional(key, bytes("SIP/2.0 183 Session Progress\r\n"), peer);
        assertArrayEquals(bytes("SIP/2.0 183 Session Progress\r\n"), c.retransmission(key).response());
        assertEquals(peer, c.retransmission(key).destination());

        c.finalResponse(CompletedTransactions.key("z9hG4bK-other", "127.0.0.1", 5070, "INVITE"));
        c.finalResponse(null);
        assertTrue(c.retransmission(key) != null, "another INVITE's final response leaves it");
        c.finalResponse(key);
        assertNull(c.retransmission(key), "the stack's transaction answers from now on");
        assertEquals(0, c.size());
    }

    @Test
    void aProvisionalResponseNeverTakesAFinalResponsesPlace() {
        CompletedTransactions c = store(10);
        String accepted = CompletedTransactions.key("z9hG4bK-a2", "127.0.0.1", 5070, "INVITE");
        String rejected = CompletedTransactions.key("z9hG4bK-r2", "127.0.0.1", 5070, "INVITE");
        c.provisional(accepted, bytes("SIP/2.0 180 Ringing\r\n"), peer);
        c.absorbed(accepted);
        c.provisional(accepted, bytes("SIP/2.0 180 Ringing\r\n"), peer);
        assertTrue(c.retransmission(accepted).absorb(), "a late provisional response after the 2xx is not kept");
        c.finalResponse(accepted);
        assertTrue(c.retransmission(accepted).absorb(), "only a provisional response is dropped");

        c.completed(rejected, bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), peer);
        c.provisional(rejected, bytes("SIP/2.0 180 Ringing\r\n"), peer);
        c.finalResponse(rejected);
        assertArrayEquals(bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), c.retransmission(rejected).response());
        assertTrue(c.acknowledged(rejected), "the rejection's ACK is still absorbed");
    }

    @Test
    void aProvisionalResponseGoesAfterTimerBLikeAFinalOne() {
        CompletedTransactions c = store(10);
        String key = CompletedTransactions.key("z9hG4bK-t", "127.0.0.1", 5070, "INVITE");
        c.provisional(key, bytes("SIP/2.0 180 Ringing\r\n"), peer);
        nanos.addAndGet(CompletedTransactions.TIMER_J.minusMillis(1).toNanos());
        assertTrue(c.retransmission(key) != null, "still kept just before 64 × T1");
        nanos.addAndGet(Duration.ofMillis(2).toNanos());
        assertNull(c.retransmission(key), "the client has stopped retransmitting (Timer B)");
        c.finalResponse(key);
        assertEquals(0, c.size());
    }

    @Test
    void anEntryReplacedOrRemovedLeavesTheWriteOrderRingAtOnce() {
        CompletedTransactions c = store(100);
        String ringing = CompletedTransactions.key("z9hG4bK-g1", "127.0.0.1", 5070, "INVITE");
        String busy = CompletedTransactions.key("z9hG4bK-g2", "127.0.0.1", 5070, "INVITE");
        String challenged = CompletedTransactions.key("z9hG4bK-g3", "127.0.0.1", 5070, "INVITE");
        // an earlier live entry at the ring's head: the sweep, which starts there, stops at it
        c.completed(CompletedTransactions.key("z9hG4bK-g0", "127.0.0.1", 5070, "BYE"), bytes("SIP/2.0 200 OK\r\n"), peer);
        c.provisional(ringing, bytes("SIP/2.0 180 Ringing\r\n"), peer);
        c.provisional(ringing, bytes("SIP/2.0 183 Session Progress\r\n"), peer);
        c.absorbed(ringing);
        c.provisional(busy, bytes("SIP/2.0 180 Ringing\r\n"), peer);
        c.finalResponse(busy);
        c.completed(challenged, bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), peer);
        assertTrue(c.acknowledged(challenged));
        // the 180, the 183, the other 180 and the 407 are out of the store: nothing holds their bytes
        assertEquals(0, c.ringHeldRemoved());
        assertEquals(3, c.size());
        assertTrue(c.retransmission(ringing).absorb());
        assertNull(c.retransmission(busy));
        assertTrue(c.acknowledged(challenged), "a copy of the ACK is still absorbed");
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
            c.completed(bye(i), bytes("r" + i), peer);
            nanos.incrementAndGet();
        }
        assertEquals(100, c.size());
        for (int i = 0; i < 900; i++) {
            assertNull(c.retransmission(bye(i)), "older entry " + i + " evicted");
        }
        for (int i = 900; i < 1_000; i++) {
            assertArrayEquals(bytes("r" + i), c.retransmission(bye(i)).response(), "newer entry " + i + " kept");
        }
    }

    @Test
    void theBoundEvictsTheOldestWrittenAcrossBothLifetimes() {
        CompletedTransactions c = store(3);
        String rejected = CompletedTransactions.key("z9hG4bK-rej", "127.0.0.1", 5070, "INVITE");
        c.completed(rejected, bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), peer);
        nanos.addAndGet(1);
        c.completed(bye(1), bytes("b1"), peer);
        nanos.addAndGet(1);
        assertTrue(c.acknowledged(rejected), "the ACK rewrites the rejected INVITE's entry, now the newest");
        nanos.addAndGet(1);
        c.completed(bye(2), bytes("b2"), peer);
        nanos.addAndGet(1);
        c.completed(bye(3), bytes("b3"), peer);
        assertNull(c.retransmission(bye(1)), "the oldest written goes first");
        assertTrue(c.acknowledged(rejected), "the acknowledged INVITE, written after it, stays");
        nanos.addAndGet(1);
        c.completed(bye(4), bytes("b4"), peer);
        assertFalse(c.acknowledged(rejected), "now the acknowledged INVITE is the oldest and goes");
        assertArrayEquals(bytes("b2"), c.retransmission(bye(2)).response());
        assertArrayEquals(bytes("b3"), c.retransmission(bye(3)).response());
        assertArrayEquals(bytes("b4"), c.retransmission(bye(4)).response());
        assertEquals(3, c.size());
    }

    @Test
    void theBoundTakesAnExpiredEntryBeforeALiveOlderOne() {
        CompletedTransactions c = store(2);
        c.completed(bye(1), bytes("b1"), peer);
        String rejected = CompletedTransactions.key("z9hG4bK-rej", "127.0.0.1", 5070, "INVITE");
        nanos.addAndGet(1);
        c.completed(rejected, bytes("SIP/2.0 403 Forbidden\r\n"), peer);
        nanos.addAndGet(1);
        assertTrue(c.acknowledged(rejected));
        nanos.addAndGet(CompletedTransactions.TIMER_I.toNanos());
        c.completed(bye(2), bytes("b2"), peer);
        assertArrayEquals(bytes("b1"), c.retransmission(bye(1)).response(),
                "the older entry stays: the acknowledged INVITE's had expired and made room");
        assertArrayEquals(bytes("b2"), c.retransmission(bye(2)).response());
        assertEquals(2, c.size());
    }

    @Test
    void anExpiredEntryMakesRoomBeforeAnOlderLiveOneEvenBehindReplacedOnes() {
        // seven entries, the bound: an old BYE, five rejected INVITEs answered anew after their ACK
        // (their ACK-time entries stay behind as replaced slots in the expiry order, more than a write
        // sweeps), and a sixth whose ACK-time entry expires behind them
        CompletedTransactions c = store(7);
        c.completed(bye(0), bytes("old"), peer);
        nanos.set(Duration.ofSeconds(10).toNanos());
        String[] invites = new String[6];
        for (int i = 0; i < invites.length; i++) {
            invites[i] = CompletedTransactions.key("z9hG4bK-inv" + i, "127.0.0.1", 5070, "INVITE");
            c.completed(invites[i], bytes("SIP/2.0 407 Proxy Authentication Required\r\n"), peer);
            assertTrue(c.acknowledged(invites[i]));
            nanos.incrementAndGet();
        }
        nanos.set(Duration.ofSeconds(11).toNanos());
        // the first last, so that the five replaced entries stand together at the head of their class
        for (int i : new int[] {1, 2, 3, 4, 0}) {
            c.completed(invites[i], bytes("again " + i), peer);
            nanos.incrementAndGet();
        }
        nanos.set(Duration.ofSeconds(10).plus(CompletedTransactions.TIMER_I).toNanos() + invites.length);
        assertFalse(c.acknowledged(invites[5]), "the sixth INVITE's ACK-time entry has expired");

        c.completed(bye(1), bytes("new"), peer);
        assertArrayEquals(bytes("old"), c.retransmission(bye(0)).response(),
                "the expired entry made room, not the oldest live one");
        assertArrayEquals(bytes("new"), c.retransmission(bye(1)).response());
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(bytes("again " + i), c.retransmission(invites[i]).response());
        }
    }

    @Test
    void anEntryExpiringBetweenItsAckLookupAndItsRewriteIsNotRevived() {
        AtomicLong ticks = new AtomicLong();
        CompletedTransactions c = new CompletedTransactions(CompletedTransactions.TIMER_J, CompletedTransactions.TIMER_I,
                10, ticks::getAndIncrement);
        String key = CompletedTransactions.key("z9hG4bK-edge", "127.0.0.1", 5070, "INVITE");
        c.completed(key, bytes("SIP/2.0 486 Busy Here\r\n"), peer);
        // the lookup reads the clock 1 ns before Timer H ends, the rewrite of the entry at its end
        ticks.set(CompletedTransactions.TIMER_J.toNanos() - 1);
        assertTrue(c.acknowledged(key), "the ACK arrived while the entry was kept");
        assertFalse(c.acknowledged(key), "the entry had expired: no Timer I entry was started");
    }

    @Test
    void entriesExpireByTheirOwnLifetimeAcrossBothClasses() {
        CompletedTransactions c = store(10);
        c.completed(bye(1), bytes("b1"), peer);
        String rejected = CompletedTransactions.key("z9hG4bK-rej", "127.0.0.1", 5070, "INVITE");
        c.completed(rejected, bytes("SIP/2.0 486 Busy Here\r\n"), peer);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertTrue(c.acknowledged(rejected), "acknowledged at 1 s: kept until 6 s");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        c.completed(bye(2), bytes("b2"), peer);
        assertEquals(3, c.size());

        nanos.set(Duration.ofSeconds(6).minusNanos(1).toNanos());
        assertTrue(c.acknowledged(rejected));
        nanos.set(Duration.ofSeconds(6).toNanos());
        assertFalse(c.acknowledged(rejected), "written after the first BYE, gone before it");
        assertEquals(2, c.size(), "the expired entry leaves the table, not only the answers");

        nanos.set(CompletedTransactions.TIMER_J.minusNanos(1).toNanos());
        assertArrayEquals(bytes("b1"), c.retransmission(bye(1)).response());
        nanos.set(CompletedTransactions.TIMER_J.toNanos());
        assertNull(c.retransmission(bye(1)));
        assertArrayEquals(bytes("b2"), c.retransmission(bye(2)).response());
        assertEquals(1, c.size());

        nanos.set(CompletedTransactions.TIMER_J.plusSeconds(2).toNanos());
        assertNull(c.retransmission(bye(2)));
        assertEquals(0, c.size());
    }

    @Test
    void writesSweepExpiredEntriesAwayWithoutALookup() {
        CompletedTransactions c = store(1_000);
        for (int i = 0; i < 100; i++) {
            c.completed(bye(i), bytes("r" + i), peer);
        }
        nanos.addAndGet(CompletedTransactions.TIMER_J.toNanos());
        for (int i = 100; i < 125; i++) {
            c.completed(bye(i), bytes("r" + i), peer);
        }
        assertEquals(25, c.held(), "each write removed four expired entries");
    }

    @Test
    void keepingAKeyAgainReplacesItsAnswerAndRestartsItsTime() {
        CompletedTransactions c = store(10);
        c.completed(bye(1), bytes("first"), peer);
        nanos.addAndGet(Duration.ofSeconds(20).toNanos());
        c.completed(bye(1), bytes("second"), peer);
        assertEquals(1, c.size());
        nanos.addAndGet(Duration.ofSeconds(20).toNanos());
        assertArrayEquals(bytes("second"), c.retransmission(bye(1)).response(), "kept 32 s from the second write");
        assertEquals(1, c.size(), "the first write's place in the expiry order was skipped, not expired");
        nanos.addAndGet(Duration.ofSeconds(12).toNanos());
        assertNull(c.retransmission(bye(1)));
        assertEquals(0, c.size());
    }

    @Test
    void theDestinationIsRebuiltFromItsAddressBytesAndPort() throws Exception {
        CompletedTransactions c = store(10);
        byte[] linkLocal = InetAddress.getByName("fe80::1").getAddress();
        InetSocketAddress[] destinations = {
                new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 1, 2, 3}), 65535),
                new InetSocketAddress(InetAddress.getByName("2001:db8::5"), 5060),
                new InetSocketAddress(Inet6Address.getByAddress(null, linkLocal, 7), 1),
        };
        for (int i = 0; i < destinations.length; i++) {
            c.completed(bye(i), bytes("r" + i), destinations[i]);
        }
        for (int i = 0; i < destinations.length; i++) {
            InetSocketAddress kept = c.retransmission(bye(i)).destination();
            assertEquals(destinations[i], kept);
            assertNotSame(destinations[i], kept, "the entry holds bytes, not the caller's address objects");
            assertEquals(destinations[i].getAddress().getClass(), kept.getAddress().getClass());
        }
        assertEquals(7, ((Inet6Address) c.retransmission(bye(2)).destination().getAddress()).getScopeId(),
                "a link-local destination keeps its scope");
        assertThrows(IllegalArgumentException.class,
                () -> c.completed(bye(9), bytes("r"), InetSocketAddress.createUnresolved("host.example", 5060)));
    }

    @Test
    void threadsWritingAndReadingAtOnceFindEveryEntry() throws Exception {
        int threads = 4;
        int perThread = 5_000;
        CompletedTransactions c = store(threads * perThread);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> found = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t * perThread;
                found.add(pool.submit(() -> {
                    int hits = 0;
                    for (int i = first; i < first + perThread; i++) {
                        c.completed(bye(i), bytes("r" + i), peer);
                        CompletedTransactions.Answer a = c.retransmission(bye(i));
                        hits += a != null && Arrays.equals(bytes("r" + i), a.response()) ? 1 : 0;
                    }
                    return hits;
                }));
            }
            for (Future<Integer> f : found) {
                assertEquals(perThread, f.get(30, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * perThread, c.size());
        for (int i = 0; i < threads * perThread; i++) {
            assertArrayEquals(bytes("r" + i), c.retransmission(bye(i)).response());
        }
    }

    private static String bye(int i) {
        return CompletedTransactions.key("z9hG4bK-" + i, "127.0.0.1", 5070, "BYE");
    }

    @Test
    void settingsAreChecked() {
        Duration j = CompletedTransactions.TIMER_J;
        Duration i = CompletedTransactions.TIMER_I;
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(Duration.ZERO, i, 1, nanos::get));
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(j, Duration.ZERO, 1, nanos::get));
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(j, i, 0, nanos::get));
        assertThrows(IllegalArgumentException.class, () -> new CompletedTransactions(j, i, (1 << 24) + 1, nanos::get));
    }
}
