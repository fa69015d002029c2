package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.auth.Attacker.WAIT;
import static org.sipcrypt.server.auth.Attacker.md5Challenge;
import static org.sipcrypt.server.auth.Attacker.status;
import static org.sipcrypt.server.auth.Attacker.statusLine;

import java.util.List;
import java.util.UUID;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSink;

/**
 * Captured credentials cannot be spent again (RFC 7616 §3.4, §5.12): with {@code --auth} and
 * every other setting at its default, credentials without qop (no nonce count) are refused, the
 * digest uri must be the Request-URI, and a qop=auth nonce count is accepted once. Eve has seen
 * alice's requests; premium-rate and her own contact are sinks on 127.0.0.2 and 127.0.0.3. That
 * nothing reached premium-rate is proven by a marker relayed there after each attack.
 */
@Timeout(60)
class CredentialReplayIT extends ProxyAttackFixture {

    private static final String ALICE = "sip:alice@127.0.0.1";

    /** A 407 challenge for an INVITE from alice to {@code target}, as alice's client would get it. */
    private String inviteChallenge(String target) throws Exception {
        String r = attacker.finalResponse(attacker.request("INVITE", target, ALICE, "a1", target, null,
                UUID.randomUUID().toString(), 1, "", ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        return md5Challenge(r, "Proxy-Authenticate");
    }

    @Test
    void capturedNoQopCredentialsAreRefused() throws Exception {
        start("auth", "true");
        String bob = "sip:bob@127.0.0.1";
        String captured = DigestClient.answerWithoutQop("Proxy-Authorization", inviteChallenge(bob), "alice",
                "secret", "INVITE", bob);
        String target = victim.uri("premium");
        String attack = attacker.request("INVITE", target, ALICE, "e1", target, null, UUID.randomUUID().toString(), 2,
                captured, "");
        String r = attacker.finalResponse(attack);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        proxy.assertNothingReachedTheVictim(Attacker.callId(attack), target, "");
    }

    @Test
    void capturedNoQopRegisterIsRefusedAndTheBindingStays() throws Exception {
        start("auth", "true");
        try (SipSink alicePhone = SipSink.start("127.0.0.3")) {
            attacker.register("alice", "secret", alicePhone.uri("alice"));
            String callId = UUID.randomUUID().toString();
            String reg = attacker.serverUri();
            String first = attacker.finalResponse(attacker.request("REGISTER", reg, ALICE, "r1", ALICE, null, callId, 1,
                    "Expires: 600\r\n", ""));
            String captured = DigestClient.answerWithoutQop("Authorization", md5Challenge(first, "WWW-Authenticate"),
                    "alice", "secret", "REGISTER", reg);
            String evesContact = "Contact: <" + victim.uri("eve") + ">\r\nExpires: 600\r\n";
            String r = attacker.finalResponse(attacker.request("REGISTER", reg, ALICE, "r1", ALICE, null, callId, 2,
                    evesContact + captured, ""));
            assertEquals(Response.UNAUTHORIZED, status(r), r);

            // calls to alice still reach her own phone, not eve's contact
            String creds = DigestClient.answer("Proxy-Authorization", inviteChallenge(ALICE), "alice", "secret",
                    "INVITE", ALICE, 1);
            String call = attacker.request("INVITE", ALICE, ALICE, "a2", ALICE, null, UUID.randomUUID().toString(), 2,
                    creds, "");
            // a proxy forwards a non-2xx final response only when every branch has answered (RFC 3261
            // §16.7 step 6): had eve's contact been bound beside alice's, it would have had the INVITE by now
            String busy = attacker.finalResponse(call);
            assertEquals(Response.BUSY_HERE, status(busy), busy);
            alicePhone.await("INVITE", WAIT);
            assertEquals(List.of(), victim.requestLines(), "requests reached eve's contact");
        }
    }

    @Test
    void credentialsForAnotherRequestUriAreRefused() throws Exception {
        start("auth", "true");
        String bob = "sip:bob@127.0.0.1";
        // qop=auth credentials for a call to bob that never went out (eve intercepted it)
        String captured = DigestClient.answer("Proxy-Authorization", inviteChallenge(bob), "alice", "secret",
                "INVITE", bob, 1);
        String target = victim.uri("premium");
        String attack = attacker.request("INVITE", target, ALICE, "e1", target, null, UUID.randomUUID().toString(), 2,
                captured, "");
        String r = attacker.finalResponse(attack);
        assertEquals("SIP/2.0 403 Digest URI Mismatch", statusLine(r), r);
        proxy.assertNothingReachedTheVictim(Attacker.callId(attack), target, "");
    }

    @Test
    void replayedQopCredentialsAreRefused() throws Exception {
        start("auth", "true");
        String target = victim.uri("friend");
        String challenge = attacker.finalResponse(attacker.request("MESSAGE", target, ALICE, "a1", target, null,
                UUID.randomUUID().toString(), 1, "", ""));
        String creds = DigestClient.answer("Proxy-Authorization", md5Challenge(challenge, "Proxy-Authenticate"), "alice",
                "secret", "MESSAGE", target, 1);
        String ok = attacker.finalResponse(attacker.request("MESSAGE", target, ALICE, "a1", target, null,
                UUID.randomUUID().toString(), 2, creds, ""));
        assertEquals(Response.OK, status(ok), ok);
        victim.await("MESSAGE", WAIT);
        int before = victim.requests().size();

        String replayCallId = UUID.randomUUID().toString();
        String replay = attacker.finalResponse(attacker.request("MESSAGE", target, ALICE, "e1", target, null,
                replayCallId, 2, creds, ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(replay), replay);
        attacker.assertOnlyMarkerReached(victim, before, replayCallId, target, "");
    }

    @Test
    void labSettingsAcceptNoQopCredentialsForAnotherUri() throws Exception {
        // what auth.legacyNoQop and auth.lab.skipUriCheck give up, shown so nobody turns them on unaware
        start("auth", "true", "auth.legacyNoQop", "true", "auth.lab.skipUriCheck", "true");
        String bob = "sip:bob@127.0.0.1";
        String captured = DigestClient.answerWithoutQop("Proxy-Authorization", inviteChallenge(bob), "alice",
                "secret", "INVITE", bob);
        String target = victim.uri("premium");
        attacker.send(attacker.request("INVITE", target, ALICE, "e1", target, null, UUID.randomUUID().toString(), 2,
                captured, ""));
        victim.await("INVITE", WAIT);
    }
}
