package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Strict routers (RFC 2543) on either side of the real proxy, over UDP and TCP, with in-dialog
 * requests written by hand and read where the proxy sends them. A strict router before us puts our
 * Record-Route URI in the Request-URI and the dialog's remote target last in Route: the proxy
 * takes that last entry back as the Request-URI (RFC 3261 §16.4) and routes on, to the target or
 * to a loose router after it. A strict router after us (a Route entry without {@code lr}) gets its
 * URI as the Request-URI and the Request-URI as the last Route (§16.6 step 6, §12.2.1.1). Whichever
 * path carries them (with {@code sip.fastPath} on the byte path declines all of these, and the
 * counter shows it), the next hop sees the request RFC 3261 asks for. One server serves every case;
 * the class runs in the {@code fast-path-off} execution too.
 * Threading: JUnit's test thread.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class StrictRoutingIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    static Path dir;

    private TestServer server;
    private int calls;

    @BeforeAll
    void start() throws Exception {
        server = TestServer.start(dir);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void requestFromAStrictRouterGoesToTheLastRouteWhichIsTakenOff(Transport t) throws Exception {
        try (SipSocket caller = server.socket(t); SipSocket bob = next(t)) {
            double before = relayedEarly();
            String callId = callId(t);
            String target = uri("bob@", bob, t, "");
            // what a strict router sends on: our Record-Route URI as the Request-URI, the target last
            String ack = inDialog(caller, "ACK", ours(t), callId, 1, "Route: <" + target + ">\r\n");
            caller.send(ack);
            String ackAtBob = bob.awaitMessage("ACK ", WAIT);
            assertNotNull(ackAtBob, "the ACK reached the target");
            assertEquals("ACK " + target + " SIP/2.0", startLine(ackAtBob), ackAtBob);
            assertEquals(List.of(), headers(ackAtBob, "Route"), "§16.4: the last Route is the Request-URI now");
            assertEquals(List.of("69"), headers(ackAtBob, "Max-Forwards"), ackAtBob);

            String bye = inDialog(caller, "BYE", ours(t), callId, 2, "Route: <" + target + ">\r\n");
            caller.send(bye);
            String byeAtBob = bob.awaitMessage("BYE ", WAIT);
            assertNotNull(byeAtBob, "the BYE reached the target");
            assertEquals("BYE " + target + " SIP/2.0", startLine(byeAtBob), byeAtBob);
            assertEquals(List.of(), headers(byeAtBob, "Route"), byeAtBob);
            assertTrue(headers(byeAtBob, "Via").get(0).startsWith("SIP/2.0/" + t.sipName() + " "
                    + server.hostPort(t) + ";branch=z9hG4bK"), byeAtBob);
            bob.send(SipSocket.response(byeAtBob, "200 OK"));
            String answer = caller.awaitMessage("SIP/2.0 200", WAIT);
            assertNotNull(answer, "the target's 200 came back to the caller");
            assertEquals(List.of("2 BYE"), headers(answer, "CSeq"), answer);
            assertEquals(before, relayedEarly(), "not relayed from its bytes");
        }
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void requestFromAStrictRouterGoesThroughTheLooseRouterAfterUsWithTheTargetAsRequestUri(Transport t)
            throws Exception {
        try (SipSocket caller = server.socket(t); SipSocket loose = next(t)) {
            double before = relayedEarly();
            String target = "sip:bob@127.0.0.3:5999" + (t == Transport.TCP ? ";transport=tcp" : "");
            String looseRoute = "<" + uri("", loose, t, ";lr") + ">";
            String bye = inDialog(caller, "BYE", ours(t), callId(t), 2,
                    "Route: " + looseRoute + ", <" + target + ">\r\n");
            caller.send(bye);

            String atLoose = loose.awaitMessage("BYE ", WAIT);
            assertNotNull(atLoose, "the BYE reached the loose router after us");
            assertEquals("BYE " + target + " SIP/2.0", startLine(atLoose), atLoose);
            assertEquals(List.of(looseRoute), routes(atLoose), "its own entry on top, the target's taken off");
            loose.send(SipSocket.response(atLoose, "200 OK"));
            assertNotNull(caller.awaitMessage("SIP/2.0 200", WAIT), "the 200 came back to the caller");
            assertEquals(before, relayedEarly(), "not relayed from its bytes");
        }
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void requestToAStrictRouterCarriesItsUriAndTheTargetAsLastRoute(Transport t) throws Exception {
        try (SipSocket caller = server.socket(t); SipSocket strict = next(t)) {
            double before = relayedEarly();
            String callId = callId(t);
            String target = "sip:bob@127.0.0.3:5999" + (t == Transport.TCP ? ";transport=tcp" : "");
            String strictUri = uri("", strict, t, "");
            String routeSet = "Route: <" + ours(t) + ">, <" + strictUri + ">\r\n";
            caller.send(inDialog(caller, "ACK", target, callId, 1, routeSet));
            String ack = strict.awaitMessage("ACK ", WAIT);
            assertNotNull(ack, "the ACK reached the strict router");
            assertEquals("ACK " + strictUri + " SIP/2.0", startLine(ack), ack);
            assertEquals(List.of("<" + target + ">"), routes(ack), "§16.6 step 6: the Request-URI last");

            caller.send(inDialog(caller, "BYE", target, callId, 2, routeSet));
            String bye = strict.awaitMessage("BYE ", WAIT);
            assertNotNull(bye, "the BYE reached the strict router");
            assertEquals("BYE " + strictUri + " SIP/2.0", startLine(bye), bye);
            assertEquals(List.of("<" + target + ">"), routes(bye), bye);
            assertEquals(List.of("69"), headers(bye, "Max-Forwards"), bye);
            strict.send(SipSocket.response(bye, "200 OK"));
            assertNotNull(caller.awaitMessage("SIP/2.0 200", WAIT), "the 200 came back to the caller");
            assertEquals(before, relayedEarly(), "not relayed from its bytes");
        }
    }

    /** The next hop: a socket the proxy reaches over {@code t} (over TCP, on the connection it opened to the server). */
    private SipSocket next(Transport t) throws Exception {
        SipSocket s = server.socket(t);
        if (t == Transport.TCP) {
            s.awaitTakenIn(WAIT);
        }
        return s;
    }

    /** Our Record-Route URI over {@code t}, as the proxy writes it. */
    private String ours(Transport t) {
        return "sip:" + server.hostPort(t) + ";transport=" + t.sipName().toLowerCase(Locale.ROOT) + ";lr";
    }

    /** {@code sip:USER127.0.0.1:port} of {@code s}, with {@code transport=tcp} over TCP and {@code params}. */
    private static String uri(String user, SipSocket s, Transport t, String params) {
        return "sip:" + user + s.localHost() + ":" + s.localPort() + (t == Transport.TCP ? ";transport=tcp" : "")
                + params;
    }

    private String callId(Transport t) {
        return "strict-" + t.sipName() + "-" + (++calls) + "-" + ProcessHandle.current().pid();
    }

    /** A request from alice (tag alice-tag) to bob (tag callee) within the dialog {@code callId}. */
    private static String inDialog(SipSocket caller, String method, String requestUri, String callId, int cseq,
                                   String extra) {
        return caller.request(method, requestUri, "alice", "bob@127.0.0.1", callId, cseq, extra)
                .replace("To: <sip:bob@127.0.0.1>", "To: <sip:bob@127.0.0.1>;tag=callee");
    }

    private double relayedEarly() {
        return server.server().transportCounters().value("sip.requests.relayed_early");
    }

    private static String startLine(String message) {
        return message.substring(0, message.indexOf("\r\n"));
    }

    /** The Route entries of a message, one per element, whether on one line or several. */
    private static List<String> routes(String message) {
        List<String> entries = new ArrayList<>();
        for (String value : headers(message, "Route")) {
            for (String entry : value.split(",")) {
                entries.add(entry.trim());
            }
        }
        return entries;
    }

    /** The values of the header lines named {@code name}, in order. */
    private static List<String> headers(String message, String name) {
        return message.substring(0, message.indexOf("\r\n\r\n")).lines()
                .filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).toList();
    }
}
