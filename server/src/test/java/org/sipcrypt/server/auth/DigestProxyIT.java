package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import javax.sip.address.SipURI;
import javax.sip.header.FromHeader;
import javax.sip.header.ProxyAuthenticateHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** INVITE through the proxy with digest authentication (407, RFC 3261 §22.3), JAIN-SIP user agents. */
@Timeout(60)
class DigestProxyIT {

    @TempDir
    Path dir;

    private static void registerWithCredentials(TestUa ua, InetSocketAddress registrar, String password)
            throws Exception {
        Request register = ua.newRegister(registrar);
        register.addHeader(ua.contact(ua.contactUri(), 600));
        SipExchange first = ua.send(register);
        assertEquals(Response.UNAUTHORIZED, first.awaitFinal(TestUa.TIMEOUT).getStatusCode());
        assertEquals(Response.OK, ua.authenticate(first, password).awaitFinal(TestUa.TIMEOUT).getStatusCode());
    }

    @Test
    void inviteIsChallengedWith407ThenConnectsAndTheDialogIsNotChallenged() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth", "true", "auth.algorithms", "md5");
             TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            String realm = server.server().config().effectiveRealm();
            DigestRegistrarIT.provision(server, realm);
            InetSocketAddress proxy = server.address(Transport.UDP);
            registerWithCredentials(bob, proxy, "b0b");

            TestUa.Call call = alice.invite(bob.aor(), proxy);
            Response challenge = call.invite().awaitFinal(TestUa.TIMEOUT);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, challenge.getStatusCode());
            ProxyAuthenticateHeader pa = (ProxyAuthenticateHeader) challenge.getHeader(ProxyAuthenticateHeader.NAME);
            assertEquals(realm, pa.getRealm());
            assertEquals("MD5", pa.getAlgorithm());

            TestUa.Call authenticated = alice.authenticate(call, "secret");
            authenticated.awaitAnswered(TestUa.TIMEOUT);
            Request atBob = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertNull(atBob.getHeader("Proxy-Authorization"), "the proxy consumes credentials for its realm");
            // BYE carries back the proxy's signed Record-Route: inside the dialog, not challenged by default
            assertEquals(Response.OK, authenticated.hangUp().getStatusCode());
            assertTrue(alice.errors().isEmpty(), alice.errors().toString());
        }
    }

    @Test
    void wrongPasswordOnInviteGets403AndNothingReachesTheCallee() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth", "true", "auth.algorithms", "md5");
             TestUa alice = TestUa.start("alice", Transport.TCP);
             TestUa bob = TestUa.start("bob", Transport.TCP)) {
            DigestRegistrarIT.provision(server, server.server().config().effectiveRealm());
            InetSocketAddress proxy = server.address(Transport.TCP);
            registerWithCredentials(bob, proxy, "b0b");
            TestUa.Call call = alice.invite(bob.aor(), proxy);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            Response r = alice.authenticate(call, "guess").invite().awaitFinal(TestUa.TIMEOUT);
            assertEquals(Response.FORBIDDEN, r.getStatusCode());
            assertTrue(bob.received(Request.INVITE).isEmpty());
        }
    }

    @Test
    void aSubscriberCannotCallFromAnotherDomain() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth", "true", "auth.algorithms", "md5");
             TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            DigestRegistrarIT.provision(server, server.server().config().effectiveRealm());
            InetSocketAddress proxy = server.address(Transport.UDP);
            registerWithCredentials(bob, proxy, "b0b");
            Request invite = alice.newRequest(Request.INVITE, bob.aor(), proxy);
            // alice's own user name and password, but an address of record in a domain we do not serve
            ((SipURI) ((FromHeader) invite.getHeader(FromHeader.NAME)).getAddress().getURI()).setHost("example.net");
            SipExchange first = alice.send(invite);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, first.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            Response r = alice.authenticate(first, "secret").awaitFinal(TestUa.TIMEOUT);
            assertEquals(Response.FORBIDDEN, r.getStatusCode());
            assertEquals("Domain Not Served Here", r.getReasonPhrase());
            assertTrue(bob.received(Request.INVITE).isEmpty());
        }
    }

    @Test
    void inDialogRequestsAreChallengedWhenConfigured() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth", "true", "auth.algorithms", "md5",
                "auth.methods", "INVITE", "auth.methods", "BYE", "auth.inDialog", "true");
             TestUa alice = TestUa.start("alice", Transport.UDP);
             TestUa bob = TestUa.start("bob", Transport.UDP)) {
            DigestRegistrarIT.provision(server, server.server().config().effectiveRealm());
            InetSocketAddress proxy = server.address(Transport.UDP);
            // REGISTER is not among the methods now: it passes unchallenged
            assertEquals(Response.OK, bob.register(proxy, 600).getStatusCode());
            TestUa.Call call = alice.invite(bob.aor(), proxy);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            TestUa.Call authenticated = alice.authenticate(call, "secret");
            authenticated.awaitAnswered(TestUa.TIMEOUT);
            SipExchange bye = authenticated.bye();
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, bye.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(Response.OK, alice.authenticate(bye, "secret").awaitFinal(TestUa.TIMEOUT).getStatusCode());
        }
    }
}
