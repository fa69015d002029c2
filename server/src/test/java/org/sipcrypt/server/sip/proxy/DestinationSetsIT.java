package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.CallIdHeader;
import javax.sip.header.CSeqHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.FileTrees;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * Destination sets end to end: one proxy with two sets of two user agents each on loopback, standing in
 * for gateways ({@code gw}: a, then b) and PBXs ({@code pbx}: c, then d), probed with OPTIONS every
 * 200 ms. A route names {@code gw} for {@code example.org}, the default route {@code pbx}; a router
 * ({@code to-set}) names a set for users {@code set-NAME}. A second server, not probing, orders by
 * hash of the Call-ID with a Timer C of 1 s, for the hashed order, a failed connect and a silent
 * destination. Each case uses its own domain or user, so the cases do not meet; a case that takes a
 * destination down brings it back before it ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DestinationSetsIT {

    private static final String TOKEN = "0123456789abcdef0123456789abcdef-admin";
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final TestUa.Answer SILENT = new TestUa.Answer(List.of(), 0);

    private static Path dir;
    private static TestServer server;
    private static TestUa a;
    private static TestUa b;
    private static TestUa c;
    private static TestUa d;
    private static TestUa alice;
    /** A second server, hash-callid, no probing, Timer C 1 s, and its destinations. */
    private static Path plainDir;
    private static TestServer plain;
    private static TestUa e;
    private static TestUa f;
    private static SipSocket silent;
    private static int closedPort;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("destination-sets-it");
        a = TestUa.start("a", Transport.UDP);
        b = TestUa.start("b", Transport.UDP);
        c = TestUa.start("c", Transport.UDP);
        d = TestUa.start("d", Transport.UDP);
        alice = TestUa.start("alice", Transport.UDP);
        server = TestServer.start(dir, "http", "127.0.0.1:0", "admin.token", TOKEN,
                "destination", "gw=127.0.0.1:" + a.port() + ";priority=1",
                "destination", "gw=127.0.0.1:" + b.port() + ";priority=2",
                "destination", "pbx=127.0.0.1:" + c.port() + ";transport=udp;priority=1;weight=10",
                "destination", "pbx=127.0.0.1:" + d.port() + ";transport=udp;priority=5",
                "route", "example.org=set:gw", "defaultRoute", "set:pbx", "routing.router", "to-set",
                "destinations.probeInterval", "200ms", "destinations.probeDownAfter", "2",
                "destinations.probeUpAfter", "2");
        e = TestUa.start("e", Transport.UDP);
        f = TestUa.start("f", Transport.UDP);
        e.answer(Request.INVITE, TestUa.Answer.status(Response.BUSY_HERE));
        silent = SipSocket.udp(new java.net.InetSocketAddress("127.0.0.1", 9));
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            closedPort = s.getLocalPort();
        }
        plainDir = Files.createTempDirectory("destination-sets-plain-it");
        plain = TestServer.start(plainDir, "destinations.algorithm", "hash-callid", "destinations.probeInterval", "0",
                "proxy.timerC", "1s",
                "destination", "media=127.0.0.1:" + e.port(), "destination", "media=127.0.0.1:" + f.port(),
                "destination", "closed=127.0.0.1:" + closedPort + ";transport=tcp",
                "destination", "closed=127.0.0.1:" + f.port(),
                "destination", "slow=127.0.0.1:" + silent.localPort(), "destination", "slow=127.0.0.1:" + e.port(),
                "route", "media.test=set:media", "route", "closed.test=set:closed", "route", "slow.test=set:slow");
        // every destination answered its probes before a case starts
        Await.until(() -> probes(a) > 0 && probes(b) > 0 && probes(c) > 0 && probes(d) > 0, WAIT,
                () -> "no probe reached every destination");
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable x : new AutoCloseable[] {server, plain, alice, a, b, c, d, e, f, silent}) {
            if (x != null) {
                x.close();
            }
        }
        FileTrees.delete(dir);
        if (plainDir != null) {
            FileTrees.delete(plainDir);
        }
    }

    @Test
    void aCallToTheSetOfARouteFailsOverFromA503ToTheNextDestination() throws Exception {
        a.answer(Request.INVITE, TestUa.Answer.status(Response.SERVICE_UNAVAILABLE));
        int toA = a.received(Request.INVITE).size();
        int toB = b.received(Request.INVITE).size();
        double failovers = counter("destinations.failovers", a);
        try {
            TestUa.Call call = alice.call(alice.uri("bob", "example.org"), server.address(Transport.UDP));
            Request first = next(a, toA);
            Request second = next(b, toB);
            assertEquals("sip:bob@example.org", second.getRequestURI().toString());
            assertEquals(callId(first), callId(second));
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertEquals(failovers + 1, counter("destinations.failovers", a));
            assertEquals(List.of(), alice.errors());
            // one 503 does not take the destination down: the probes decide
            assertEquals(1.0, gauge(a));
        } finally {
            a.answer(Request.INVITE, TestUa.Answer.ringThenOk());
        }
    }

    @Test
    void aDestinationThatStopsAnsweringIsProbedDownAndSkippedThenProbedUpAgain() throws Exception {
        c.answer(Request.OPTIONS, SILENT);
        c.answer(Request.INVITE, SILENT);
        try {
            Await.until(() -> gauge(c) == 0.0, WAIT, () -> "c not probed down");
            JsonNode listed = admin();
            JsonNode pbx = listed.get("sets").get(1);
            assertEquals("pbx", pbx.get("name").asText());
            assertEquals("down", pbx.get("destinations").get(0).get("state").asText(), listed.toString());
            assertEquals("up", pbx.get("destinations").get(1).get("state").asText(), listed.toString());

            // the default route's set: c is skipped, the call goes straight to d
            int before = c.received(Request.INVITE).size();
            int toD = d.received(Request.INVITE).size();
            TestUa.Call call = alice.call(alice.uri("carol", "elsewhere.test"), server.address(Transport.UDP));
            next(d, toD);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertEquals(before, c.received(Request.INVITE).size(), "a destination that is down is not tried");
        } finally {
            c.answer(Request.OPTIONS, TestUa.Answer.status(Response.OK));
            c.answer(Request.INVITE, TestUa.Answer.ringThenOk());
        }
        Await.until(() -> gauge(c) == 1.0, WAIT, () -> "c not probed up again");
        assertEquals("up", admin().get("sets").get(1).get("destinations").get(0).get("state").asText());
    }

    @Test
    void aRouterDecidingASetSendsTheCallThere() throws Exception {
        double before = counter("destinations.requests", a);
        int toA = a.received(Request.INVITE).size();
        TestUa.Call call = alice.call(alice.uri("set-gw", "127.0.0.1"), server.address(Transport.UDP));
        Request invite = next(a, toA);
        assertEquals("set-gw", ((javax.sip.address.SipURI) invite.getRequestURI()).getUser());
        assertEquals(Response.OK, call.hangUp().getStatusCode());
        assertEquals(before + 1, counter("destinations.requests", a));
    }

    @Test
    void aRouterNamingASetNotConfiguredGets500() throws Exception {
        TestUa.Call call = alice.invite(alice.uri("set-nothing", "127.0.0.1"), server.address(Transport.UDP));
        assertEquals(Response.SERVER_INTERNAL_ERROR, call.invite().awaitFinal(WAIT).getStatusCode());
    }

    @Test
    void hashCallIdSendsEveryRequestOfOneCallIdToTheSameDestination() throws Exception {
        for (String callId : List.of("first-call@test", "second-call@test", "third-call@test")) {
            int beforeE = e.received(Request.MESSAGE).size();
            int beforeF = f.received(Request.MESSAGE).size();
            for (int i = 1; i <= 3; i++) {
                assertEquals(Response.OK, message("media.test", callId, i));
            }
            int toE = e.received(Request.MESSAGE).size() - beforeE;
            int toF = f.received(Request.MESSAGE).size() - beforeF;
            assertTrue(toE == 3 && toF == 0 || toE == 0 && toF == 3,
                    callId + ": " + toE + " to e, " + toF + " to f (expected all three to one)");
        }
    }

    @Test
    void aDestinationWhoseConnectFailsIsFailedOver() throws Exception {
        // hash-callid on set closed = [closed tcp port, f]: a Call-ID whose hash picks the closed port first
        String callId = firstOfTwo("closed");
        int beforeF = f.received(Request.MESSAGE).size();
        assertEquals(Response.OK, message("closed.test", callId, 1));
        assertEquals(beforeF + 1, f.received(Request.MESSAGE).size());
        assertEquals(1.0, plain.server().registry().get("destinations.failovers")
                .tag("destination", "127.0.0.1:" + closedPort + "/tcp").functionCounter().count());
    }

    @Test
    void aDestinationSilentUntilTimerCIsFailedOver() throws Exception {
        // set slow = [a socket that never answers, e], Timer C 1 s; e answers this INVITE 486
        String callId = firstOfTwo("slow");
        try (SipSocket caller = SipSocket.udp(plain.address(Transport.UDP))) {
            caller.send(caller.request("INVITE", "sip:bob@slow.test", "alice", "bob@slow.test", callId, 1,
                    caller.contact("alice")));
            assertNotNull(silent.awaitMessage("INVITE ", WAIT), "the first destination got no INVITE");
            String answer = caller.awaitMessage("SIP/2.0 486", WAIT);
            assertNotNull(answer, "the second destination's 486 did not come back after Timer C");
        }
    }

    /** A Call-ID that hash-callid sends to the first of a set's two destinations. */
    private static String firstOfTwo(String set) {
        for (int i = 0; ; i++) {
            // SipSocket writes the Call-ID into its Via branch: no '@'
            String callId = set + "-call-" + i;
            if (Math.floorMod(DestinationSet.hash(callId), 2) == 0) {
                return callId;
            }
        }
    }

    /** A MESSAGE from alice to {@code domain} through the second server, with this Call-ID and CSeq; its final status. */
    private static int message(String domain, String callId, int cseq) throws Exception {
        Request m = alice.newRequest(Request.MESSAGE, alice.uri("ann", domain), plain.address(Transport.UDP));
        ((CallIdHeader) m.getHeader(CallIdHeader.NAME)).setCallId(callId);
        ((CSeqHeader) m.getHeader(CSeqHeader.NAME)).setSeqNumber(cseq);
        return alice.send(m).awaitFinal(WAIT).getStatusCode();
    }

    /** The INVITE a user agent receives after the {@code before} it had. */
    private static Request next(TestUa ua, int before) throws InterruptedException {
        return ua.awaitRequests(Request.INVITE, before + 1, WAIT).get(before);
    }

    private static String callId(Request r) {
        return ((CallIdHeader) r.getHeader(CallIdHeader.NAME)).getCallId();
    }

    private static String label(TestUa ua) {
        return "127.0.0.1:" + ua.port() + "/udp";
    }

    private static MeterRegistry registry() {
        return server.server().registry();
    }

    private static double gauge(TestUa ua) {
        return registry().get("destinations.up").tag("destination", label(ua)).gauge().value();
    }

    private static double counter(String name, TestUa ua) {
        return registry().get(name).tag("destination", label(ua)).functionCounter().count();
    }

    private static double probes(TestUa ua) {
        return ua.received(Request.OPTIONS).size();
    }

    private static JsonNode admin() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + server.server().httpAddress().getPort() + "/admin/destinations"))
                .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return new ObjectMapper().readTree(r.body());
    }
}
