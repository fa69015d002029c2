package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.auth.Attacker.QUIET;
import static org.sipcrypt.server.auth.Attacker.status;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.TestServer;

/**
 * The proxy is no open relay: with {@code --auth} and every other setting at its default, no
 * method gets through unauthenticated, to a foreign domain or to a local user; a local user who
 * authenticates is forwarded anywhere; narrowing {@code auth.methods} still keeps foreign targets
 * behind a challenge; a trusted peer's requests pass without one. The victim is a sink on
 * 127.0.0.2.
 */
@Timeout(60)
class OpenRelayIT {

    @TempDir
    Path dir;

    private TestServer server;
    private Attacker mallory;
    private SipSink victim;

    private void start(String... settings) throws Exception {
        server = TestServer.start(dir, settings);
        DigestRegistrarIT.provision(server, server.config().effectiveRealm());
        mallory = new Attacker(server);
        victim = SipSink.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (victim != null) {
            victim.close();
        }
        if (mallory != null) {
            mallory.close();
        }
        if (server != null) {
            server.close();
        }
    }

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
        return mallory.request(method, target, from, "m1", target, "NOTIFY".equals(method) ? "fake-to-tag" : null,
                UUID.randomUUID().toString(), 1, needs(method) + extra, "");
    }

    private void assertNothingReachedTheVictim() throws InterruptedException {
        Thread.sleep(QUIET.toMillis()); // what the proxy would have sent needs a moment: the waiting is the test
        assertEquals(List.of(), victim.requestLines(), "requests reached the victim");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"MESSAGE", "OPTIONS", "SUBSCRIBE", "REFER", "INFO", "PUBLISH", "UPDATE", "BYE", "NOTIFY",
            "PRACK", "FOO"})
    void unauthenticatedRequestFromAForeignUserToAForeignDomainIsChallenged(String method) throws Exception {
        start("auth", "true");
        String r = mallory.finalResponse(outOfDialog(method, "sip:mallory@evil.example", victim.uri("victim"), ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        assertNothingReachedTheVictim();
    }

    @Test
    void outOfDialogByeToALocalUserIsChallenged() throws Exception {
        start("auth", "true");
        mallory.register("bob", "b0b", victim.uri("bob"));
        String r = mallory.finalResponse(outOfDialog("BYE", "sip:mallory@evil.example", "sip:bob@127.0.0.1", ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        r = mallory.finalResponse(outOfDialog("MESSAGE", "sip:alice@127.0.0.1", "sip:bob@127.0.0.1", ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), r);
        assertNothingReachedTheVictim();
    }

    @Test
    void authenticatedLocalUserIsForwardedToAForeignDomain() throws Exception {
        start("auth", "true");
        String callId = UUID.randomUUID().toString();
        String target = victim.uri("friend");
        String first = mallory.finalResponse(mallory.request("MESSAGE", target, "sip:alice@127.0.0.1", "a1", target,
                null, callId, 1, "", ""));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(first), first);
        String creds = DigestClient.answer("Proxy-Authorization",
                Attacker.md5Challenge(first, "Proxy-Authenticate"), "alice", "secret", "MESSAGE", target, 1);
        String ok = mallory.finalResponse(mallory.request("MESSAGE", target, "sip:alice@127.0.0.1", "a1", target,
                null, callId, 2, creds, ""));
        assertEquals(Response.OK, status(ok), ok);
        assertTrue(victim.await("MESSAGE", Attacker.WAIT).startsWith("MESSAGE " + target));
    }

    @Test
    void narrowedMethodsStillChallengeRequestsLeavingOurDomain() throws Exception {
        start("auth", "true", "auth.methods", "REGISTER", "auth.methods", "INVITE");
        for (String method : List.of("MESSAGE", "OPTIONS", "BYE")) {
            String r = mallory.finalResponse(outOfDialog(method, "sip:mallory@evil.example", victim.uri("victim"), ""));
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(r), method + ": " + r);
        }
        String viaRoute = outOfDialog("MESSAGE", "sip:mallory@evil.example", "sip:bob@127.0.0.1",
                "Route: <sip:" + victim.hostPort() + ";lr>\r\n");
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, status(mallory.finalResponse(viaRoute)));
        assertNothingReachedTheVictim();
    }

    @Test
    void trustedPeerIsNotChallenged() throws Exception {
        start("auth", "true", "auth.trustedPeers", "127.0.0.0/30");
        String r = mallory.finalResponse(outOfDialog("MESSAGE", "sip:carrier@upstream.example", victim.uri("friend"),
                ""));
        assertEquals(Response.OK, status(r), r);
        victim.await("MESSAGE", Attacker.WAIT);
    }
}
