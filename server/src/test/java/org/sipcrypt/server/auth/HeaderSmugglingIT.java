package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.sipcrypt.server.auth.Attacker.status;

import java.net.InetSocketAddress;
import java.util.UUID;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * Issue 45, item 6: a holder of one genuine signed Record-Route (here, the caller of a real
 * authenticated call) writes a BYE whose bytes say one thing to a reader that trims header names or
 * takes the first of two tags, and another to the parse of the next hop: {@code Call-ID: NEW} plus
 * {@code Call-ID\x01: <the signed Call-ID>}, or {@code From: ...;tag=<signed>;tag=other}. The server
 * must judge the request by what the parse reads, so neither is relayed on the strength of the
 * signed route: the first is answered 400 (a header name must be a token, RFC 3261 §25.1), the
 * second is challenged, its last tag (the one the parse keeps) proving no dialog. A marker relayed
 * afterwards proves nothing reached the victim.
 */
@Timeout(60)
class HeaderSmugglingIT extends ProxyAttackFixture {

    /** The dialog of the authenticated call: its Call-ID, the caller's and the callee's tags, and its signed route. */
    private record Dialog(String callId, String fromTag, String toTag, String route) {
    }

    @BeforeEach
    void start() throws Exception {
        // JAIN-SIP's digest client answers the first challenge and speaks MD5 only
        start("auth", "true", "auth.algorithms", "md5");
    }

    @Test
    void aCallIdWithAControlCharacterInItsNameIsRefusedNotRelayedOnTheSignedRoute() throws Exception {
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Dialog dialog = authenticatedCall(alice, bob);
            String newCallId = "new-" + UUID.randomUUID();
            String bye = attacker.request("BYE", victim.uri("victim"), "sip:alice@127.0.0.1", dialog.fromTag(),
                    bob.aor().toString(), dialog.toTag(), newCallId, 2,
                    "Route: " + dialog.route() + "\r\nCall-ID\u0001: " + dialog.callId() + "\r\n", "");
            int before = victim.requests().size();

            String r = attacker.finalResponse(bye);

            assertEquals(Response.BAD_REQUEST, status(r), r);
            assertEquals("SIP/2.0 400 Bad header name", Attacker.statusLine(r));
            attacker.assertOnlyMarkerReached(victim, before, newCallId, victim.uri("victim"), "");
        }
    }

    @Test
    void aFromWithTwoTagsIsJudgedByTheTagTheParseKeeps() throws Exception {
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Dialog dialog = authenticatedCall(alice, bob);
            String bye = attacker.request("BYE", victim.uri("victim"), "sip:alice@127.0.0.1",
                    dialog.fromTag() + ";tag=other", bob.aor().toString(), dialog.toTag(), dialog.callId(), 2,
                    "Route: " + dialog.route() + "\r\n", "");
            int before = victim.requests().size();

            String r = attacker.finalResponse(bye);

            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
            attacker.assertOnlyMarkerReached(victim, before, dialog.callId(), victim.uri("victim"), "");
        }
    }

    /**
     * bob registers (401, then his credentials) and alice calls him through the proxy (407, then
     * hers); returns the dialog as bob saw it once answered.
     */
    private Dialog authenticatedCall(TestUa alice, TestUa bob) throws Exception {
        InetSocketAddress proxyAddress = server.address(Transport.UDP);
        Request register = bob.newRegister(proxyAddress);
        register.addHeader(bob.contact(bob.contactUri(), 600));
        SipExchange reg = bob.send(register);
        assertEquals(Response.UNAUTHORIZED, reg.awaitFinal(TestUa.TIMEOUT).getStatusCode());
        assertEquals(Response.OK, bob.authenticate(reg, "b0b").awaitFinal(TestUa.TIMEOUT).getStatusCode());
        TestUa.Call challenged = alice.invite(bob.aor(), proxyAddress);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED,
                challenged.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
        alice.authenticate(challenged, "secret").awaitAnswered(TestUa.TIMEOUT);
        Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
        return new Dialog(((CallIdHeader) invite.getHeader(CallIdHeader.NAME)).getCallId(),
                ((FromHeader) invite.getHeader(FromHeader.NAME)).getTag(),
                bob.answeredDialog().getLocalTag(),
                ((RecordRouteHeader) invite.getHeader(RecordRouteHeader.NAME)).getAddress().toString());
    }
}
