package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.SipHeaders;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * Two proxies in a chain: A routes the domain {@code example.com} over TCP to B, which serves it;
 * a call from a user of A to a user registered at B goes through both and back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProxyChainIT {

    @TempDir
    Path dirA;

    @TempDir
    Path dirB;

    @ParameterizedTest(name = "A to B with {0} connections")
    @ValueSource(strings = {"persistent", "per-call"})
    void callThroughTwoProxiesCompletes(String connection) throws Exception {
        try (TestServer b = TestServer.start(dirB, "domain", "example.com");
             TestServer a = TestServer.start(dirA, "route",
                     "example.com=" + b.hostPort(Transport.TCP) + ";transport=tcp;connection=" + connection);
             TestUa bob = TestUa.start("bob", "example.com", Transport.TCP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            assertEquals(Response.OK, bob.register(b.address(Transport.TCP), 600).getStatusCode());

            TestUa.Call call = alice.call(bob.aor(), a.address(Transport.UDP));
            Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals(bob.contactUri().toString(), invite.getRequestURI().toString());
            assertEquals(List.of(via(b, Transport.TCP), via(a, Transport.TCP), "127.0.0.1:" + alice.port()), SipHeaders.vias(invite));
            assertEquals(List.of(rr(b, Transport.TCP), rr(a, Transport.TCP), rr(a, Transport.UDP)), withoutFlowTokens(SipHeaders.recordRoutes(invite)));
            assertEquals(68, ((MaxForwardsHeader) invite.getHeader(MaxForwardsHeader.NAME)).getMaxForwards());

            bob.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            Request bye = bob.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertEquals(List.of(via(b, Transport.TCP), via(a, Transport.TCP), "127.0.0.1:" + alice.port()), SipHeaders.vias(bye));
            assertEquals(List.of(), bob.errors());
            assertEquals(List.of(), alice.errors());
        }
    }

    @Test
    void calleesByeReturnsAlongTheRecordRoutesNotTheDefaultRoute() throws Exception {
        try (TestServer b = TestServer.start(dirB, "domain", "example.com");
             TestServer a = TestServer.start(dirA, "defaultRoute", b.hostPort(Transport.TCP) + ";transport=tcp");
             TestUa bob = TestUa.start("bob", "example.com", Transport.TCP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            assertEquals(Response.OK, bob.register(b.address(Transport.TCP), 600).getStatusCode());
            alice.call(bob.aor(), a.address(Transport.UDP));
            bob.awaitRequest(Request.ACK, TestUa.TIMEOUT);

            assertEquals(Response.OK, bob.hangUpAnswered().awaitFinal(TestUa.TIMEOUT).getStatusCode());

            Request bye = alice.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertEquals(alice.contactUri().toString(), bye.getRequestURI().toString());
            // RFC 3261 §12.2.1.1: the route set is B then A; nothing after A but alice herself
            assertEquals(List.of(via(a, Transport.UDP), via(b, Transport.TCP), "127.0.0.1:" + bob.port()), SipHeaders.vias(bye));
        }
    }

    @Test
    void cancelCrossesBothProxiesHopByHop() throws Exception {
        try (TestServer b = TestServer.start(dirB, "domain", "example.com");
             TestServer a = TestServer.start(dirA, "route", "example.com=" + b.hostPort(Transport.TCP) + ";transport=tcp");
             TestUa bob = TestUa.start("bob", "example.com", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.TCP)) {
            bob.answer(Request.INVITE, TestUa.Answer.ringForever());
            assertEquals(Response.OK, bob.register(b.address(Transport.UDP), 600).getStatusCode());
            TestUa.Call call = alice.invite(bob.aor(), a.address(Transport.TCP));
            call.invite().await(Response.RINGING, TestUa.TIMEOUT);

            assertEquals(Response.OK, call.cancel().awaitFinal(TestUa.TIMEOUT).getStatusCode());

            assertEquals(Response.REQUEST_TERMINATED, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            // RFC 3261 §16.10, §9.1: each proxy answers the CANCEL itself and sends its own downstream,
            // whose only Via is the top Via of the INVITE it cancels
            Request cancel = bob.awaitRequest(Request.CANCEL, TestUa.TIMEOUT);
            assertEquals(List.of(via(b, Transport.UDP)), SipHeaders.vias(cancel));
        }
    }

    private static String via(TestServer s, Transport t) {
        return s.hostPort(t);
    }

    private static String rr(TestServer s, Transport t) {
        return "<sip:" + s.hostPort(t) + ";transport=" + t.configName() + ";lr>";
    }

    /**
     * Record-Route entries without this proxy's flow token (RFC 5626 §5.3): a callee registered over
     * a connection is reached on it, and the entry then carries the token, whose value varies.
     */
    private static List<String> withoutFlowTokens(List<String> routes) {
        return routes.stream().map(r -> r.replaceAll(";sc-flow=[A-Za-z0-9_-]+", "")).toList();
    }
}
