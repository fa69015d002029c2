package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.ServerPerTest;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.transport.Transport;

/**
 * Server transactions are matched on branch, sent-by and method (RFC 3261 §17.2.3): a different
 * request that reuses a branch the server has seen is answered, not swallowed as a retransmission.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactionMatchingIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String BRANCH = "z9hG4bK-reused-branch";

    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();
    String hp;

    @BeforeEach
    void start() throws Exception {
        hp = server.hostPort(Transport.UDP);
    }

    /** A request from {@code s} whose top Via carries {@link #BRANCH}. */
    private String withBranch(SipSocket s, String method, String ruri, String to, String callId, String extra) {
        String m = s.request(method, ruri, "alice", to, callId, 1, extra);
        return m.replaceFirst(";branch=[^;\r]+", ";branch=" + BRANCH);
    }

    @Test
    void retransmissionFromTheSameSentByIsStillAnsweredAsBefore() throws Exception {
        try (SipSocket a = SipSocket.udp(server.address(Transport.UDP))) {
            String options = withBranch(a, "OPTIONS", "sip:" + hp, hp, "retransmitted", "");
            a.send(options);
            assertNotNull(a.awaitMessage("SIP/2.0 200", WAIT));
            a.send(options);
            String again = a.awaitMessage("SIP/2.0 ", WAIT);
            assertNotNull(again);
            assertTrue(again.startsWith("SIP/2.0 200"), again);
        }
    }

    @Test
    void sameBranchFromAnotherSentByIsAnsweredNotSwallowed() throws Exception {
        try (SipSocket a = SipSocket.udp(server.address(Transport.UDP));
             SipSocket b = SipSocket.udp(server.address(Transport.UDP))) {
            a.send(withBranch(a, "OPTIONS", "sip:" + hp, hp, "first", ""));
            assertNotNull(a.awaitMessage("SIP/2.0 200", WAIT));
            // the transaction ends right after its 200 is sent, on a stack thread: wait for that, not a guess
            Await.until(() -> server.server().openTransactions() == 0, WAIT,
                    () -> "open transactions: " + server.server().openTransactions());

            b.send(withBranch(b, "OPTIONS", "sip:" + hp, hp, "second", ""));
            String r = b.awaitMessage("SIP/2.0 ", WAIT);
            assertNotNull(r, "the second request was swallowed");
            // the first transaction completed and ended at once (its 200 kept by the transport for
            // retransmissions from a's sent-by only): the second is a transaction of its own
            assertTrue(r.startsWith("SIP/2.0 200"), r);
            assertTrue(r.contains("Call-ID: second"), "b's own answer, not a's again: " + r);
        }
    }

    @Test
    void sameBranchWithAnotherMethodIsNotTakenForARetransmission() throws Exception {
        try (SipSocket a = SipSocket.udp(server.address(Transport.UDP))) {
            a.send(withBranch(a, "REGISTER", "sip:" + hp, "alice@127.0.0.1", "reg", a.contact("alice")));
            String registered = a.awaitMessage("SIP/2.0 200", WAIT);
            assertNotNull(registered);
            // the REGISTER's transaction ends right after its 200 is sent, on a stack thread
            Await.until(() -> server.server().openTransactions() == 0, WAIT,
                    () -> "open transactions: " + server.server().openTransactions());

            a.send(withBranch(a, "OPTIONS", "sip:" + hp, hp, "options", ""));
            String r = a.awaitMessage("SIP/2.0 ", WAIT);
            assertNotNull(r, "the OPTIONS was swallowed");
            assertTrue(r.startsWith("SIP/2.0 200") && r.contains("CSeq: 1 OPTIONS") && r.contains("Call-ID: options"),
                    "the OPTIONS answered, not the REGISTER's 200 again: " + r);
        }
    }

    @Test
    void inviteReusingAnotherCallsBranchDoesNotReachTheCallee() throws Exception {
        try (SipSocket bob = SipSocket.udp(server.address(Transport.UDP));
             SipSocket alice = SipSocket.udp(server.address(Transport.UDP));
             SipSocket mallory = SipSocket.udp(server.address(Transport.UDP))) {
            bob.send(bob.request("REGISTER", "sip:" + hp, "bob", "bob@127.0.0.1", "bob-reg", 1,
                    bob.contact("bob") + "Expires: 600\r\n"));
            assertNotNull(bob.awaitMessage("SIP/2.0 200", WAIT));

            alice.send(withBranch(alice, "INVITE", "sip:bob@" + hp, "bob@127.0.0.1", "call-1", alice.contact("alice")));
            String first = bob.awaitMessage("INVITE", WAIT);
            assertNotNull(first);
            assertTrue(first.contains("Call-ID: call-1"), first);

            mallory.send(withBranch(mallory, "INVITE", "sip:bob@" + hp, "bob@127.0.0.1", "call-2",
                    mallory.contact("mallory")));
            String r = mallory.awaitMessage("SIP/2.0 4", WAIT);
            assertNotNull(r, "the second INVITE was swallowed");
            assertTrue(r.startsWith("SIP/2.0 400 Via Branch Already In Use"), r);
            long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < deadline) {
                String m = bob.receive(Duration.ofMillis(200));
                assertTrue(m == null || !m.contains("Call-ID: call-2"), "the reused branch reached bob: " + m);
            }
        }
    }
}
