package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The overload guard on real worker lanes: one lane held busy by a task that waits on a latch, so
 * its queue fills and ages exactly as the test says, with a ticker the test moves.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OverloadGuardTest {

    private static final String LANE = "call-1";

    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger unanswered = new AtomicInteger();
    private final AtomicLong heapPercent = new AtomicLong();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<byte[]> replies = new ArrayList<>();
    /** The one branch (lower case) with a server transaction in progress; none by default. */
    private String inProgress = "";
    private final CountDownLatch release = new CountDownLatch(1);
    private SipWorkers workers;

    @BeforeEach
    void busyLane() throws InterruptedException {
        workers = new SipWorkers(1, 10, e -> { }, now::get);
        CountDownLatch running = new CountDownLatch(1);
        assertTrue(workers.execute(LANE, () -> {
            running.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(running.await(20, TimeUnit.SECONDS), "the lane did not start the blocking task");
    }

    @AfterEach
    void freeLane() {
        release.countDown();
        workers.close();
    }

    private OverloadGuard guard(int queueThreshold, Duration maxQueueDelay, int maxTransactions, int maxHeap) {
        return new OverloadGuard(queueThreshold, maxQueueDelay, maxTransactions, maxHeap, Duration.ofSeconds(5),
                workers, unanswered::get, b -> b.equals(inProgress),
                // the one dialog the SIP layer verifies: call-1 between tags a and b
                (callId, fromTag, toTag) -> callId.equals(LANE) && fromTag.equals("a") && toTag.equals("b"),
                () -> heapPercent.get() / 100.0, registry);
    }

    private void queue(int n) {
        for (int i = 0; i < n; i++) {
            assertTrue(workers.execute(LANE, () -> { }));
        }
    }

    private boolean admit(OverloadGuard guard, String message) {
        return guard.admit(message.getBytes(StandardCharsets.UTF_8), LANE, replies::add);
    }

    private String lastReply() {
        assertFalse(replies.isEmpty(), "nothing was answered");
        return new String(replies.get(replies.size() - 1), StandardCharsets.UTF_8);
    }

    private double rejected(String method, String reason) {
        Counter c = registry.find("sip.overload.rejected").tag("method", method).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void newRequestsAreRefusedWith503AndRetryAfterOnceTheLaneReachesItsThreshold() {
        OverloadGuard guard = guard(2, Duration.ZERO, 0, 0);
        queue(1);
        assertTrue(admit(guard, request("INVITE", null)), "below the threshold");
        queue(1);

        assertFalse(admit(guard, request("INVITE", null)));
        String answer = lastReply();
        assertTrue(answer.startsWith("SIP/2.0 503 Service Unavailable\r\n"), answer);
        assertTrue(answer.contains("\r\nCall-ID: call-1\r\n"), answer);
        assertTrue(answer.contains("\r\nCSeq: 1 INVITE\r\n"), answer);
        assertTrue(answer.contains("\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1\r\n"), answer);
        int retryAfter = retryAfter(answer);
        assertTrue(retryAfter >= 5 && retryAfter <= 10, answer);
        assertFalse(admit(guard, request("REGISTER", null)));
        assertTrue(lastReply().startsWith("SIP/2.0 503 "), lastReply());
        assertEquals(1, rejected("invite", "queue"));
        assertEquals(1, rejected("register", "queue"));
        assertEquals(2, guard.rejectedCount());
    }

    @Test
    void responsesAcksCancelsAndInDialogRequestsAreNeverRefused() {
        OverloadGuard guard = guard(1, Duration.ofMillis(1), 1, 1);
        queue(5);
        now.addAndGet(TimeUnit.SECONDS.toNanos(10));
        unanswered.set(100);
        heapPercent.set(99);
        guard.sampleHeap();
        guard.startDraining();

        assertTrue(admit(guard, "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1\r\n"
                + "From: <sip:a@127.0.0.1>;tag=a\r\nTo: <sip:b@127.0.0.1>;tag=b\r\nCall-ID: call-1\r\n"
                + "CSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n"));
        assertTrue(admit(guard, request("BYE", "b")));
        assertTrue(admit(guard, request("ACK", "b")));
        assertTrue(admit(guard, request("CANCEL", null)));
        assertTrue(admit(guard, request("INVITE", "b")), "a re-INVITE is within its dialog");
        assertEquals(List.of(), replies);
        assertEquals(0, guard.rejectedCount());
    }

    @Test
    void aRetransmissionOfARequestInProgressReachesItsTransaction() {
        OverloadGuard guard = guard(10, Duration.ZERO, 1, 0);
        unanswered.set(1);
        inProgress = "z9hg4bk-1";
        assertTrue(admit(guard, request("INVITE", null)), "its transaction absorbs it");
        inProgress = "z9hg4bk-2";
        assertFalse(admit(guard, request("INVITE", null)));
    }

    @Test
    void aMadeUpToTagIsNoDialogAndIsRefusedLikeANewRequest() {
        OverloadGuard guard = guard(10, Duration.ZERO, 1, 0);
        unanswered.set(1);

        assertFalse(admit(guard, request("INVITE", "fake")));
        assertTrue(lastReply().startsWith("SIP/2.0 503 "), lastReply());
        assertFalse(admit(guard, request("BYE", "fake")));
        assertEquals(1, rejected("invite", "transactions"));
        assertEquals(2, guard.rejectedCount());
        assertTrue(admit(guard, request("INVITE", "b")), "a re-INVITE of the verified dialog goes on");
    }

    @Test
    void theAckForARefusalIsAbsorbed() {
        OverloadGuard guard = guard(1, Duration.ZERO, 0, 0);
        queue(1);
        assertFalse(admit(guard, request("INVITE", null)));
        Matcher m = Pattern.compile("\r\nTo: <sip:bob@127.0.0.1>;tag=([^\r]+)\r\n").matcher(lastReply());
        assertTrue(m.find(), lastReply());

        assertFalse(admit(guard, request("ACK", m.group(1))));
        assertEquals(1, registry.find("sip.overload.acks.absorbed").counter().count());
        assertEquals(1, replies.size(), "an ACK is never answered");
    }

    @Test
    void newRequestsAreRefusedWhileTheOldestQueuedMessageWaitedTooLong() {
        OverloadGuard guard = guard(10, Duration.ofMillis(200), 0, 0);
        queue(1);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
        assertTrue(admit(guard, request("INVITE", null)), "waited exactly the limit");

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertFalse(admit(guard, request("INVITE", null)));
        assertEquals(1, rejected("invite", "queue_delay"));
    }

    @Test
    void newRequestsAreRefusedWhileTheLaneHoldsAStandingQueue() {
        OverloadGuard guard = guard(10, Duration.ZERO, 0, 0);
        guard.refuseStandingQueues(Duration.ofMillis(10), Duration.ofMillis(50));
        queue(1);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(20));
        assertTrue(admit(guard, request("INVITE", null)), "a wait above the target is a burst at first");
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(49));
        assertTrue(admit(guard, request("INVITE", null)), "above the target for 49 ms");
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertFalse(admit(guard, request("INVITE", null)), "above the target for 50 ms: a standing queue");
        assertTrue(lastReply().startsWith("SIP/2.0 503 Service Unavailable\r\n"), lastReply());
        assertEquals(1, rejected("invite", "queue_standing"));
        assertTrue(admit(guard, request("BYE", "b")), "a request within a verified dialog is never refused");
    }

    @Test
    void newRequestsAreRefusedWhileTooManyAwaitTheirAnswer() {
        OverloadGuard guard = guard(10, Duration.ZERO, 3, 0);
        unanswered.set(2);
        assertTrue(admit(guard, request("INVITE", null)));
        unanswered.set(3);
        assertFalse(admit(guard, request("OPTIONS", null)));
        assertEquals(1, rejected("options", "transactions"));
        unanswered.set(2);
        assertTrue(admit(guard, request("INVITE", null)), "admitted again once under the budget");
    }

    @Test
    void newRequestsAreRefusedWhileTheHeapAfterGcIsAboveItsShare() {
        OverloadGuard guard = guard(10, Duration.ZERO, 0, 85);
        heapPercent.set(90);
        assertTrue(admit(guard, request("INVITE", null)), "not sampled yet");
        guard.sampleHeap();
        assertFalse(admit(guard, request("INVITE", null)));
        assertEquals(1, rejected("invite", "heap"));
        heapPercent.set(50);
        guard.sampleHeap();
        assertTrue(admit(guard, request("INVITE", null)));
    }

    @Test
    void drainingRefusesEveryNewRequestWithShuttingDown() {
        OverloadGuard guard = guard(10, Duration.ZERO, 0, 0);
        guard.startDraining();
        assertFalse(admit(guard, request("INVITE", null)));
        assertTrue(lastReply().startsWith("SIP/2.0 503 Shutting Down\r\n"), lastReply());
        assertTrue(retryAfter(lastReply()) >= 5);
        assertEquals(1, rejected("invite", "shutting_down"));
    }

    @Test
    void unknownMethodsAreCountedAsOther() {
        OverloadGuard guard = guard(10, Duration.ZERO, 0, 0);
        guard.startDraining();
        assertFalse(admit(guard, request("XFLOOD" + System.nanoTime(), null)));
        assertEquals(1, rejected("other", "shutting_down"));
    }

    @Test
    void toTagIsTheHeaderParameterNotOneOfTheUri() {
        assertNull(OverloadGuard.toTag(bytes("INVITE sip:b SIP/2.0\r\nTo: <sip:b@h;tag=x>\r\n\r\n")));
        assertEquals("x", OverloadGuard.toTag(bytes("INVITE sip:b SIP/2.0\r\nTo: sip:b@h;tag=x\r\n\r\n")));
        assertEquals("y", OverloadGuard.toTag(bytes("INVITE sip:b SIP/2.0\r\nt: <sip:b@h> ; TAG = y\r\n\r\n")));
        assertNull(OverloadGuard.toTag(bytes("INVITE sip:b SIP/2.0\r\nTo: <sip:b@h>;tagged=1\r\n\r\n")));
        assertNull(OverloadGuard.method(bytes("SIP/2.0 180 Ringing\r\n\r\n")));
        assertEquals("INVITE", OverloadGuard.method(bytes("invite sip:b SIP/2.0\r\n\r\n")));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int retryAfter(String response) {
        Matcher m = Pattern.compile("\r\nRetry-After: (\\d+)\r\n").matcher(response);
        assertTrue(m.find(), response);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void sourceLimitsRefuseNewRequestsOnlyAndAnswer503ThenNothingAnd403WhenBanned() throws Exception {
        OverloadGuard guard = guard(10, Duration.ZERO, 0, 0);
        SourceLimits limits = new SourceLimits(1, 1, 1, Duration.ofMinutes(1), Duration.ofMinutes(10), 100,
                a -> false, now::get, registry);
        guard.limitSourcesWith(limits);
        java.net.InetAddress scanner = java.net.InetAddress.getByName("192.0.2.1");

        assertTrue(admit(guard, scanner, request("OPTIONS", null)), "the burst of one");
        assertFalse(admit(guard, scanner, request("INVITE", null)));
        String answer = lastReply();
        assertTrue(answer.startsWith("SIP/2.0 503 Service Unavailable\r\n"), answer);
        int retryAfter = retryAfter(answer);
        assertTrue(retryAfter >= 5 && retryAfter <= 10, answer);
        int answered = replies.size();
        assertFalse(admit(guard, scanner, request("REGISTER", null)), "beyond the debt");
        assertEquals(answered, replies.size(), "a refusal beyond the debt is not answered");

        // never limited: the ACK for our 503 (absorbed), other ACKs, CANCEL, responses, requests within a
        // dialog the SIP layer verifies, and a retransmission of a request in progress
        assertFalse(admit(guard, scanner, ackFor(answer)), "the ACK of our refusal is absorbed");
        assertTrue(admit(guard, scanner, request("ACK", "b")));
        assertTrue(admit(guard, scanner, request("CANCEL", null)));
        assertTrue(admit(guard, scanner, "SIP/2.0 200 OK\r\n" + request("BYE", "b").substring(
                request("BYE", "b").indexOf("\r\n") + 2)));
        assertTrue(admit(guard, scanner, request("BYE", "b")), "within the verified dialog");
        assertFalse(admit(guard, scanner, request("BYE", "forged")), "a To tag alone is no dialog");
        inProgress = "z9hg4bk-1";
        assertTrue(admit(guard, scanner, request("INVITE", null)), "a retransmission");
        inProgress = "";
        assertTrue(admit(guard, java.net.InetAddress.getByName("192.0.2.2"), request("INVITE", null)),
                "another source");

        limits.authFailed(scanner);
        now.addAndGet(TimeUnit.SECONDS.toNanos(3));
        assertFalse(admit(guard, scanner, request("REGISTER", null)));
        assertTrue(lastReply().startsWith("SIP/2.0 403 Forbidden\r\n"), lastReply());
        assertEquals(2, registry.get("sip.sources.limited").tag("reason", "rate").tag("action", "dropped")
                .counter().count());
        assertEquals(1, registry.get("sip.sources.limited").tag("reason", "rate").tag("action", "answered")
                .counter().count());
        assertEquals(1, registry.get("sip.sources.limited").tag("reason", "banned").tag("action", "answered")
                .counter().count());
        assertEquals(0, guard.rejectedCount(), "not counted as overload");
    }

    private boolean admit(OverloadGuard guard, java.net.InetAddress source, String message) {
        return guard.admit(message.getBytes(StandardCharsets.UTF_8), source, LANE, replies::add);
    }

    /** The ACK a client sends for a non-2xx final response: the response's To tag, the INVITE's branch. */
    private static String ackFor(String response) {
        Matcher m = Pattern.compile("\r\nTo: ([^\r]*)\r\n").matcher(response);
        assertTrue(m.find(), response);
        return request("ACK", null).replace("To: <sip:bob@127.0.0.1>\r\n", "To: " + m.group(1) + "\r\n");
    }

    private static String request(String method, String toTag) {
        return method + " sip:bob@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a\r\n"
                + "To: <sip:bob@127.0.0.1>" + (toTag == null ? "" : ";tag=" + toTag) + "\r\n"
                + "Call-ID: " + LANE + "\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }
}
