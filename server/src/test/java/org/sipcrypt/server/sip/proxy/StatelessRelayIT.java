package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The ACK for a 2xx and BYE over UDP (and TCP), relayed from their bytes ({@link StatelessRelay}), and the
 * responses to BYE and the 180 and 2xx to an INVITE coming back: each is sent by hand to the real server and read where the proxy
 * sends it, a sink on 127.0.0.2 (or the caller's socket), so the copy is compared line by line with
 * what RFC 3261 §16 asks of a stateless relay. Requests in a form the early relay does not read
 * still reach the next hop, by the stack. With {@code sip.fastPath} off the class is skipped.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StatelessRelayIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private TestServer server;
    /** The next hop: a sink on 127.0.0.2 answering each request but ACK (INVITE with 486). */
    private SipSink callee;
    private SipSocket caller;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(dir);
        if (!server.fastPath()) {
            server.close();
            server = null;
        }
        // every case here reads the fast path's own copy and counters
        assumeTrue(server != null, "sip.fastPath is off");
        callee = SipSink.start();
        caller = SipSocket.udp(server.address(Transport.UDP));
    }

    @AfterEach
    void stop() throws Exception {
        if (server == null) {
            return;
        }
        caller.close();
        callee.close();
        server.close();
    }

    @Test
    void ackAlongARouteSetIsRelayedFromItsBytesToTheNextEntry() throws Exception {
        String ours = "<sip:" + server.hostPort(Transport.UDP) + ";transport=udp;lr>";
        String theirs = "<sip:" + callee.hostPort() + ";lr>";
        String ack = ack(caller, "sip:bob@127.0.0.3:5999", "c1", 70,
                "Route: " + ours + ", " + theirs + "\r\n", "v=0\r\n");

        caller.send(ack);
        caller.send(ack);

        Await.until(() -> callee.requests().size() == 2, WAIT, () -> "relayed: " + callee.requestLines());
        String first = callee.requests().get(0);
        assertTrue(first.startsWith("ACK sip:bob@127.0.0.3:5999 SIP/2.0\r\n"), first);
        List<String> vias = headers(first, "Via");
        assertEquals(2, vias.size(), first);
        assertTrue(vias.get(0).startsWith("SIP/2.0/UDP " + server.hostPort(Transport.UDP) + ";branch=z9hG4bK"),
                first);
        assertEquals("SIP/2.0/UDP 127.0.0.1:" + caller.localPort() + ";branch=z9hG4bK-c1;received=127.0.0.1;rport="
                + caller.localPort(), vias.get(1), "the caller's Via tagged as on receipt");
        assertEquals(List.of(theirs), headers(first, "Route"), "only our own entry taken off");
        assertEquals(List.of("69"), headers(first, "Max-Forwards"));
        assertEquals(List.of("<sip:bob@example.org>;tag=t1"), headers(first, "To"));
        assertTrue(first.endsWith("\r\n\r\nv=0\r\n"), "body as it came: " + first);
        // §16.11: every retransmission of the ACK gets the same branch, so the next hop matches them
        assertEquals(first, callee.requests().get(1));
        assertEquals(2.0, relayedEarly(server));
    }

    @Test
    void ackWithoutRouteGoesToTheRequestUriAndAtMaxForwardsZeroNowhere() throws Exception {
        String target = "sip:bob@" + callee.hostPort() + ";transport=UDP";
        caller.send(ack(caller, target, "mf0", 0, "", ""));
        // same Call-ID, so the same lane: it is handled after the first
        caller.send(ack(caller, target, "mf1", 1, "", ""));

        Await.until(() -> callee.requests().size() == 1, WAIT, () -> "relayed: " + callee.requestLines());
        String relayed = callee.requests().get(0);
        assertEquals(List.of("0"), headers(relayed, "Max-Forwards"), relayed);
        assertTrue(headers(relayed, "Via").get(1).contains(";branch=z9hG4bK-mf1;"), relayed);
        assertEquals(1.0, relayedEarly(server));
        assertEquals(1, callee.requests().size(), "the ACK at Max-Forwards 0 went nowhere");
    }

    @Test
    void ackInAFormNotReadFromBytesIsStillRelayedByTheStack() throws Exception {
        String named = "\"proxy\" <sip:" + server.hostPort(Transport.UDP) + ";lr>";
        caller.send(ack(caller, "sip:bob@" + callee.hostPort(), "dn", 70, "Route: " + named + "\r\n", ""));

        String relayed = callee.await("ACK", WAIT);
        assertEquals(List.of(), headers(relayed, "Route"), relayed);
        assertEquals(List.of("69"), headers(relayed, "Max-Forwards"), relayed);
        assertEquals(0.0, relayedEarly(server), "the stack relayed it");
    }

    @Test
    void ackForARejectionTheProxyRelayedIsAbsorbedByItsTransaction() throws Exception {
        String target = "sip:bob@" + callee.hostPort();
        String invite = caller.request("INVITE", target, "alice", "bob@" + callee.hostPort(), CALL_ID, 1,
                caller.contact("alice"));
        caller.send(invite);
        String rejected = caller.awaitMessage("SIP/2.0 486", WAIT);
        assertTrue(rejected != null, "the callee's 486 came back");
        // RFC 3261 §17.1.1.3: the ACK for a non-2xx has the INVITE's branch and ends the proxy's transaction
        String toTag = headers(rejected, "To").get(0).replaceAll(".*;tag=([^;>\\s]+).*", "$1");
        String absorbed = invite.replaceFirst("INVITE sip", "ACK sip").replace("CSeq: 1 INVITE", "CSeq: 1 ACK")
                .replace("To: <sip:bob@" + callee.hostPort() + ">", "To: <sip:bob@" + callee.hostPort() + ">;tag=" + toTag);
        caller.send(absorbed);
        // a later ACK for a 2xx on the same Call-ID (the same lane) marks when the first was handled
        caller.send(ack(caller, target, "later", 70, "", ""));

        Await.until(() -> callee.requestLines().stream().filter(l -> l.startsWith("ACK ")).count() == 2, WAIT,
                () -> "at the callee: " + callee.requestLines());
        assertEquals(1.0, relayedEarly(server), "only the later ACK was relayed");
        assertEquals(List.of("INVITE " + target + " SIP/2.0", "ACK " + target + " SIP/2.0",
                "ACK " + target + " SIP/2.0"), callee.requestLines(), "the proxy's own ACK for the 486, then the later one");
    }

    @Test
    void byeIsRelayedFromItsBytesAndItsAnswerComesBackTheSameWay() throws Exception {
        String ours = "<sip:" + server.hostPort(Transport.UDP) + ";lr>";
        String target = "sip:bob@" + callee.hostPort();
        String bye = inDialog("BYE", 2, caller, target, "bye1", 70, "Route: " + ours + "\r\n", "");

        caller.send(bye);

        String answer = caller.awaitMessage("SIP/2.0 200", WAIT);
        assertTrue(answer != null, "the callee's 200 came back");
        String relayed = callee.await("BYE", WAIT);
        List<String> vias = headers(relayed, "Via");
        assertEquals(2, vias.size(), relayed);
        assertTrue(vias.get(0).startsWith("SIP/2.0/UDP " + server.hostPort(Transport.UDP) + ";branch=z9hG4bK"),
                relayed);
        assertEquals(List.of(), headers(relayed, "Route"), relayed);
        assertEquals(List.of("69"), headers(relayed, "Max-Forwards"));
        // the answer carries the caller's Via alone, tagged as the proxy received the BYE
        assertEquals(List.of(vias.get(1)), headers(answer, "Via"), answer);
        assertEquals(List.of("2 BYE"), headers(answer, "CSeq"));
        assertEquals(1.0, relayedEarly(server));
        assertEquals(1.0, server.server().transportCounters().value("sip.responses.relayed_early"));

        // §17.2.2, as a stateful relay: the retransmitted BYE gets the kept 200, the callee sees it once
        caller.send(bye);
        assertEquals(answer, caller.awaitMessage("SIP/2.0 200", WAIT));
        assertEquals(1.0, server.server().transportCounters().value("sip.retransmissions.absorbed"));
        assertEquals(1, callee.requests().size(), callee.requestLines().toString());
    }

    @Test
    void byeAtMaxForwardsZeroIsAnswered483ByTheStack() throws Exception {
        caller.send(inDialog("BYE", 2, caller, "sip:bob@" + callee.hostPort(), "bye0", 0, "", ""));

        assertTrue(caller.awaitMessage("SIP/2.0 483", WAIT) != null, "§16.3 step 3: Too Many Hops");
        assertEquals(0.0, relayedEarly(server));
        assertEquals(List.of(), callee.requests());
    }

    @Test
    void byeThatPassedHereBeforeIsLeftToTheStacksLoopCheck() throws Exception {
        // a Via of ours below the caller's: a spiral (another Request-URI) the stack forwards, or a loop
        String earlier = "Via: SIP/2.0/UDP " + server.hostPort(Transport.UDP) + ";branch=z9hG4bK-sc-0123456789abcdef.s\r\n";
        String bye = inDialog("BYE", 2, caller, "sip:bob@" + callee.hostPort(), "spiral", 70, "", "");
        caller.send(bye.replace("Max-Forwards:", earlier + "Max-Forwards:"));

        String relayed = callee.await("BYE", WAIT);
        assertEquals(3, headers(relayed, "Via").stream().mapToInt(v -> v.split(",").length).sum(), relayed);
        assertEquals(0.0, relayedEarly(server), "the stack judged it");
    }

    @Test
    void okToAnInviteGoesUpstreamFromItsBytesAndSettlesTheInvitesTransactions() throws Exception {
        try (SipSocket bob = SipSocket.udp(server.address(Transport.UDP))) {
            String target = target(bob);
            String invite = sendInvite(bob);
            String ok = okWithBody(bob, bob.awaitMessage("INVITE ", WAIT));
            bob.send(ok);

            String answered = caller.awaitMessage("SIP/2.0 200", WAIT);
            // §16.7 step 9: byte for byte what the callee sent, but for the proxy's Via (the first entry)
            assertEquals(ok.replaceFirst("Via: [^,\r]*,\\s*", "Via: "), answered);
            assertEquals(1.0, server.server().transportCounters().value("sip.responses.relayed_early"));
            // both transactions ended before the copy left (the stack would keep the client one 32 s)
            assertEquals(0, server.server().openTransactions());
            assertEquals(0, server.server().unansweredRequests());

            // the callee repeats its 200 until an ACK comes: the copy still reaches the caller (by the
            // stack, statelessly by its Via, as the client transaction has ended)
            bob.send(ok);
            String again = caller.awaitMessage("SIP/2.0 200", WAIT);
            assertTrue(again != null, "the retransmitted 200 reached the caller");
            assertEquals(headers(answered, "To"), headers(again, "To"));
            assertEquals(1.0, server.server().transportCounters().value("sip.responses.relayed_early"));

            // RFC 6026 §7.1: a retransmitted INVITE is absorbed, not proxied again; an ACK on the same
            // Call-ID (the same lane) after it shows what reached the callee next
            caller.send(invite);
            caller.send(ack(caller, target, "marker", 70, "", ""));
            String next = bob.awaitMessage("", WAIT);
            assertTrue(next != null && next.startsWith("ACK "), "the INVITE was absorbed: " + next);
            assertEquals(1.0, server.server().transportCounters().value("sip.retransmissions.absorbed"));
        }
    }

    @Test
    void ringingGoesUpstreamFromItsBytesAndAnswersTheInvitesRetransmissionsUntilTheFinalResponse() throws Exception {
        try (SipSocket bob = SipSocket.udp(server.address(Transport.UDP))) {
            String invite = sendInvite(bob);
            assertTrue(caller.awaitMessage("SIP/2.0 100", WAIT) != null, "the proxy's own 100");
            String forwarded = bob.awaitMessage("INVITE ", WAIT);
            assertTrue(forwarded != null, "the INVITE was forwarded");
            String ringing = SipSocket.response(forwarded, "180 Ringing");
            bob.send(ringing);

            String relayed = caller.awaitMessage("SIP/2.0 180", WAIT);
            // §16.7 step 9: byte for byte what the callee sent, but for the proxy's Via (the first entry)
            assertEquals(ringing.replaceFirst("Via: [^,\r]*,\\s*", "Via: "), relayed);
            assertEquals(1.0, server.server().transportCounters().value("sip.responses.relayed_early"));

            // §17.2.1: a retransmitted INVITE gets the most recent provisional response, the 180
            caller.send(invite);
            assertEquals(relayed, caller.receive(WAIT), "the 180 again, not the proxy's 100");
            assertEquals(1.0, server.server().transportCounters().value("sip.retransmissions.absorbed"));
            // §17.1.1.2: the branch's transaction left "Calling" with the 180, so Timer A sends the
            // INVITE no more (it would at 500 ms and 1.5 s after sending it)
            assertEquals(null, bob.awaitMessage("INVITE ", Duration.ofMillis(1_600)), "Timer A stopped");

            // a final response by the stack: its transaction answers the INVITE's retransmissions
            // from then on, with the 486 and no longer with the kept 180
            bob.send(SipSocket.response(forwarded, "486 Busy Here"));
            String busy = caller.awaitMessage("SIP/2.0 486", WAIT);
            assertTrue(busy != null, "the 486 went upstream");
            caller.send(invite);
            String next = caller.receive(WAIT);
            assertTrue(next != null && next.startsWith("SIP/2.0 486"), "the 486 again: " + next);
            // §17.1.1.3: the ACK for the 486, with the INVITE's branch, ends the proxy's transaction
            caller.send(invite.replaceFirst("INVITE sip", "ACK sip").replace("CSeq: 1 INVITE", "CSeq: 1 ACK")
                    .replace("To: <sip:bob@" + bob.localHost() + ">", "To: <sip:bob@" + bob.localHost() + ">;tag=callee"));
        }
    }

    @Test
    void okFromBytesOnAForkedInviteCancelsTheBranchThatRang() throws Exception {
        String hp = server.hostPort(Transport.UDP);
        try (SipSocket desk = SipSocket.udp(server.address(Transport.UDP));
             SipSocket mobile = SipSocket.udp(server.address(Transport.UDP))) {
            for (SipSocket contact : List.of(desk, mobile)) {
                contact.send(contact.request("REGISTER", "sip:" + hp, "bob", "bob@" + hp, "reg-" + contact.localPort(),
                        1, contact.contact("bob") + "Expires: 600\r\n"));
                assertTrue(contact.awaitMessage("SIP/2.0 200", WAIT) != null, "registered");
            }
            caller.send(caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, CALL_ID, 1,
                    caller.contact("alice")));
            String atDesk = desk.awaitMessage("INVITE ", WAIT);
            String atMobile = mobile.awaitMessage("INVITE ", WAIT);
            assertTrue(atDesk != null && atMobile != null, "forked to both contacts");
            desk.send(SipSocket.response(atDesk, "180 Ringing"));
            // the caller has the 180, so the proxy has seen the desk ring before the mobile answers
            assertTrue(caller.awaitMessage("SIP/2.0 180", WAIT) != null, "the 180 went upstream");
            mobile.send(okWithBody(mobile, atMobile));

            assertTrue(caller.awaitMessage("SIP/2.0 200", WAIT) != null, "the 200 went upstream");
            // the desk's 180 and the mobile's 200, both from their bytes
            assertEquals(2.0, server.server().transportCounters().value("sip.responses.relayed_early"));
            // RFC 3261 §16.7 step 10: the branch that rang is cancelled once a 2xx has gone upstream
            String cancel = desk.awaitMessage("CANCEL ", WAIT);
            assertTrue(cancel != null, "the desk's branch was cancelled");
            assertEquals(headers(atDesk, "Via").get(0).split(",")[0].trim(), headers(cancel, "Via").get(0),
                    "the CANCEL carries the INVITE's top Via, its branch included (§9.1)");
        }
    }

    @Test
    void okInAFormNotReadFromBytesGoesUpstreamByTheStack() throws Exception {
        try (SipSocket bob = SipSocket.udp(server.address(Transport.UDP))) {
            sendInvite(bob);
            // a folded header line (RFC 3261 §7.3.1): the parse unfolds it, the byte reader does not
            String ok = okWithBody(bob, bob.awaitMessage("INVITE ", WAIT))
                    .replace("Content-Type:", "Subject: folded\r\n line\r\nContent-Type:");
            bob.send(ok);

            String answered = caller.awaitMessage("SIP/2.0 200", WAIT);
            assertTrue(answered != null, "the 200 reached the caller");
            assertEquals(1, headers(answered, "Subject").size(), answered);
            assertTrue(!answered.contains("\r\n line\r\n"), "unfolded by the parse: " + answered);
            assertEquals(0.0, server.server().transportCounters().value("sip.responses.relayed_early"));
            Await.until(() -> server.server().openTransactions() == 0, WAIT,
                    () -> "transactions left: " + server.server().openTransactions());
        }
    }

    /**
     * Over TCP, a whole call but its INVITE goes on from its bytes: the 180 and the 200 back on the
     * caller's connection (RFC 3261 §18.2.2), the ACK and the BYE to the callee's, and the BYE's 200
     * back on the caller's connection again, which a BYE that has no transaction here finds by the
     * {@code received} and {@code rport} tags on the caller's Via. The caller's Vias neither ask for
     * rport nor name the connection's port (5999, where nothing listens), so a copy sent by the Via
     * alone would not reach the caller.
     */
    @Test
    void overTcpTheCallAfterItsInviteGoesOnFromItsBytesOnTheCallsConnections() throws Exception {
        try (SipSocket alice = SipSocket.tcp(server.address(Transport.TCP));
             SipSocket bob = SipSocket.tcp(server.address(Transport.TCP))) {
            bob.awaitTakenIn(WAIT);
            String callId = "tcp-" + CALL_ID;
            // bob's connection is the one the proxy reuses to reach bob's Contact (its address)
            String bobUri = "sip:bob@" + bob.localHost() + ":" + bob.localPort() + ";transport=tcp";
            String aliceSentBy = alice.localHost() + ":" + alice.localPort() + ";branch=";
            alice.send(alice.request("INVITE", bobUri, "alice", "bob@" + bob.localHost(), callId, 1,
                    alice.contact("alice")).replace(aliceSentBy, alice.localHost() + ":5999;branch=")
                    .replace("-1;rport", "-1"));
            String forwarded = bob.awaitMessage("INVITE ", WAIT);
            assertTrue(forwarded != null, "the INVITE was forwarded on bob's connection");
            String ringing = SipSocket.response(forwarded, "180 Ringing");
            bob.send(ringing);
            assertEquals(ringing.replaceFirst("Via: [^,\r]*,\\s*", "Via: "), alice.awaitMessage("SIP/2.0 180", WAIT),
                    "§16.7 step 9: all but the proxy's Via as bob sent it");
            String ok = okWithBody(bob, forwarded);
            bob.send(ok);
            assertEquals(ok.replaceFirst("Via: [^,\r]*,\\s*", "Via: "), alice.awaitMessage("SIP/2.0 200", WAIT));
            assertEquals(2.0, server.server().transportCounters().value("sip.responses.relayed_early"));
            assertEquals(0, server.server().openTransactions());

            String route = "Route: " + headers(forwarded, "Record-Route").get(0) + "\r\n";
            String toTagged = "To: <sip:bob@" + bob.localHost() + ">;tag=callee";
            alice.send(alice.request("ACK", bobUri, "alice", "bob@" + bob.localHost(), callId, 1, route)
                    .replace("-1;rport", "-ack;rport").replace("To: <sip:bob@" + bob.localHost() + ">", toTagged));
            String ack = bob.awaitMessage("ACK ", WAIT);
            assertTrue(ack != null, "the ACK reached bob's connection");
            List<String> vias = headers(ack, "Via");
            assertTrue(vias.get(0).startsWith("SIP/2.0/TCP " + server.hostPort(Transport.TCP) + ";branch=z9hG4bK"),
                    ack);
            assertEquals(List.of(), headers(ack, "Route"), "our own entry taken off");
            assertEquals(1.0, relayedEarly(server));

            String bye = alice.request("BYE", bobUri, "alice", "bob@" + bob.localHost(), callId, 2, route)
                    .replace(aliceSentBy, alice.localHost() + ":5999;branch=")
                    .replace("-2;rport", "-2").replace("To: <sip:bob@" + bob.localHost() + ">", toTagged);
            alice.send(bye);
            String byeAtBob = bob.awaitMessage("BYE ", WAIT);
            assertTrue(byeAtBob != null, "the BYE reached bob's connection");
            assertEquals("SIP/2.0/TCP " + alice.localHost() + ":5999;branch=z9hG4bK" + callId
                    + "-2;received=127.0.0.1;rport=" + alice.localPort(), headers(byeAtBob, "Via").get(1));
            bob.send(SipSocket.response(byeAtBob, "200 OK"));
            String answer = alice.awaitMessage("SIP/2.0 200", WAIT);
            assertTrue(answer != null, "the BYE's 200 came back on alice's connection");
            assertEquals(List.of("2 BYE"), headers(answer, "CSeq"));
            assertEquals(2.0, relayedEarly(server));
            assertEquals(3.0, server.server().transportCounters().value("sip.responses.relayed_early"));
        }
    }

    /** The Request-URI naming {@code bob}'s socket directly. */
    private static String target(SipSocket bob) {
        return "sip:bob@" + bob.localHost() + ":" + bob.localPort();
    }

    /** Sends the caller's INVITE (this test's Call-ID, CSeq 1) to {@code bob}'s socket through the proxy; returns it. */
    private String sendInvite(SipSocket bob) throws java.io.IOException {
        String invite = caller.request("INVITE", target(bob), "alice", "bob@" + bob.localHost(), CALL_ID, 1,
                caller.contact("alice"));
        caller.send(invite);
        return invite;
    }

    /** The callee's 200 to {@code invite}, with a Contact, a Record-Route copied and an SDP-like body. */
    private static String okWithBody(SipSocket callee, String invite) {
        assertTrue(invite != null, "the INVITE was forwarded");
        String recordRoute = invite.lines().filter(l -> l.startsWith("Record-Route:")).map(l -> l + "\r\n")
                .findFirst().orElse("");
        return SipSocket.response(invite, "200 OK").replace("Content-Length: 0\r\n\r\n",
                recordRoute + callee.contact("bob") + "Content-Type: application/sdp\r\nContent-Length: 5\r\n\r\nv=0\r\n");
    }

    /** An ACK for a 2xx from {@code caller}, Call-ID of this test, with the given Via branch suffix. */
    private static String ack(SipSocket caller, String requestUri, String branch, int maxForwards, String extra,
                              String body) {
        return inDialog("ACK", 1, caller, requestUri, branch, maxForwards, extra, body);
    }

    /** A request within the dialog of this test's Call-ID from {@code caller}, with the given Via branch suffix. */
    private static String inDialog(String method, int cseq, SipSocket caller, String requestUri, String branch,
                                   int maxForwards, String extra, String body) {
        return method + " " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + caller.localPort() + ";branch=z9hG4bK-" + branch + ";rport\r\n"
                + "Max-Forwards: " + maxForwards + "\r\n"
                + "From: <sip:alice@example.org>;tag=f1\r\n"
                + "To: <sip:bob@example.org>;tag=t1\r\n"
                + "Call-ID: " + CALL_ID + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + extra
                + "Content-Length: " + body.length() + "\r\n\r\n"
                + body;
    }

    private static final String CALL_ID = UUID.randomUUID().toString();

    /** The values of the header lines named {@code name}, in order. */
    private static List<String> headers(String message, String name) {
        return message.substring(0, message.indexOf("\r\n\r\n")).lines()
                .filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).toList();
    }

    private static double relayedEarly(TestServer server) {
        return server.server().transportCounters().value("sip.requests.relayed_early");
    }
}
