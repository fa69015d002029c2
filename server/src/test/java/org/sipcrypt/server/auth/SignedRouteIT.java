package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.sipcrypt.server.auth.Attacker.status;

import java.net.InetSocketAddress;
import java.time.Duration;
import javax.sip.address.SipURI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.ManualClock;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * A signed Record-Route proves one live dialog and nothing else: with {@code --auth}, alice calls
 * bob through the proxy with her credentials, and whoever holds the route bob received (bob
 * himself, or anyone who saw it) tries to use it from another address, without credentials, to
 * send INVITE and BYE to a victim sink: for another dialog of the same Call-ID, with a made-up peer
 * tag in either direction, with the signature written another way, after the call's BYE, and after
 * the dialog has been idle past {@code shutdown.dialogLifetime} (the server's clock moved by hand).
 * Each is challenged, and a marker relayed afterwards proves nothing reached the victim.
 */
@Timeout(60)
class SignedRouteIT extends ProxyAttackFixture {

    private static final String SDP = "v=0\r\no=m 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio 4000 RTP/AVP 0\r\n";

    /** What the callee of an answered call holds: its Call-ID, both tags and the route's signature. */
    private record Answered(TestUa.Call call, String callId, String callerTag, String calleeTag, String signature) {
    }

    @Test
    void routeOfOneDialogIsRefusedForAnotherDialogOfTheSameCallId() throws Exception {
        start("auth", "true", "auth.algorithms", "md5");
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Answered d = answeredCall(alice, bob);
            // the caller's tag and the Call-ID the route was signed for, with a callee of the attacker's making
            assertRefused("INVITE", d.callId(), d.callerTag(), "made-up", d.signature());
            assertRefused("BYE", d.callId(), d.callerTag(), "made-up", d.signature());
        }
    }

    @Test
    void routeIsRefusedWithTheCallersTagAsToTagAndAMadeUpFromTag() throws Exception {
        start("auth", "true", "auth.algorithms", "md5");
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Answered d = answeredCall(alice, bob);
            // the callee's direction (the signed tag in To) from a From tag that is not the callee's
            assertRefused("INVITE", d.callId(), "made-up", d.callerTag(), d.signature());
            assertRefused("BYE", d.callId(), "made-up", d.callerTag(), d.signature());
        }
    }

    @Test
    void signatureWrittenAnotherWayIsRefused() throws Exception {
        start("auth", "true", "auth.algorithms", "md5");
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Answered d = answeredCall(alice, bob);
            String sig = d.signature();
            char last = sig.charAt(sig.length() - 1);
            // the same MAC bytes to a lenient base64 decoder: padding, or the unused low bits of the last character
            String otherUnusedBits = sig.substring(0, sig.length() - 1) + (char) (last == 'w' ? 'x' : last + 1);
            assertRefused("INVITE", d.callId(), d.callerTag(), d.calleeTag(), otherUnusedBits);
            assertRefused("BYE", d.callId(), d.calleeTag(), d.callerTag(), otherUnusedBits);
            // '=' is no URI token character: the BYE's byte path reads such a Route, the parser refuses it (400)
            assertRefused("BYE", d.callId(), d.calleeTag(), d.callerTag(), sig + "==", Response.BAD_REQUEST);
            assertRefused("BYE", d.callId(), d.callerTag(), d.calleeTag(), sig + "==", Response.BAD_REQUEST);
        }
    }

    @Test
    void afterTheByeIsRelayedTheRouteAuthorisesNothing() throws Exception {
        start("auth", "true", "auth.algorithms", "md5");
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Answered d = answeredCall(alice, bob);
            assertEquals(Response.OK, d.call().hangUp().getStatusCode(), "the caller's own BYE passes");
            bob.awaitRequest(Request.BYE, TestUa.TIMEOUT);

            assertRefused("INVITE", d.callId(), d.callerTag(), d.calleeTag(), d.signature());
            assertRefused("BYE", d.callId(), d.calleeTag(), d.callerTag(), d.signature());
            assertRefused("BYE", d.callId(), d.callerTag(), d.calleeTag(), d.signature());
        }
    }

    @Test
    void routeOfADialogIdlePastItsLifetimeIsRefused() throws Exception {
        ManualClock clock = ManualClock.atSystemTime();
        start(clock, "auth", "true", "auth.algorithms", "md5", "shutdown.dialogLifetime", "1h");
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Answered d = answeredCall(alice, bob);
            // in-dialog traffic keeps the dialog live: bob's INFO after 50 minutes passes unchallenged
            clock.advance(Duration.ofMinutes(50));
            SipExchange info = bob.sendInDialog(bob.answeredDialog(), Request.INFO);
            assertEquals(Response.OK, info.awaitFinal(TestUa.TIMEOUT).getStatusCode());

            clock.advance(Duration.ofMinutes(61));
            assertRefused("INVITE", d.callId(), d.callerTag(), d.calleeTag(), d.signature());
            assertRefused("BYE", d.callId(), d.calleeTag(), d.callerTag(), d.signature());
        }
    }

    /**
     * RFC 3261 §16.4: a strict router before us sends the BYE on with our signed Record-Route URI as
     * its Request-URI and the callee's Contact as the last Route. The signature there proves the
     * dialog as it would in a Route, so the BYE is not challenged, and it reaches bob with his
     * Contact as the Request-URI and no Route left.
     */
    @Test
    void byeFromAStrictRouterCarriesTheSignatureInItsRequestUriAndReachesTheCallee() throws Exception {
        start("auth", "true", "auth.algorithms", "md5");
        try (TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Answered d = answeredCall(alice, bob);
            String route = attacker.serverRoute(";" + DialogRouteSigner.PARAM + "=" + d.signature());
            String ours = route.substring(1, route.length() - 1);
            String contact = bob.contactUri().toString();
            String bye = attacker.request("BYE", ours, "sip:alice@127.0.0.1", d.callerTag(), bob.aor().toString(),
                    d.calleeTag(), d.callId(), 100, "Route: <" + contact + ">\r\n", "");

            String r = attacker.finalResponse(bye);
            assertEquals(Response.OK, status(r), "the strict-routed BYE: " + Attacker.statusLine(r));
            Request atBob = bob.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertEquals(contact, atBob.getRequestURI().toString());
            assertNull(atBob.getHeader(RouteHeader.NAME), "the last Route became the Request-URI");
        }
    }

    /**
     * Sends, from the attacker's socket, a {@code method} to the victim with this Call-ID, these tags
     * and our route carrying {@code signature}; expects 407 (a challenge) and proves nothing reached the victim.
     */
    private void assertRefused(String method, String callId, String fromTag, String toTag, String signature)
            throws Exception {
        assertRefused(method, callId, fromTag, toTag, signature, Response.PROXY_AUTHENTICATION_REQUIRED);
    }

    /** As the other {@code assertRefused}, expecting {@code status} instead of 407. */
    private void assertRefused(String method, String callId, String fromTag, String toTag, String signature,
                               int expected) throws Exception {
        String target = victim.uri("victim");
        String route = "Route: " + attacker.serverRoute(";" + DialogRouteSigner.PARAM + "=" + signature) + "\r\n";
        String attack = attacker.request(method, target, "sip:mallory@evil.example", fromTag, target, toTag, callId,
                7, route, method.equals("INVITE") ? SDP : "");
        String r = attacker.finalResponse(attack);
        assertEquals(expected, status(r), method + " From tag " + fromTag + " To tag "
                + toTag + " " + DialogRouteSigner.PARAM + "=" + signature + ": " + Attacker.statusLine(r));
        proxy.assertNothingReachedTheVictim(callId, target, "");
    }

    /**
     * bob registers, alice calls him with her credentials and he answers; returns what bob holds:
     * the Call-ID, alice's tag, his own and the signature of the Record-Route his INVITE carried.
     */
    private Answered answeredCall(TestUa alice, TestUa bob) throws Exception {
        InetSocketAddress proxyAddress = server.address(Transport.UDP);
        Request register = bob.newRegister(proxyAddress);
        register.addHeader(bob.contact(bob.contactUri(), 600));
        SipExchange reg = bob.send(register);
        assertEquals(Response.UNAUTHORIZED, reg.awaitFinal(TestUa.TIMEOUT).getStatusCode());
        assertEquals(Response.OK, bob.authenticate(reg, "b0b").awaitFinal(TestUa.TIMEOUT).getStatusCode());
        TestUa.Call challenged = alice.invite(bob.aor(), proxyAddress);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED,
                challenged.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
        TestUa.Call call = alice.authenticate(challenged, "secret");
        call.awaitAnswered(TestUa.TIMEOUT);
        bob.awaitRequests(Request.ACK, 1, TestUa.TIMEOUT);

        Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
        SipURI rr = (SipURI) ((RecordRouteHeader) invite.getHeader(RecordRouteHeader.NAME)).getAddress().getURI();
        return new Answered(call, ((CallIdHeader) invite.getHeader(CallIdHeader.NAME)).getCallId(),
                ((FromHeader) invite.getHeader(FromHeader.NAME)).getTag(), bob.answeredDialog().getLocalTag(),
                rr.getParameter(DialogRouteSigner.PARAM));
    }
}
