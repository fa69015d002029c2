package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.SipHeaders;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.Transport;

/**
 * A server listening as deployed ones do: on a wildcard address with the address peers reach
 * advertised in Via and Record-Route (a cloud VM, a container with a published port), and on several
 * addresses of one transport, each request leaving by the listener of its destination's family.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ListenerAddressesIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    /**
     * On {@code 0.0.0.0} (or dual-stack {@code ::}) advertising {@code sip.example.test:15060}: the
     * server answers OPTIONS sent to 127.0.0.1 and to its advertised name, takes a registration for
     * the advertised domain, and the INVITE it forwards carries the advertised name and port in its
     * Via and Record-Route; the callee's answer, sent where the packet came from as a peer that
     * resolved the name would, comes back to the caller.
     */
    @ParameterizedTest(name = "listening on {0}")
    @ValueSource(strings = {"0.0.0.0", "[::]"})
    void wildcardListenerAnswersOnLoopbackAndAdvertisesItsName(String wildcard) throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", "udp:" + wildcard + ":0;advertise=sip.example.test:15060");
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            Listener l = server.server().listeners().get(0);
            assertTrue(l.wildcard(), l.toString());
            assertEquals("sip.example.test:15060", l.sentBy());
            InetSocketAddress v4 = new InetSocketAddress("127.0.0.1", l.bound().getPort());
            try (SipSocket bob = SipSocket.udp(v4)) {
                bob.exchange(bob.request("OPTIONS", "sip:127.0.0.1:" + v4.getPort(), "bob", "127.0.0.1", "o1", 1, ""),
                        "SIP/2.0 200", WAIT);
                bob.exchange(bob.request("OPTIONS", "sip:sip.example.test:15060", "bob", "sip.example.test", "o2", 1, ""),
                        "SIP/2.0 200", WAIT);
                bob.exchange(bob.request("REGISTER", "sip:sip.example.test", "bob", "bob@sip.example.test", "r1", 1,
                        bob.contact("bob") + "Expires: 300\r\n"), "SIP/2.0 200", WAIT);

                TestUa.Call call = alice.invite(alice.uri("bob", "sip.example.test"), v4);
                String invite = bob.awaitMessage("INVITE ", WAIT);
                assertNotNull(invite, "the INVITE did not reach the callee");
                List<String> vias = values(invite, "Via");
                assertTrue(vias.get(0).startsWith("SIP/2.0/UDP sip.example.test:15060;branch=z9hG4bK"), vias.toString());
                assertEquals(List.of("<sip:sip.example.test:15060;transport=udp;lr>"), values(invite, "Record-Route"));

                bob.send(SipSocket.response(invite, "486 Busy Here"));
                assertEquals(Response.BUSY_HERE, call.invite().awaitFinal(WAIT).getStatusCode());
                assertNotNull(bob.awaitMessage("ACK ", WAIT), "the proxy acknowledges the 486 hop by hop");
            }
            if (wildcard.equals("[::]")) {
                // the dual-stack socket answers IPv6 peers as well
                try (SipSocket six = SipSocket.udp(new InetSocketAddress("::1", l.bound().getPort()))) {
                    six.exchange(six.request("OPTIONS", "sip:[::1]:" + l.bound().getPort(), "carol", "[::1]", "o3", 1, ""),
                            "SIP/2.0 200", WAIT);
                }
            }
            assertEquals(List.of(), alice.errors());
        }
    }

    /**
     * A whole call through a listener on {@code 0.0.0.0} that advertises another of the machine's
     * addresses: the caller reaches it on 127.0.0.1, the callee and then both parties' in-dialog
     * requests (the ACK and BYE, relayed from their bytes over UDP) on the advertised 127.0.0.3.
     */
    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void callThroughWildcardListenerFollowsTheAdvertisedAddress(Transport t) throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", t.configName() + ":0.0.0.0:0;advertise=127.0.0.3");
             TestUa bob = TestUa.start("bob", t);
             TestUa alice = TestUa.start("alice", t)) {
            int port = server.server().listeners().get(0).bound().getPort();
            InetSocketAddress proxy = new InetSocketAddress("127.0.0.1", port);
            bob.registerAt(proxy);

            TestUa.Call call = alice.call(bob.aor(), proxy);
            Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals("127.0.0.3:" + port, SipHeaders.vias(invite).get(0));
            // a TCP callee is reached on its registration connection, named by a flow token
            assertEquals(List.of("<sip:127.0.0.3:" + port + ";transport=" + t.configName() + ";lr>"),
                    SipHeaders.recordRoutes(invite).stream().map(r -> r.replaceAll(";sc-flow=[^;>]*", "")).toList());
            assertEquals(Response.OK, call.invite().await(Response.OK, TestUa.TIMEOUT).getStatusCode());

            Request ack = bob.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals("127.0.0.3:" + port, SipHeaders.vias(ack).get(0));
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            Request bye = bob.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            assertEquals("127.0.0.3:" + port, SipHeaders.vias(bye).get(0));
            // over TCP the callee's flow makes the stack route the ACK and the BYE (the byte path does
            // not route flows yet)
            assertEquals(t == Transport.UDP && server.fastPath() ? 2.0 : 0.0,
                    server.server().transportCounters().value("sip.requests.relayed_early"),
                    "the ACK and the BYE came in on the advertised address, relayed from their bytes over UDP");
            assertEquals(List.of(), bob.errors());
            assertEquals(List.of(), alice.errors());
        }
    }

    /**
     * Two UDP listeners, 127.0.0.1 and 127.0.0.2: both answer; a caller using the second reaches a
     * callee registered through the first, the INVITE leaving by the first listener of its
     * destination's family with one Record-Route entry per listener crossed (RFC 5658), and the call
     * ends with BYE.
     */
    @Test
    void twoUdpListenersBothAnswerAndACallCrossesThem() throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", "udp:127.0.0.1:0", "listen", "udp:127.0.0.2:0");
             TestUa bob = TestUa.start("bob", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            List<Listener> ls = server.server().listeners();
            assertEquals(2, ls.size());
            for (Listener l : ls) {
                try (SipSocket s = SipSocket.udp(l.bound())) {
                    s.exchange(s.request("OPTIONS", "sip:" + l.sentBy(), "carol", l.sentByHost(), "o-" + l.sentByHost(), 1,
                            ""), "SIP/2.0 200", WAIT);
                }
            }
            Listener first = ls.get(0);
            Listener second = ls.get(1);
            bob.registerAt(first.bound());

            TestUa.Call call = alice.call(bob.aor(), second.bound());
            Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals(first.sentBy(), SipHeaders.vias(invite).get(0));
            assertEquals(List.of("<sip:" + first.sentBy() + ";transport=udp;lr>",
                    "<sip:" + second.sentBy() + ";transport=udp;lr>"), SipHeaders.recordRoutes(invite));
            assertEquals(Response.OK, call.invite().await(Response.OK, TestUa.TIMEOUT).getStatusCode());
            bob.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertNotNull(bob.awaitRequest(Request.BYE, TestUa.TIMEOUT));
            assertEquals(List.of(), bob.errors());
            assertEquals(List.of(), alice.errors());
        }
    }

    /**
     * UDP on 127.0.0.1 and on {@code [::1]}: a caller on IPv4 reaches a callee registered with an IPv6
     * contact; the INVITE leaves by the IPv6 listener, its Via names that one, and it is record-routed
     * on both.
     */
    @Test
    void requestLeavesByTheListenerOfItsDestinationsFamily() throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", "udp:127.0.0.1:0", "listen", "udp:[::1]:0",
                "domain", "example.test");
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            Listener v4 = server.server().listeners().get(0);
            Listener v6 = server.server().listeners().get(1);
            try (SipSocket bob = SipSocket.udp(v6.bound())) {
                bob.exchange(bob.request("REGISTER", "sip:example.test", "bob", "bob@example.test", "r6", 1,
                        bob.contact("bob") + "Expires: 300\r\n"), "SIP/2.0 200", WAIT);

                TestUa.Call call = alice.invite(alice.uri("bob", "example.test"), v4.bound());
                String invite = bob.awaitMessage("INVITE ", WAIT);
                assertNotNull(invite, "the INVITE did not reach the IPv6 callee");
                assertTrue(values(invite, "Via").get(0).startsWith("SIP/2.0/UDP " + v6.sentBy() + ";"),
                        values(invite, "Via").toString());
                assertEquals(List.of("<sip:" + v6.sentBy() + ";transport=udp;lr>",
                        "<sip:" + v4.sentBy() + ";transport=udp;lr>"), values(invite, "Record-Route"));
                bob.send(SipSocket.response(invite, "486 Busy Here"));
                assertEquals(Response.BUSY_HERE, call.invite().awaitFinal(WAIT).getStatusCode());
            }
            assertEquals(List.of(), alice.errors());
        }
    }

    /** The values of every header line {@code name} in a message's text, in order, a line of several split at its commas. */
    private static List<String> values(String message, String name) {
        List<String> out = new ArrayList<>();
        String prefix = name.toLowerCase(Locale.ROOT) + ":";
        for (String line : message.split("\r\n")) {
            if (line.isEmpty()) {
                break;
            }
            if (line.toLowerCase(Locale.ROOT).startsWith(prefix)) {
                for (String value : line.substring(prefix.length()).split(",")) {
                    out.add(value.trim());
                }
            }
        }
        return out;
    }
}
