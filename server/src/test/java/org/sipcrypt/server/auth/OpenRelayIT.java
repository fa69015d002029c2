package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.auth.Attacker.status;

import java.util.List;
import java.util.UUID;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.DigestClient;

/**
 * The proxy is no open relay: with {@code --auth} and every other setting at its default, no
 * method gets through unauthenticated, to a foreign domain or to a local user; a local user who
 * authenticates is forwarded anywhere; narrowing {@code auth.methods} still keeps foreign targets
 * behind a challenge; a trusted peer's requests pass without one. The victim is a sink on
 * 127.0.0.2; that nothing reached it is proven by a marker relayed after each attack.
 */
@Timeout(60)
class OpenRelayIT extends ProxyAttackFixture {

    /** Headers some methods cannot do without, so the request fails on nothing but authentication. */
    private static String needs(String method) {
        return switch (method) {
            case "SUBSCRIBE", "PUBLISH" -> "Event: presence\r\nExpires: 60\r\n";
            case "NOTIFY" -> "Event: presence\r\nSubscription-State: active\r\n";
            case "REFER" -> "Refer-To: <sip:premium@127.0.0.2>\r\n";
            default -> "";
        };
    }

    /** A request outside any dialog of ours; a NOTIFY claims one with a made-up To tag, as it must (RFC 6665 §4.1.3). */
    private String outOfDialog(String method, String from, String target, String extra) {
        return attacker.request(method, target, from, "m1", target, "NOTIFY".equals(method) ? "fake-to-tag" : null,
                UUID.randomUUID().toString(), 1, needs(method) + extra, "");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MESSAGE", "OPTIONS", "SUBSCRIBE", "REFER", "INFO", "PUBLISH", "UPDATE", "BYE", "NOTIFY",
            "PRACK", "FOO"})
    void unauthenticatedRequestFromAForeignUserToAForeignDomainIsChallenged(String method) throws Exception {
        start("auth", "true");
        String attack = outOfDialog(method, "sip:mallory@evil.example", victim.uri("victim"), "");
        String r = attacker.finalResponse(attack);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        proxy.assertNothingReachedTheVictim(Attacker.callId(attack), victim.uri("victim"), "");
    }

    @Test
    void outOfDialogByeToALocalUserIsChallenged() throws Exception {
        start("auth", "true");
        attacker.register("bob", "b0b", victim.uri("bob"));
        String bye = outOfDialog("BYE", "sip:mallory@evil.example", "sip:bob@127.0.0.1", "");
        String r = attacker.finalResponse(bye);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        String message = outOfDialog("MESSAGE", "sip:alice@127.0.0.1", "sip:bob@127.0.0.1", "");
        r = attacker.finalResponse(message);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        proxy.assertNothingReachedTheVictim(Attacker.callId(bye), "sip:bob@127.0.0.1", "");
        proxy.assertNothingReachedTheVictim(Attacker.callId(message), "sip:bob@127.0.0.1", "");
    }

    @Test
    void authenticatedLocalUserIsForwardedToAForeignDomain() throws Exception {
        start("auth", "true");
        String callId = UUID.randomUUID().toString();
        String target = victim.uri("friend");
        String first = attacker.finalResponse(attacker.request("MESSAGE", target, "sip:alice@127.0.0.1", "a1", target,
                null, callId, 1, "", ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(first), first);
        String creds = DigestClient.answer("Proxy-Authorization",
                Attacker.md5Challenge(first, "Proxy-Authenticate"), "alice", "secret", "MESSAGE", target, 1);
        String ok = attacker.finalResponse(attacker.request("MESSAGE", target, "sip:alice@127.0.0.1", "a1", target,
                null, callId, 2, creds, ""));
        assertEquals(Response.OK, status(ok), ok);
        assertTrue(victim.await("MESSAGE", Attacker.WAIT).startsWith("MESSAGE " + target));
    }

    @Test
    void narrowedMethodsStillChallengeRequestsLeavingOurDomain() throws Exception {
        start("auth", "true", "auth.methods", "REGISTER", "auth.methods", "INVITE");
        for (String method : List.of("MESSAGE", "OPTIONS", "BYE")) {
            String attack = outOfDialog(method, "sip:mallory@evil.example", victim.uri("victim"), "");
            String r = attacker.finalResponse(attack);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), method + ": " + r);
            proxy.assertNothingReachedTheVictim(Attacker.callId(attack), victim.uri("victim"), "");
        }
        String route = "Route: <sip:" + victim.hostPort() + ";lr>\r\n";
        String viaRoute = outOfDialog("MESSAGE", "sip:mallory@evil.example", "sip:bob@127.0.0.1", route);
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(attacker.finalResponse(viaRoute)));
        proxy.assertNothingReachedTheVictim(Attacker.callId(viaRoute), "sip:bob@127.0.0.1", route);
    }

    /** An INVITE too: the challenge from its bytes, before the parse, spares trusted peers as the stack's does. */
    @ParameterizedTest
    @ValueSource(strings = {"MESSAGE", "INVITE"})
    void trustedPeerIsNotChallenged(String method) throws Exception {
        start("auth", "true", "auth.trustedPeers", "127.0.0.0/30");
        String r = attacker.finalResponse(outOfDialog(method, "sip:carrier@upstream.example", victim.uri("friend"),
                ""));
        // the victim (a sink) answers INVITE with 486 and the rest with 200: relayed, not challenged
        assertEquals(method.equals("INVITE") ? Response.BUSY_HERE : Response.OK, status(r), r);
        victim.await(method, Attacker.WAIT);
    }
}
