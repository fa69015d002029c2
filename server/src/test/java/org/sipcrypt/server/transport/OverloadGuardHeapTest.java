package org.sipcrypt.server.transport;

import org.sipcrypt.server.transport.kept.CompletedTransactions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The overload guard's budgets on memory: the heap guard frees the kept answers it guards, and the
 * lanes' bytes refuse new requests before they refuse anything else. A real kept-transactions store
 * and real lanes, one held busy by a task waiting on a latch; the heap is a number the test sets.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OverloadGuardHeapTest {

    private static final String LANE = "call-1";

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong heapPercent = new AtomicLong();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<byte[]> replies = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CompletedTransactions kept = new CompletedTransactions(CompletedTransactions.TIMER_J,
            CompletedTransactions.TIMER_I, 200_000, 64L * 1024 * 1024, nanos::get);
    private SipWorkers workers;
    /** Collections the guard asked for. */
    private final AtomicLong collections = new AtomicLong();

    @BeforeEach
    void busyLane() throws InterruptedException {
        workers = new SipWorkers(1, 1000, 100_000, e -> { });
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

    private OverloadGuard guard() {
        return new OverloadGuard(500, Duration.ZERO, 0, 85, Duration.ofSeconds(5), workers, () -> 0, b -> false,
                (callId, fromTag, toTag) -> false, () -> heapPercent.get() / 100.0, () -> kept.trim(0), collections::incrementAndGet, registry);
    }

    private boolean admit(OverloadGuard guard, String message) {
        return guard.admit(bytes(message), LANE, replies::add);
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
    void aHeapAboveItsBudgetFreesTheKeptAnswersSoThatAdmissionCanResume() {
        OverloadGuard guard = guard();
        for (int i = 0; i < 1000; i++) {
            kept.completed(CompletedTransactions.key("z9hG4bK-" + i, "127.0.0.1", 5070, "INVITE"),
                    new byte[50_000], new InetSocketAddress("127.0.0.1", 5070));
        }
        assertTrue(kept.keptBytes() > 50_000_000L, kept.keptBytes() + " bytes kept");

        heapPercent.set(90);
        guard.sampleHeap();
        assertFalse(admit(guard, request("INVITE", "b1")), "refused while the heap is above its budget");
        assertEquals(1, rejected("invite", "heap"));
        assertEquals(0, kept.keptBytes(), "the guard freed what it guards");
        assertEquals(1000, registry.counter("sip.overload.heap.freed").count());
        assertEquals(1, collections.get(), "and asked for a collection, which a server refusing all may not get");

        // the next collection finds the heap down again: admission resumes
        heapPercent.set(40);
        guard.sampleHeap();
        assertTrue(admit(guard, request("INVITE", "b2")));
        assertEquals(1000, registry.counter("sip.overload.heap.freed").count(), "nothing freed below the budget");
    }

    @Test
    void aStaleReadingAboveTheBudgetAsksForACollectionEveryFewSamples() {
        OverloadGuard guard = guard();
        heapPercent.set(90);
        guard.sampleHeap();
        assertEquals(0, collections.get(), "nothing kept, nothing freed: no collection for that");
        for (int i = 1; i < OverloadGuard.STALE_SAMPLES; i++) {
            guard.sampleHeap();
        }
        assertEquals(0, collections.get());
        guard.sampleHeap();
        assertEquals(1, collections.get(), OverloadGuard.STALE_SAMPLES + " samples of the same reading: no collection since");
        assertEquals(1, registry.counter("sip.overload.heap.collections").count());

        // readings that change (collections come by themselves) ask for none
        for (int i = 0; i < 3 * OverloadGuard.STALE_SAMPLES; i++) {
            heapPercent.set(86 + i % 2);
            guard.sampleHeap();
        }
        assertEquals(1, collections.get());
        heapPercent.set(50);
        guard.sampleHeap();
        assertTrue(admit(guard, request("INVITE", "b1")));
    }

    @Test
    void newRequestsAreRefusedOnceTheLanesHoldThreeQuartersOfTheirBytes() {
        OverloadGuard guard = guard();
        assertTrue(workers.execute("other-call", 74_000, () -> { }));
        assertTrue(admit(guard, request("INVITE", "b1")));
        assertTrue(workers.execute("other-call", 1_000, () -> { }));

        assertFalse(admit(guard, request("INVITE", "b2")));
        assertTrue(lastReply().startsWith("SIP/2.0 503 Service Unavailable\r\n"), lastReply());
        assertEquals(1, rejected("invite", "queue_bytes"));
        assertTrue(admit(guard, request("ACK", "b3")), "the last quarter is for ACKs, responses and dialogs");
    }

    @Test
    void aRequestTheLanesRefuseIsAnswered503AndAnythingElseIsLeftToBeDropped() {
        OverloadGuard guard = guard();
        assertTrue(guard.refuse(bytes(request("INVITE", "b1")), replies::add));
        assertTrue(lastReply().startsWith("SIP/2.0 503 Service Unavailable\r\n"), lastReply());
        assertTrue(lastReply().contains("\r\nRetry-After: "), lastReply());
        assertEquals(1, rejected("invite", "queue_full"));
        assertFalse(guard.refuse(bytes(request("ACK", "b2")), replies::add), "an ACK is never answered");
        assertFalse(guard.refuse(bytes("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-3\r\n"
                + "Call-ID: c\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n"), replies::add), "nor a response");
        assertEquals(1, replies.size());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String request(String method, String branch) {
        return method + " sip:bob@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-" + branch + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a\r\n"
                + "To: <sip:bob@127.0.0.1>\r\n"
                + "Call-ID: " + LANE + "\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }
}
