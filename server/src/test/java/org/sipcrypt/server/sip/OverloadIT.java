package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.BobAndAlice;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * Overload shedding end to end with a deliberately tiny budget: {@code overload.maxTransactions=1}
 * and a callee that rings for ever, so one unanswered INVITE holds the server at its budget for as
 * long as the test needs, with no load and no timing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OverloadIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void overBudgetNewRequestsGet503WhileCallsInProgressGoOn(Transport t) throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, t, t, "overload.maxTransactions", "1");
             SipSocket client = u.server().socket(t)) {
            // bob's REGISTER counts against the budget of one until its transaction ends, on a stack thread
            Await.until(() -> u.server().server().unansweredRequests() == 0, WAIT,
                    () -> "unanswered requests: " + u.server().server().unansweredRequests());
            TestUa.Call established = u.alice().call(u.bob().aor(), u.server().address(t));
            u.bob().awaitRequest(Request.ACK, WAIT);

            // the second call rings for ever: its INVITE awaits a final response, the budget is used up
            u.bob().answer(Request.INVITE, TestUa.Answer.ringForever());
            TestUa.Call ringing = u.alice().invite(u.bob().aor(), u.server().address(t));
            u.bob().awaitRequests(Request.INVITE, 2, WAIT);
            ringing.invite().await(Response.RINGING, WAIT);

            String hp = u.server().hostPort(t);
            client.send(client.request("INVITE", "sip:bob@" + hp, "carol", "bob@" + hp, "shed-invite", 1,
                    client.contact("carol")));
            assertRefused(client.awaitMessage("SIP/2.0 ", WAIT), "INVITE");
            client.send(client.request("REGISTER", "sip:" + hp, "carol", "carol@" + hp, "shed-register", 1,
                    client.contact("carol") + "Expires: 600\r\n"));
            assertRefused(client.awaitMessage("SIP/2.0 ", WAIT), "REGISTER");
            assertEquals(1, rejected(u.server(), "invite"));
            assertEquals(1, rejected(u.server(), "register"));

            // within the established call, requests and responses still go through
            assertEquals(Response.OK, established.hangUp().getStatusCode());
            u.bob().awaitRequest(Request.BYE, WAIT);
            // CANCEL is never refused, and the 487 it brings goes back to the caller
            ringing.cancel();
            u.bob().awaitRequest(Request.CANCEL, WAIT);
            assertEquals(Response.REQUEST_TERMINATED, ringing.invite().await(Response.REQUEST_TERMINATED, WAIT)
                    .getStatusCode());
            assertEquals(1, rejected(u.server(), "invite"), "nothing of the calls in progress was refused");

            // with the ringing INVITE answered the budget is free again: new requests are served
            assertTrue(registersAgain(client, hp), "REGISTER still refused after the INVITE was answered");
            assertEquals(List.of(), u.bob().errors());
            assertEquals(List.of(), u.alice().errors());
        }
    }

    @Test
    void aRetransmittedInviteReachesItsTransactionInsteadOfBeingRefused() throws Exception {
        Transport t = Transport.UDP;
        try (TestServer server = TestServer.start(dir, "overload.maxTransactions", "1");
             TestUa callee = TestUa.start("bob", t);
             SipSocket client = SipSocket.udp(server.address(t))) {
            callee.answer(Request.INVITE, TestUa.Answer.ringForever());
            callee.registerAt(server.address(t));
            Await.until(() -> server.server().unansweredRequests() == 0, WAIT,
                    () -> "unanswered requests: " + server.server().unansweredRequests());
            String hp = server.hostPort(t);
            String invite = client.request("INVITE", "sip:bob@" + hp, "carol", "bob@" + hp, "retransmitted", 1,
                    client.contact("carol"));
            client.send(invite);
            assertNotNull(client.awaitMessage("SIP/2.0 180", WAIT), "the INVITE was not forwarded");

            // the INVITE itself now holds the budget; the same INVITE again is a retransmission of it
            client.send(invite);
            String answer = client.awaitMessage("SIP/2.0 ", WAIT);
            assertNotNull(answer, "the retransmission was not answered");
            assertTrue(answer.startsWith("SIP/2.0 180"), "RFC 3261 §17.2.1: the last provisional again, got " + answer);
            client.send(client.request("INVITE", "sip:bob@" + hp, "carol", "bob@" + hp, "another", 1,
                    client.contact("carol")));
            assertRefused(client.awaitMessage("SIP/2.0 503", WAIT), "INVITE");
        }
    }

    @Test
    void anInviteWithAMadeUpToTagIsRefusedLikeANewOne() throws Exception {
        Transport t = Transport.UDP;
        try (TestServer server = TestServer.start(dir, "overload.maxTransactions", "1");
             TestUa callee = TestUa.start("bob", t);
             SipSocket client = SipSocket.udp(server.address(t))) {
            callee.answer(Request.INVITE, TestUa.Answer.ringForever());
            callee.registerAt(server.address(t));
            Await.until(() -> server.server().unansweredRequests() == 0, WAIT,
                    () -> "unanswered requests: " + server.server().unansweredRequests());
            String hp = server.hostPort(t);
            client.send(client.request("INVITE", "sip:bob@" + hp, "carol", "bob@" + hp, "holds-the-budget", 1,
                    client.contact("carol")));
            assertNotNull(client.awaitMessage("SIP/2.0 180", WAIT), "the INVITE was not forwarded");

            // the same as a new INVITE but for a To tag: no dialog of this server has it
            String toTag = "To: <sip:bob@" + hp + ">";
            String fake = client.request("INVITE", "sip:bob@" + hp, "carol", "bob@" + hp, "made-up-to-tag", 1,
                    client.contact("carol")).replace(toTag + "\r\n", toTag + ";tag=fake\r\n");
            assertTrue(fake.contains(";tag=fake\r\n"), fake);
            client.send(fake);
            assertRefused(client.awaitMessage("SIP/2.0 ", WAIT), "INVITE");
            assertEquals(1, rejected(server, "invite"));
            assertEquals(1, callee.received(Request.INVITE).size(), "only the first INVITE reached bob");
        }
    }

    private static void assertRefused(String answer, String method) {
        assertNotNull(answer, "no answer to the " + method);
        assertTrue(answer.startsWith("SIP/2.0 503 Service Unavailable\r\n"), answer);
        assertTrue(answer.contains("CSeq: 1 " + method + "\r\n"), answer);
        Matcher m = Pattern.compile("\r\nRetry-After: (\\d+)\r\n").matcher(answer);
        assertTrue(m.find(), answer);
        int seconds = Integer.parseInt(m.group(1));
        assertTrue(seconds >= 5 && seconds <= 10, "Retry-After " + seconds + " (expected 5 to 10 by default)");
    }

    private static double rejected(TestServer server, String method) {
        return server.server().registry().find("sip.overload.rejected").tag("method", method).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /** Sends REGISTERs until one is answered 200 (the 487 may reach the caller a moment before the budget is freed). */
    private static boolean registersAgain(SipSocket client, String hp) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (int cseq = 2; System.nanoTime() < deadline; cseq++) {
            client.send(client.request("REGISTER", "sip:" + hp, "carol", "carol@" + hp, "shed-register", cseq,
                    client.contact("carol") + "Expires: 600\r\n"));
            String answer = client.awaitMessage("SIP/2.0 ", WAIT);
            if (answer != null && answer.startsWith("SIP/2.0 200")) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }
}
