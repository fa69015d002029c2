package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.SipWorkers;
import org.sipcrypt.server.transport.Transport;

/**
 * Legal INVITEs of about 50 KB (780 Via lines) against the real server over UDP, as in the memory
 * probe of issue 45: the 407s that copy those lines are kept for Timer H within
 * {@code overload.maxKeptBytes}, the oldest evicted first, and messages waiting in the lanes stay
 * within {@code overload.maxQueuedBytes} whatever is admitted; the server answers a normal request
 * afterwards. Budgets are small so that a bounded number of messages passes them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LargeInviteFloodIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int VIA_LINES = 780;
    private static final int KEPT_BUDGET = 1024 * 1024;
    private static final int QUEUE_BUDGET = 256 * 1024;

    @TempDir
    Path dir;

    /** An INVITE without credentials whose Via section holds {@value #VIA_LINES} lines: about 50 KB. */
    private static String largeInvite(SipSocket client, String hp, String callId, String toTag) {
        StringBuilder vias = new StringBuilder();
        for (int i = 1; i < VIA_LINES; i++) {
            vias.append("Via: SIP/2.0/UDP 10.0.").append(i / 250).append('.').append(i % 250 + 1)
                    .append(":5060;branch=z9hG4bK-hop").append(i).append('-').append(callId).append("\r\n");
        }
        String invite = client.request("INVITE", "sip:bob@" + hp, "carol", "bob@" + hp, callId, 1,
                client.contact("carol"));
        if (toTag != null) {
            invite = invite.replace("To: <sip:bob@" + hp + ">\r\n", "To: <sip:bob@" + hp + ">;tag=" + toTag + "\r\n");
        }
        // the client's own Via stays on top; the others follow it
        int afterTopVia = invite.indexOf("\r\n", invite.indexOf("Via: ")) + 2;
        return invite.substring(0, afterTopVia) + vias + invite.substring(afterTopVia);
    }

    /** The next response to the request of {@code callId}, skipping others; null when none comes in time. */
    private static String responseTo(SipSocket client, String callId) throws IOException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String m = client.receive(Duration.ofMillis(300));
            if (m != null && m.startsWith("SIP/2.0 ") && !m.startsWith("SIP/2.0 100 ")
                    && m.contains("\r\nCall-ID: " + callId + "\r\n")) {
                return m;
            }
        }
        return null;
    }

    private static double gauge(MeterRegistry r, String name) {
        return r.get(name).gauge().value();
    }

    private static double counter(MeterRegistry r, String name, String reason) {
        return r.get(name).tag("reason", reason).functionCounter().count();
    }

    /**
     * A normal OPTIONS is answered, and, once the overload guard's reading of the lanes' delay has
     * caught up with their draining (a busy machine may take seconds), not with 503: each 503 is
     * followed by a new OPTIONS half a second later, for at most {@link #WAIT}.
     */
    private static void answersANormalRequest(TestServer server, SipSocket client, String hp)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String answer;
        int cseq = 0;
        do {
            cseq++;
            client.send(client.request("OPTIONS", "sip:" + hp, "carol", hp, "after-flood", cseq, ""));
            answer = responseTo(client, "after-flood");
            assertNotNull(answer, "OPTIONS " + cseq + " after the flood was not answered");
            if (answer.startsWith("SIP/2.0 503")) {
                Thread.sleep(500);
            }
        } while (answer.startsWith("SIP/2.0 503") && System.nanoTime() < deadline);
        assertFalse(answer.startsWith("SIP/2.0 503"), cseq + " OPTIONS after the flood, the last answer: " + answer);
    }

    @Test
    void challengesToLargeInvitesAreKeptWithinTheByteBudgetOldestFirst() throws Exception {
        Transport t = Transport.UDP;
        try (TestServer server = TestServer.start(dir, "auth", "true",
                "overload.maxKeptBytes", String.valueOf(KEPT_BUDGET));
             SipSocket client = SipSocket.udp(server.address(t))) {
            // the challenges from bytes, kept within the budget, are the fast path's
            assumeTrue(server.fastPath(), "sip.fastPath is off");
            MeterRegistry r = server.server().registry();
            String hp = server.hostPort(t);
            int invites = 60;
            for (int i = 0; i < invites; i++) {
                String callId = "large-" + i;
                String invite = largeInvite(client, hp, callId, null);
                assertTrue(invite.length() > 45_000 && invite.length() < 60_000, invite.length() + " bytes");
                client.send(invite);
                String answer = responseTo(client, callId);
                assertNotNull(answer, "no answer to INVITE " + i);
                assertTrue(answer.startsWith("SIP/2.0 407 "), answer.substring(0, Math.min(200, answer.length())));
                assertTrue(answer.length() > 45_000, "the 407 copies every Via line: " + answer.length() + " bytes");
                assertTrue(gauge(r, "sip.kept.bytes") <= KEPT_BUDGET,
                        "after INVITE " + i + ": " + gauge(r, "sip.kept.bytes") + " bytes kept");
            }
            // 60 answers of 50 KB are three times the budget: the oldest went, the newest stay
            assertTrue(counter(r, "sip.kept.evicted", "bytes") >= invites - KEPT_BUDGET / 45_000,
                    counter(r, "sip.kept.evicted", "bytes") + " evicted");
            assertTrue(gauge(r, "sip.kept.bytes") > KEPT_BUDGET / 2, gauge(r, "sip.kept.bytes") + " bytes kept");
            assertEquals(invites, server.server().transportCounters().value("sip.requests.answered_early"),
                    "challenged from their bytes, never holding a parsed 50 KB request in a transaction");
            answersANormalRequest(server, client, hp);
        }
    }

    @Test
    void aChallengeIsGivenAtOnceRatherThanBehindItsLanesBacklog() throws Exception {
        Transport t = Transport.UDP;
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch backlog = new CountDownLatch(1);
        try (TestServer server = TestServer.start(dir, "auth", "true", "sip.workers", "1");
             SipSocket client = SipSocket.udp(server.address(t))) {
            SipWorkers lanes = server.server().workers();
            String hp = server.hostPort(t);
            try {
                // one lane: held busy, then the INVITE (a made-up To tag takes it to the stack), then more work
                assertTrue(lanes.execute("busy", () -> await(first)));
                client.send(largeInvite(client, hp, "backlog", "made-up"));
                Await.until(() -> lanes.queued("backlog") == 1, WAIT, () -> "the INVITE is not waiting in the lane");
                assertTrue(lanes.execute("busy", () -> await(backlog)));
                first.countDown();

                // the challenge needs no lookup: it goes while the work queued after the INVITE still waits
                String answer = responseTo(client, "backlog");
                assertNotNull(answer, "the 407 waited behind the lane's backlog");
                assertTrue(answer.startsWith("SIP/2.0 407 "), answer.substring(0, Math.min(200, answer.length())));
                assertEquals(1, backlog.getCount(), "answered while the work queued after the INVITE still waits");
            } finally {
                first.countDown();
                backlog.countDown();
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void largeInvitesWithAMadeUpToTagWaitInTheLanesWithinTheByteBudget() throws Exception {
        Transport t = Transport.UDP;
        try (TestServer server = TestServer.start(dir, "auth", "true", "sip.workers", "1",
                "overload.maxQueuedBytes", String.valueOf(QUEUE_BUDGET));
             SipSocket client = SipSocket.udp(server.address(t))) {
            MeterRegistry r = server.server().registry();
            String hp = server.hostPort(t);
            double peak = 0;
            for (int i = 0; i < 100; i++) {
                client.send(largeInvite(client, hp, "tagged-" + i, "made-up"));
                peak = Math.max(peak, gauge(r, "sip.workers.queued.bytes"));
                assertTrue(peak <= QUEUE_BUDGET, peak + " bytes queued after INVITE " + i);
            }
            // while the lanes drain new requests may get 503; once they have, a normal one is served
            Await.until(() -> gauge(r, "sip.workers.queued.bytes") == 0, WAIT,
                    () -> gauge(r, "sip.workers.queued.bytes") + " bytes still queued");
            answersANormalRequest(server, client, hp);
        }
    }
}
