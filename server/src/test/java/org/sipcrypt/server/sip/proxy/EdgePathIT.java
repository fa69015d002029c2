package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.auth.FlowTokens;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * This server as the edge proxy of a phone's REGISTER (RFC 3327 §5.2, RFC 5626 §5.1), over real
 * sockets on loopback addresses of their own: the edge on 127.0.0.2 routes {@code example.com} over
 * TCP to a second server, its registrar, which trusts the edge for Path ({@code auth.pathPeers}). A
 * phone on 127.0.0.3 registers over TCP through the edge as a phone behind a NAT does: its Via names
 * another port than its connection's, and its Contact a loopback port nobody listens on. The edge adds its Path with the flow token of the phone's connection, the registrar stores
 * and echoes it, and a call to the phone goes from the registrar to the edge by that Path and from the
 * edge down the phone's own connection. Once the phone has closed it, a call gets 430 Flow Failed. A
 * phone behind a NAT that does not list {@code Supported: path} is answered 421 by the edge; an
 * outbound phone's Path entry carries {@code ob}.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EdgePathIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Where the phones' Contacts point: a loopback port nobody listens on, so only their flows reach them. */
    private static final String UNREACHABLE = "127.0.0.9:9";

    @TempDir
    Path dirEdge;

    @TempDir
    Path dirRegistrar;

    @Test
    void aPhoneRegisteredThroughThisEdgeIsCalledOverItsConnectionAndGets430OnceItClosed() throws Exception {
        InetAddress phoneHost = InetAddress.getByName("127.0.0.3");
        try (TestServer registrar = TestServer.start(dirRegistrar, "domain", "example.com",
                "listen", "udp:127.0.0.1:0", "listen", "tcp:127.0.0.1:0", "auth.pathPeers", "127.0.0.2");
             TestServer edge = TestServer.start(dirEdge, "listen", "udp:127.0.0.2:0", "listen", "tcp:127.0.0.2:0",
                     "route", "example.com=" + registrar.hostPort(Transport.TCP) + ";transport=tcp");
             SipSocket caller = SipSocket.udp(registrar.address(Transport.UDP))) {
            try (SipSocket phone = SipSocket.tcpFrom(phoneHost, edge.address(Transport.TCP))) {
                String ok = phone.exchange(behindNat(phone, phone.request("REGISTER", "sip:example.com", "bob",
                        "bob@example.com", "edge-reg-1", 1, "Contact: <sip:bob@" + UNREACHABLE
                                + ";transport=tcp>\r\nExpires: 600\r\nSupported: path\r\n")), "SIP/2.0 200", WAIT);
                List<String> path = headerLines(ok, "Path:");
                assertEquals(1, path.size(), ok);
                assertTrue(path.get(0).contains("sip:" + edge.hostPort(Transport.TCP)) && path.get(0).contains(";lr")
                        && path.get(0).contains(";" + FlowTokens.PARAM + "="), ok);
                assertEquals(1.0, count(edge, "sip.proxy.path", "added"));
                assertEquals(1.0, count(registrar, "sip.registrations.path", "stored"));

                caller.send(caller.request("INVITE", "sip:bob@example.com", "alice", "bob@example.com",
                        "edge-call-1", 1, caller.contact("alice")));
                String invite = phone.awaitMessage("INVITE ", WAIT);
                assertNotNull(invite, "the INVITE reaches bob over the connection he registered on");
                assertTrue(invite.startsWith("INVITE sip:bob@" + UNREACHABLE + ";transport=tcp SIP/2.0"), invite);
                phone.send(SipSocket.response(invite, "486 Busy Here"));
                assertNotNull(caller.awaitMessage("SIP/2.0 486", WAIT), "the caller gets bob's answer");
            }
            // bob's connection has closed: his flow was required (a NAT was seen), so no Contact is tried
            caller.send(caller.request("INVITE", "sip:bob@example.com", "alice", "bob@example.com",
                    "edge-call-2", 1, caller.contact("alice")));
            assertNotNull(caller.awaitMessage("SIP/2.0 430", WAIT), "a call to a closed flow gets 430 Flow Failed");

            // an outbound phone (reg-id): the edge marks its Path entry ob, and the registrar answers Require: outbound
            try (SipSocket phone = SipSocket.tcpFrom(phoneHost, edge.address(Transport.TCP))) {
                String ok = phone.exchange(phone.request("REGISTER", "sip:example.com", "dave", "dave@example.com",
                        "edge-reg-3", 1, "Contact: <sip:dave@" + UNREACHABLE + ";transport=tcp;ob>;reg-id=1"
                                + ";+sip.instance=\"<urn:uuid:00000000-0000-4000-8000-00000000000d>\"\r\n"
                                + "Expires: 600\r\nSupported: path, outbound\r\n"), "SIP/2.0 200", WAIT);
                List<String> path = headerLines(ok, "Path:");
                assertEquals(1, path.size(), ok);
                assertTrue(path.get(0).contains(";ob;") || path.get(0).contains(";ob>"), ok);
                assertEquals(List.of("outbound"), headerLines(ok, "Require:"), ok);
            }
        }
    }

    @Test
    void aPhoneBehindANatThatDoesNotSupportPathIsAnswered421() throws Exception {
        InetAddress phoneHost = InetAddress.getByName("127.0.0.3");
        try (TestServer registrar = TestServer.start(dirRegistrar, "domain", "example.com",
                "listen", "tcp:127.0.0.1:0", "auth.pathPeers", "127.0.0.2");
             TestServer edge = TestServer.start(dirEdge, "listen", "tcp:127.0.0.2:0",
                     "route", "example.com=" + registrar.hostPort(Transport.TCP) + ";transport=tcp");
             SipSocket phone = SipSocket.tcpFrom(phoneHost, edge.address(Transport.TCP))) {
            String refused = phone.exchange(behindNat(phone, phone.request("REGISTER", "sip:example.com", "carol",
                    "carol@example.com", "edge-reg-2", 1, "Contact: <sip:carol@" + UNREACHABLE
                            + ";transport=tcp>\r\nExpires: 600\r\n")), "SIP/2.0 421", WAIT);
            assertEquals(List.of("path"), headerLines(refused, "Require:"), refused);
            assertEquals(1.0, count(edge, "sip.proxy.path", "refused_extension_required"));
        }
    }

    /**
     * {@code request} as a phone behind a NAT writes it: its Via names the port it has on its own
     * network (5062), not the one its connection has here (Kamailio's {@code rport} test).
     */
    private static String behindNat(SipSocket phone, String request) {
        String own = phone.localHost() + ":" + phone.localPort() + ";branch=";
        assertTrue(request.contains(own), request);
        return request.replace(own, phone.localHost() + ":5062;branch=");
    }

    private static List<String> headerLines(String message, String name) {
        return message.lines().filter(l -> l.regionMatches(true, 0, name, 0, name.length()))
                .map(l -> l.substring(name.length()).trim()).toList();
    }

    private static double count(TestServer server, String name, String result) {
        var c = server.server().registry().find(name).tag("result", result).counter();
        return c == null ? 0 : c.count();
    }
}
