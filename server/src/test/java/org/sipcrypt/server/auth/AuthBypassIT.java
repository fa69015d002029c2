package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.auth.Attacker.status;

import io.micrometer.core.instrument.Counter;
import java.net.InetSocketAddress;
import java.util.UUID;
import javax.sip.Dialog;
import javax.sip.header.RecordRouteHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * A To tag is no proof of a dialog (RFC 3261 §12): with {@code --auth} and every other setting at
 * its default, requests that merely look in-dialog are challenged like any other, an ACK for a
 * 2xx is relayed only along a Record-Route this proxy signed, and a CANCEL matching nothing gets
 * 481. Each attack is played against the real server; the victim is a sink on 127.0.0.2 (or a
 * registered local user whose contact is that sink), and nothing may reach it: a marker relayed
 * after each attack proves it. The positive
 * side: a real authenticated call's re-INVITE, ACKs and BYEs, from either end, carry the signed
 * route and pass without a challenge.
 */
@Timeout(60)
class AuthBypassIT extends ProxyAttackFixture {

    private static final String SDP = "v=0\r\no=m 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio 4000 RTP/AVP 0\r\n";

    @BeforeEach
    void start() throws Exception {
        start("auth", "true");
    }

    private String fakeInDialogInvite(String from, String target, String extra) {
        return attacker.request("INVITE", target, from, "m1", target, "fake-to-tag", UUID.randomUUID().toString(), 1,
                extra, SDP);
    }

    /** Sends an attack, expects a 407 to it, and proves by a marker to the same target that nothing reached the victim. */
    private void assertChallengedAndNotRelayed(String attack, String target) throws Exception {
        String r = attacker.finalResponse(attack);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        proxy.assertNothingReachedTheVictim(Attacker.callId(attack), target, "");
    }

    @Test
    void fakeToTagInviteToAForeignTargetIsChallenged() throws Exception {
        assertChallengedAndNotRelayed(fakeInDialogInvite("sip:mallory@evil.example", victim.uri("victim"), ""),
                victim.uri("victim"));
    }

    @Test
    void fakeToTagInviteSpoofingALocalUserIsChallenged() throws Exception {
        assertChallengedAndNotRelayed(fakeInDialogInvite("sip:alice@127.0.0.1", victim.uri("victim"), ""),
                victim.uri("victim"));
    }

    @Test
    void fakeToTagInviteToARegisteredLocalUserIsChallenged() throws Exception {
        attacker.register("bob", "b0b", victim.uri("bob"));
        assertChallengedAndNotRelayed(fakeInDialogInvite("sip:mallory@evil.example", "sip:bob@127.0.0.1", ""),
                "sip:bob@127.0.0.1");
    }

    @Test
    void fakeToTagInviteWithAForgedRouteSignatureIsChallenged() throws Exception {
        String route = "Route: " + attacker.serverRoute(";" + DialogRouteSigner.PARAM + "=AAAAAAAAAAAAAAAAAAAAAA") + "\r\n";
        assertChallengedAndNotRelayed(fakeInDialogInvite("sip:mallory@evil.example", victim.uri("victim"), route),
                victim.uri("victim"));
        String unsigned = "Route: " + attacker.serverRoute("") + "\r\n";
        assertChallengedAndNotRelayed(fakeInDialogInvite("sip:mallory@evil.example", victim.uri("victim"), unsigned),
                victim.uri("victim"));
    }

    @Test
    void byeWithoutAValidRouteSignatureIsChallenged() throws Exception {
        for (String params : new String[] {";" + DialogRouteSigner.PARAM + "=AAAAAAAAAAAAAAAAAAAAAA", ""}) {
            String bye = attacker.request("BYE", victim.uri("victim"), "sip:mallory@evil.example", "m1",
                    victim.uri("victim"), "fake-to-tag", UUID.randomUUID().toString(), 2,
                    "Route: " + attacker.serverRoute(params) + "\r\n", "");
            assertChallengedAndNotRelayed(bye, victim.uri("victim"));
        }
        assertEquals(0.0, server.server().transportCounters().value("sip.requests.relayed_early"));
    }

    @Test
    void statelessAckWithABodyToAForeignTargetIsDroppedAndCounted() throws Exception {
        String ack = attacker.request("ACK", victim.uri("victim"), "sip:mallory@evil.example", "m1",
                victim.uri("victim"), "fake-to-tag", UUID.randomUUID().toString(), 1,
                "Route: " + attacker.serverRoute("") + "\r\n", SDP);
        attacker.send(ack);
        attacker.send(ack.replace("Route: " + attacker.serverRoute("") + "\r\n", ""));
        attacker.send(ack.replace(attacker.serverRoute(""),
                attacker.serverRoute(";" + DialogRouteSigner.PARAM + "=AAAAAAAAAAAAAAAAAAAAAA")));
        // dropping and relaying exclude each other: the count says all three ACKs were dropped
        Await.until(() -> droppedAcks() == 3, Attacker.WAIT, () -> "dropped ACKs counted: " + droppedAcks());
        proxy.assertNothingReachedTheVictim(Attacker.callId(ack), victim.uri("victim"), "");
        assertEquals(3, droppedAcks());
        assertEquals(0.0, server.server().transportCounters().value("sip.requests.relayed_early"));
    }

    @Test
    void cancelMatchingNoTransactionGets481() throws Exception {
        String cancel = attacker.request("CANCEL", victim.uri("victim"), "sip:mallory@evil.example", "m1",
                victim.uri("victim"), null, UUID.randomUUID().toString(), 1, "", "");
        String r = attacker.finalResponse(cancel);
        assertEquals(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, status(r), r);
        proxy.assertNothingReachedTheVictim(Attacker.callId(cancel), victim.uri("victim"), "");
    }

    @Test
    void inDialogRequestsOfAnAuthenticatedCallCarryTheSignedRouteAndAreNotChallenged() throws Exception {
        useJainSipClients();
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            TestUa.Call call = authenticatedCall(alice, bob);
            Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            RecordRouteHeader rr = (RecordRouteHeader) invite.getHeader(RecordRouteHeader.NAME);
            assertTrue(rr.getAddress().getURI().toString().contains(";" + DialogRouteSigner.PARAM + "="),
                    "the Record-Route is signed: " + rr);
            bob.awaitRequests(Request.ACK, 1, TestUa.TIMEOUT);

            // re-INVITE from the caller: not challenged, its ACK relayed along the signed route
            Dialog dialog = call.invite().dialog();
            SipExchange reinvite = alice.sendInDialog(dialog, Request.INVITE);
            assertEquals(Response.OK, reinvite.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(2, bob.awaitRequests(Request.INVITE, 2, TestUa.TIMEOUT).size());
            assertEquals(2, bob.awaitRequests(Request.ACK, 2, TestUa.TIMEOUT).size());
            // both ACKs proved the dialog from their bytes and were relayed without the stack (with the
            // fast path on; else the stack proved and relayed them)
            assertEquals(server.fastPath() ? 2.0 : 0.0, server.server().transportCounters().value("sip.requests.relayed_early"));
            // the callee's own in-dialog request (From and To swapped) proves the dialog too
            SipExchange info = bob.sendInDialog(bob.answeredDialog(), Request.INFO);
            assertEquals(Response.OK, info.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertEquals(1, bob.received(Request.BYE).size());
            // the BYE proved the dialog from its bytes too (the INFO, not in the plain form, by the stack)
            assertEquals(server.fastPath() ? 3.0 : 0.0, server.server().transportCounters().value("sip.requests.relayed_early"));
            assertTrue(alice.errors().isEmpty(), alice.errors().toString());
        }
    }

    @Test
    void signedRouteOfOneDialogProvesNothingForAnother() throws Exception {
        useJainSipClients();
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            authenticatedCall(alice, bob);
            Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            // what the callee (or anyone on the path) saw: the signed Record-Route of that dialog
            String signed = ((RecordRouteHeader) invite.getHeader(RecordRouteHeader.NAME)).getAddress().toString();

            assertChallengedAndNotRelayed(fakeInDialogInvite("sip:mallory@evil.example", victim.uri("victim"),
                    "Route: " + signed + "\r\n"), victim.uri("victim"));
        }
    }

    private double droppedAcks() {
        Counter dropped = server.server().registry().find("sip.requests.dropped")
                .tag("reason", "ack_outside_dialog").counter();
        return dropped == null ? 0 : dropped.count();
    }

    /** JAIN-SIP's digest client answers the first challenge and speaks MD5 only: offer MD5 alone. */
    private void useJainSipClients() throws Exception {
        start("auth", "true", "auth.algorithms", "md5");
    }

    /**
     * bob registers (401, then his credentials) and alice calls him through the proxy (407, then
     * hers); returns her call once answered.
     */
    private TestUa.Call authenticatedCall(TestUa alice, TestUa bob) throws Exception {
        InetSocketAddress proxy = server.address(Transport.UDP);
        SipExchange reg = bob.send(registerWithContact(bob, proxy));
        assertEquals(Response.UNAUTHORIZED, reg.awaitFinal(TestUa.TIMEOUT).getStatusCode());
        assertEquals(Response.OK, bob.authenticate(reg, "b0b").awaitFinal(TestUa.TIMEOUT).getStatusCode());
        TestUa.Call challenged = alice.invite(bob.aor(), proxy);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED,
                challenged.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
        TestUa.Call call = alice.authenticate(challenged, "secret");
        call.awaitAnswered(TestUa.TIMEOUT);
        return call;
    }

    private static Request registerWithContact(TestUa ua, InetSocketAddress proxy) throws Exception {
        Request register = ua.newRegister(proxy);
        register.addHeader(ua.contact(ua.contactUri(), 600));
        return register;
    }
}
