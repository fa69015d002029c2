package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.auth.Attacker.header;
import static org.sipcrypt.server.auth.Attacker.status;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.transport.Transport;

/**
 * An INVITE the proxy challenges over UDP (RFC 3261 §22.3, 407) leaves no JAIN-SIP transaction: it
 * is challenged from its bytes before it is parsed, or, when they do not settle it, by the stack,
 * whose transaction ends once the 407 has gone. Either way the transport keeps the 407's bytes and
 * answers a retransmitted INVITE with them (§17.2.1), and absorbs the ACK, which carries the
 * INVITE's branch (§17.1.1.3), so that it never reaches the proxy or the callee; the INVITE with
 * credentials then goes through. Over TCP the stack's transaction stays until the ACK, as before.
 */
@Timeout(120)
class ChallengedInviteTransactionIT {

    private static final String ALICE = "sip:alice@127.0.0.1";
    private static final String TARGET = "sip:bob@127.0.0.1";

    @TempDir
    Path dir;

    private static double counter(SipcryptServer server, String name) {
        return server.transportCounters().value(name);
    }

    /** The ACK for a non-2xx final response: the INVITE's Via (branch), CSeq number and the response's To tag. */
    private static String ackFor(Attacker alice, String invite, String response, int cseq) {
        String toTag = header(response, "To").replaceAll(".*;tag=([^;>\\s]+).*", "$1");
        return alice.request("ACK", TARGET, ALICE, "a1", TARGET, toTag, header(invite, "Call-ID"), cseq, "", "")
                .replaceFirst("Via: [^\r]*", Matcher.quoteReplacement("Via: " + header(invite, "Via")));
    }

    @Test
    void challengedInviteIsAnsweredFromItsKeptBytesItsAckAbsorbedAndNoTransactionKept() throws Exception {
        try (ProxyUnderAttack proxy = ProxyUnderAttack.start(dir, "auth", "true")) {
            // the challenge from bytes and its kept answer are the fast path's
            assumeTrue(proxy.server.fastPath(), "sip.fastPath is off");
            SipcryptServer server = proxy.server.server();
            Attacker alice = proxy.attacker;
            alice.register("bob", "b0b", proxy.victim.uri("bob"));

            double noCredentialsBefore = server.registry().counter("auth.outcomes", "result", "no_credentials").count();
            String invite = alice.request("INVITE", TARGET, ALICE, "a1", TARGET, null, UUID.randomUUID().toString(), 1,
                    "", "");
            List<String> responses = alice.responses(invite);
            assertEquals(1, responses.size(), "one 407 from the INVITE's bytes, no 100 before it: " + responses);
            String challenge = responses.get(0);
            assertEquals(407, status(challenge), challenge);
            assertEquals(1.0, counter(server, "sip.requests.answered_early"), "challenged before the parse");
            // RFC 3581 §4: the top Via comes back tagged, as from a parsed request
            assertTrue(header(challenge, "Via").endsWith(";received=127.0.0.1;rport=" + alice.port()),
                    header(challenge, "Via"));
            assertTrue(header(challenge, "Proxy-Authenticate").startsWith("Digest realm=\"127.0.0.1\",nonce=\""),
                    header(challenge, "Proxy-Authenticate"));
            // counted as the stack's path counts it
            assertEquals(noCredentialsBefore + 1,
                    server.registry().counter("auth.outcomes", "result", "no_credentials").count());
            assertEquals(1.0, server.registry().counter("sip.requests.received", "method", "invite").count());
            String callId = header(invite, "Call-ID");
            double absorbedBefore = counter(server, "sip.retransmissions.absorbed");
            double acksBefore = counter(server, "sip.acks.absorbed");

            // the stack ended the INVITE's transaction once the 407 had gone (it would wait for the ACK, Timer H)
            Await.until(() -> server.openTransactions() == 0, Attacker.WAIT,
                    () -> "transactions left in the stack: " + server.openTransactions());

            // RFC 3261 §17.2.1: the retransmitted INVITE gets the very same 407 (To tag, nonce), from the kept bytes
            assertEquals(challenge, alice.finalResponse(invite), "the retransmission gets the same 407");
            assertEquals(absorbedBefore + 1, counter(server, "sip.retransmissions.absorbed"));

            // the ACK, and a copy of it (one per 407 received), are absorbed by the transport
            String ack = ackFor(alice, invite, challenge, 1);
            alice.send(ack);
            alice.send(ack);
            Await.until(() -> counter(server, "sip.acks.absorbed") == acksBefore + 2, Attacker.WAIT,
                    () -> "ACKs absorbed: " + (counter(server, "sip.acks.absorbed") - acksBefore));
            assertEquals(0.0, server.registry().find("sip.requests.received").tag("method", "ack").counters()
                    .stream().mapToDouble(c -> c.count()).sum(), "no ACK reached the proxy");

            // the INVITE with credentials goes through; bob (the sink) answers 486
            String creds = DigestClient.answer("Proxy-Authorization", Attacker.md5Challenge(challenge,
                    "Proxy-Authenticate"), "alice", "secret", "INVITE", TARGET, 1);
            String authenticated = alice.request("INVITE", TARGET, ALICE, "a1", TARGET, null, callId, 2, creds, "");
            String busy = alice.finalResponse(authenticated);
            assertEquals(486, status(busy), busy);
            // same Call-ID, so handled in order: an ACK to the 407 relayed at all would have come first;
            // the ACK after the INVITE is the proxy's own for the 486 (hop by hop, §17.1.1.3: its INVITE's Via)
            String atBob = proxy.victim.await("INVITE", Attacker.WAIT);
            String proxyAck = proxy.victim.await("ACK", Attacker.WAIT);
            assertEquals(header(atBob, "Via").split(",")[0], header(proxyAck, "Via"), "the proxy's ACK for the 486");
            assertEquals(List.of("INVITE " + proxy.victim.uri("bob") + " SIP/2.0",
                    "ACK " + proxy.victim.uri("bob") + " SIP/2.0"), proxy.victim.requestLines(),
                    "only the INVITE with credentials (and the proxy's ACK for its 486) reached bob");
            alice.send(ackFor(alice, authenticated, busy, 2));
            // the ACK to the relayed 486 ends at the proxy's transaction (§16.7 step 3, §17.2.1)
            alice.assertOnlyMarkerReached(proxy.victim, 2, callId, TARGET, "");
        }
    }

    /**
     * INVITEs whose bytes do not settle the challenge (a Route, which a signed one of ours would make
     * an in-dialog request; a Via with LWS inside its protocol, which only the parser reads) go to the
     * stack, which challenges them as before; nothing reaches the callee.
     */
    @Test
    void anInviteItsBytesDoNotSettleIsChallengedByTheStack() throws Exception {
        try (ProxyUnderAttack proxy = ProxyUnderAttack.start(dir, "auth", "true")) {
            SipcryptServer server = proxy.server.server();
            Attacker alice = proxy.attacker;
            alice.register("bob", "b0b", proxy.victim.uri("bob"));
            String routed = alice.request("INVITE", TARGET, ALICE, "a1", TARGET, null, UUID.randomUUID().toString(), 1,
                    "Route: " + alice.serverRoute("") + "\r\n", "");
            String spacedVia = alice.request("INVITE", TARGET, ALICE, "a1", TARGET, null, UUID.randomUUID().toString(),
                    1, "", "").replace("Via: SIP/2.0/UDP ", "Via: SIP / 2.0 / UDP ");
            for (String invite : List.of(routed, spacedVia)) {
                String challenge = alice.finalResponse(invite);
                assertEquals(407, status(challenge), challenge);
                alice.send(ackFor(alice, invite, challenge, 1));
            }
            assertEquals(0.0, counter(server, "sip.requests.answered_early"), "both went to the stack");
            Await.until(() -> server.openTransactions() == 0, Attacker.WAIT,
                    () -> "transactions left in the stack: " + server.openTransactions());
            assertEquals(List.of(), proxy.victim.requestLines(), "nothing reached bob");
        }
    }

    /**
     * What the parse answers with 400 keeps its 400 with authentication on: an INVITE without Contact
     * (JAIN-SIP requires one of a request that can start a dialog), with another method in its CSeq,
     * or with two From headers is not challenged from its bytes.
     */
    @Test
    void invitesTheParseRejectsGet400NotAChallenge() throws Exception {
        try (ProxyUnderAttack proxy = ProxyUnderAttack.start(dir, "auth", "true")) {
            SipcryptServer server = proxy.server.server();
            Attacker alice = proxy.attacker;
            String invite = alice.request("INVITE", TARGET, ALICE, "a1", TARGET, null, UUID.randomUUID().toString(), 1,
                    "", "");
            String noContact = invite.replaceFirst("Contact: [^\r]*\r\n", "");
            String cseqMismatch = invite.replace("CSeq: 1 INVITE", "CSeq: 1 OPTIONS")
                    .replaceFirst("branch=([^;\r]+)", "branch=$1-c");
            String twoFroms = invite.replace("Call-ID:", "From: <sip:eve@127.0.0.1>;tag=e1\r\nCall-ID:")
                    .replaceFirst("branch=([^;\r]+)", "branch=$1-f");
            for (String bad : List.of(noContact, cseqMismatch, twoFroms)) {
                String answer = alice.finalResponse(bad);
                assertEquals(400, status(answer), answer);
            }
            assertEquals(0.0, counter(server, "sip.requests.answered_early"));
        }
    }

    @Test
    void overTcpTheChallengedInviteKeepsItsTransactionUntilItsAck() throws Exception {
        try (ProxyUnderAttack proxy = ProxyUnderAttack.start(dir, "auth", "true");
             SipSocket alice = SipSocket.tcp(proxy.server.address(Transport.TCP))) {
            SipcryptServer server = proxy.server.server();
            String hp = proxy.server.hostPort(Transport.TCP);
            String invite = alice.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, "tcp-challenge", 1,
                    alice.contact("alice"));
            String challenge = alice.exchange(invite, "SIP/2.0 407", Attacker.WAIT);
            // RFC 3261 §17.2.1: over a reliable transport the stack's transaction waits for the ACK (Timer H)
            assertEquals(1, server.openTransactions(), "the INVITE's transaction is kept until its ACK");
            alice.send(alice.request("ACK", "sip:bob@" + hp, "alice", "bob@" + hp, "tcp-challenge", 1, "")
                    .replace("To: <sip:bob@" + hp + ">", "To: " + header(challenge, "To")));
            Await.until(() -> server.openTransactions() == 0, Attacker.WAIT,
                    () -> "transactions left in the stack: " + server.openTransactions());
            assertEquals(0.0, counter(server, "sip.acks.absorbed"), "the stack's transaction took the ACK");
        }
    }
}
