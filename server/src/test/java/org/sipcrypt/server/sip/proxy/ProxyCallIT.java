package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.server.testing.BobAndAlice;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.SipHeaders;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** A whole call, INVITE to BYE, through the stateful proxy to a registered callee. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProxyCallIT {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "call over {0}, {1} connections")
    @CsvSource({"UDP, persistent", "TCP, persistent", "TCP, per-call"})
    void callThroughProxyReachesCalleeAndEndsWithBye(Transport t, String connection) throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.connection", connection);
             TestUa callee = TestUa.start("bob", t);
             TestUa caller = TestUa.start("alice", t)) {
            callee.registerAt(server.address(t));

            TestUa.Call call = caller.call(callee.aor(), server.address(t));
            Request invite = callee.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals(callee.contactUri().toString(), invite.getRequestURI().toString());
            assertProxyVia(invite, server, t);
            assertEquals(List.of(recordRoute(server, t)), withoutFlowTokens(SipHeaders.recordRoutes(invite)));
            assertEquals(69, ((MaxForwardsHeader) invite.getHeader(MaxForwardsHeader.NAME)).getMaxForwards());
            assertEquals(List.of(server.hostPort(t), "127.0.0.1:" + caller.port()), SipHeaders.vias(invite));
            // a UDP callee may repeat its 200 until the ACK arrives: compare without repeats
            assertEquals(List.of(Response.TRYING, Response.RINGING, Response.OK),
                    call.invite().statuses().stream().distinct().toList());
            // the 180 and the 200 come upstream with the proxy's Via off and everything else as the
            // callee sent them, from their bytes, with the INVITE's transactions settled
            Response ok = call.invite().await(Response.OK, TestUa.TIMEOUT);
            assertEquals(List.of("127.0.0.1:" + caller.port()), SipHeaders.vias(ok));
            assertEquals(List.of(recordRoute(server, t)), withoutFlowTokens(SipHeaders.recordRoutes(ok)));
            assertEquals(early(server, 2.0), server.server().transportCounters().value("sip.responses.relayed_early"));

            Request ack = callee.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            // relayed statelessly (RFC 3261 §16.11): over UDP from its bytes; a callee registered over
            // TCP is reached on its registration connection (its flow, named by a token in the
            // Record-Route), which only the stack path routes yet, as it does a per-call connection
            boolean fromBytes = t == Transport.UDP;
            assertProxyVia(ack, server, t);
            assertEquals(List.of(server.hostPort(t), "127.0.0.1:" + caller.port()), SipHeaders.vias(ack));
            assertEquals(List.of(), SipHeaders.routes(ack), "the proxy took its own Route entry off");
            assertEquals(69, ((MaxForwardsHeader) ack.getHeader(MaxForwardsHeader.NAME)).getMaxForwards());
            assertEquals(early(server, fromBytes ? 1.0 : 0.0),
                    server.server().transportCounters().value("sip.requests.relayed_early"));
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            Request bye = callee.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertProxyVia(bye, server, t);
            // the BYE and its 200 the same way as the ACK
            assertEquals(early(server, fromBytes ? 2.0 : 0.0),
                    server.server().transportCounters().value("sip.requests.relayed_early"));
            assertEquals(early(server, fromBytes ? 3.0 : 2.0),
                    server.server().transportCounters().value("sip.responses.relayed_early"));
            assertEquals(List.of(), callee.errors());
            assertEquals(List.of(), caller.errors());
        }
    }

    @Test
    void callFromUdpToTcpIsRecordRoutedOnBothTransports() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.TCP, Transport.UDP)) {
            TestUa.Call call = u.alice().call(u.bob().aor(), u.server().address(Transport.UDP));
            Request invite = u.bob().awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertProxyVia(invite, u.server(), Transport.TCP);
            // RFC 5658: one entry for the interface towards the callee, one towards the caller
            assertEquals(List.of(recordRoute(u.server(), Transport.TCP), recordRoute(u.server(), Transport.UDP)),
                    withoutFlowTokens(SipHeaders.recordRoutes(invite)));

            u.bob().awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertProxyVia(u.bob().awaitRequest(Request.BYE, TestUa.TIMEOUT), u.server(), Transport.TCP);
        }
    }

    @Test
    void withoutRecordRouteOnlyTheInviteGoesThroughTheProxy() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.UDP, Transport.UDP, "recordRoute", "false")) {
            TestUa.Call call = u.alice().call(u.bob().aor(), u.server().address(Transport.UDP));
            Request invite = u.bob().awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals(List.of(), withoutFlowTokens(SipHeaders.recordRoutes(invite)));
            assertProxyVia(invite, u.server(), Transport.UDP);
            assertEquals(Response.OK, call.hangUp().getStatusCode());

            // RFC 3261 §16.6 step 4: a proxy that does not record-route is not on the dialog's path
            Request bye = u.bob().awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertEquals(u.alice().port(), ((ViaHeader) bye.getHeader(ViaHeader.NAME)).getPort());
            Request ack = u.bob().awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(u.alice().port(), ((ViaHeader) ack.getHeader(ViaHeader.NAME)).getPort());
        }
    }

    @Test
    void reInviteWithinTheCallFollowsTheRouteSet() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.UDP, Transport.TCP)) {
            TestUa.Call call = u.alice().call(u.bob().aor(), u.server().address(Transport.TCP));
            u.bob().awaitRequest(Request.ACK, TestUa.TIMEOUT);

            SipExchange reInvite = u.alice().sendInDialog(call.invite().dialog(), Request.INVITE);

            assertEquals(Response.OK, reInvite.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            List<Request> invites = u.bob().received(Request.INVITE);
            assertEquals(2, invites.size(), "initial INVITE and re-INVITE");
            assertProxyVia(invites.get(1), u.server(), Transport.UDP);
            assertEquals(List.of(), SipHeaders.recordRoutes(invites.get(1)), "the route set is fixed at dialog creation");
            Request ack = u.bob().awaitRequests(Request.ACK, 2, TestUa.TIMEOUT).get(1);
            assertProxyVia(ack, u.server(), Transport.UDP);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
        }
    }

    @Test
    void calleeHangsUpAcrossTheTransportChange() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.TCP, Transport.UDP)) {
            u.alice().call(u.bob().aor(), u.server().address(Transport.UDP));
            u.bob().awaitRequest(Request.ACK, TestUa.TIMEOUT);

            Response ok = u.bob().hangUpAnswered().awaitFinal(TestUa.TIMEOUT);

            assertEquals(Response.OK, ok.getStatusCode());
            Request bye = u.alice().awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertProxyVia(bye, u.server(), Transport.UDP);
            assertEquals(u.alice().contactUri().toString(), bye.getRequestURI().toString());
        }
    }

    /**
     * The answering contact's 180 and 200 go upstream from their bytes when it is on the caller's
     * transport (UDP); from TCP to the UDP caller the stack relays them. The other contact only
     * answers 100 Trying, which is never relayed upstream (RFC 3261 §16.7 step 5) but lets the proxy
     * cancel its branch (§9.1), so that the count stays the answering contact's.
     */
    @ParameterizedTest(name = "answered over {0}")
    @EnumSource(value = Transport.class, names = {"TCP", "UDP"})
    void forkedCallIsAnsweredByOneContactAndCancelledAtTheOther(Transport answering) throws Exception {
        try (TestServer server = TestServer.start(dir);
             TestUa desk = TestUa.start("bob", Transport.TCP);
             TestUa mobile = TestUa.start("bob", answering);
             TestUa caller = TestUa.start("alice", Transport.UDP)) {
            desk.answer(Request.INVITE, new TestUa.Answer(List.of(Response.TRYING), 0));
            desk.registerAt(server.address(Transport.TCP));
            mobile.registerAt(server.address(answering));

            TestUa.Call call = caller.call(desk.aor(), server.address(Transport.UDP));

            // RFC 3261 §16.7 step 10: once a 2xx went upstream the other branches are cancelled
            desk.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            desk.awaitRequest(Request.CANCEL, TestUa.TIMEOUT);
            mobile.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(early(server, answering == Transport.UDP ? 2.0 : 0.0),
                    server.server().transportCounters().value("sip.responses.relayed_early"));
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            mobile.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertEquals(List.of(), desk.received(Request.BYE));
            Response answer = call.invite().await(Response.OK, TestUa.TIMEOUT);
            assertEquals(List.of(mobile.contactUri().toString()), TestUa.contacts(answer).stream()
                    .map(c -> c.getAddress().getURI().toString()).toList());
        }
    }

    private static void assertProxyVia(Request r, TestServer server, Transport t) {
        ViaHeader top = (ViaHeader) r.getHeader(ViaHeader.NAME);
        assertNotNull(top, r.toString());
        assertEquals(t.sipName(), top.getTransport().toUpperCase(java.util.Locale.ROOT), r.toString());
        assertEquals(server.address(t).getPort(), top.getPort(), r.toString());
        assertTrue(top.getBranch().startsWith("z9hG4bK"), top.getBranch());
    }

    private static String recordRoute(TestServer server, Transport t) {
        return "<sip:" + server.hostPort(t) + ";transport=" + t.configName() + ";lr>";
    }

    /**
     * Record-Route entries without this proxy's flow token (RFC 5626 §5.3): a callee registered over
     * a connection is reached on it, and the entry then carries the token, whose value varies.
     */
    private static List<String> withoutFlowTokens(List<String> routes) {
        return routes.stream().map(r -> r.replaceAll(";sc-flow=[A-Za-z0-9_-]+", "")).toList();
    }

    /**
     * What an early-relay counter reads after {@code withFastPath} messages went from their bytes:
     * that, or 0 when the server runs with {@code sip.fastPath=off} (the build's fast-path-off run).
     */
    private static double early(TestServer server, double withFastPath) {
        return server.config().fastPath() ? withFastPath : 0.0;
    }
}
