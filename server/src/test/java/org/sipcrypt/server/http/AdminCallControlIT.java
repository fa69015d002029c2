package org.sipcrypt.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.BobAndAlice;
import org.sipcrypt.server.testing.SipHeaders;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * The management API acting on calls and on the server, over real HTTP against a real proxy and
 * real user agents: an established call is listed, re-INVITEd, and then ended by {@code DELETE
 * /admin/calls}, both parties receiving a BYE of their dialog (the callee's CSeq above the caller's
 * re-INVITE) and the call's record saying the operator ended it; a call through two proxies ended by
 * the second, whose BYE to the caller goes back through the first;
 * {@code POST /admin/routes/reload} sends the next request to the route of the changed file, and a
 * bad file is refused with the old routes kept; a reload that changes a destination set's destination
 * sends the next call to the new one and drops the old one's meters, and a file whose route names a set
 * it lacks is refused with the old sets kept; {@code POST /admin/drain} refuses a new INVITE with
 * 503 while the BYE of a call already up goes through, one stream listener stops accepting
 * connections, and {@code POST /admin/stop} stops the server. Nothing is answered without the token.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdminCallControlIT {

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String TOKEN = "0123456789abcdef0123456789abcdef-calls";
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build();
    private static final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void anEstablishedCallIsListedThenEndedWithAByeToEachParty() throws Exception {
        // over UDP; the BYE over a caller's connection is the next test's (B to A over TCP)
        Transport t = Transport.UDP;
        Path cdrs = dir.resolve("cdr.jsonl");
        try (BobAndAlice u = BobAndAlice.start(dir.resolve("data"), t, t, "http", "127.0.0.1:0",
                "admin.token", TOKEN, "cdr.sink", "jsonl", "cdr.file", cdrs.toString())) {
            String base = base(u.server());
            TestUa.Call call = u.alice().call(u.bob().aor(), u.server().address(t));
            u.bob().awaitRequest(Request.ACK, WAIT);
            Request invite = call.invite().request();
            String callId = ((CallIdHeader) invite.getHeader(CallIdHeader.NAME)).getCallId();
            String aliceTag = ((FromHeader) invite.getHeader(FromHeader.NAME)).getTag();
            long inviteCSeq = ((CSeqHeader) invite.getHeader(CSeqHeader.NAME)).getSeqNumber();

            assertEquals(401, send(HttpRequest.newBuilder(URI.create(base + "/admin/calls")).GET()).statusCode());
            assertEquals(401, send(HttpRequest.newBuilder(URI.create(base + "/admin/calls?callId=" + enc(callId)))
                    .DELETE()).statusCode());

            JsonNode listed = json(send(authorized(base, "/admin/calls").GET()), 200);
            assertEquals(1, listed.get("calls").size(), listed.toString());
            assertEquals(false, listed.get("truncated").asBoolean(), listed.toString());
            JsonNode c = listed.get("calls").get(0);
            assertEquals(callId, c.get("callId").asText());
            assertEquals("sip:alice@127.0.0.1", c.get("caller").asText(), c.toString());
            assertEquals("sip:bob@127.0.0.1", c.get("callee").asText(), c.toString());
            assertEquals(t.configName(), c.get("inTransport").asText(), c.toString());
            assertEquals(t.configName(), c.get("outTransport").asText(), c.toString());
            assertNotNull(c.get("answer").textValue(), c.toString());
            assertEquals(1, json(send(authorized(base, "/admin/calls?aor=" + enc("sip:bob@127.0.0.1")).GET()), 200)
                    .get("calls").size());
            assertEquals(0, json(send(authorized(base, "/admin/calls?aor=" + enc("sip:carol@127.0.0.1")).GET()), 200)
                    .get("calls").size());
            assertEquals(0, json(send(authorized(base, "/admin/calls?callId=other").GET()), 200).get("calls").size());
            JsonNode limited = json(send(authorized(base, "/admin/calls?limit=1").GET()), 200);
            assertEquals(1, limited.get("calls").size(), limited.toString());
            assertEquals(400, send(authorized(base, "/admin/calls?limit=0").GET()).statusCode());
            assertEquals(400, send(authorized(base, "/admin/calls").DELETE()).statusCode(), "DELETE without callId");

            // a re-INVITE of the caller raises the CSeq the proxy's BYE to the callee must exceed
            org.sipcrypt.server.testing.SipExchange reInvite = u.alice().sendInDialog(call.invite().dialog(), Request.INVITE);
            assertEquals(Response.OK, reInvite.awaitFinal(WAIT).getStatusCode());
            u.bob().awaitRequests(Request.ACK, 2, WAIT);
            long reInviteCSeq = ((CSeqHeader) reInvite.request().getHeader(CSeqHeader.NAME)).getSeqNumber();
            assertTrue(reInviteCSeq > inviteCSeq);

            JsonNode ended = json(send(authorized(base, "/admin/calls?callId=" + enc(callId)).DELETE()), 200);
            JsonNode e = ended.get("ended").get(0);
            assertTrue(e.get("byeToCaller").asBoolean(), ended.toString());
            assertTrue(e.get("byeToCallee").asBoolean(), ended.toString());

            // each party gets a BYE of its own dialog: tags the right way round, CSeq above the re-INVITE's
            Request toBob = u.bob().awaitRequest(Request.BYE, WAIT);
            Request toAlice = u.alice().awaitRequest(Request.BYE, WAIT);
            assertEquals(callId, ((CallIdHeader) toBob.getHeader(CallIdHeader.NAME)).getCallId());
            assertEquals(aliceTag, ((FromHeader) toBob.getHeader(FromHeader.NAME)).getTag(), toBob.toString());
            assertEquals(aliceTag, ((ToHeader) toAlice.getHeader(ToHeader.NAME)).getTag(), toAlice.toString());
            assertEquals(((ToHeader) toBob.getHeader(ToHeader.NAME)).getTag(),
                    ((FromHeader) toAlice.getHeader(FromHeader.NAME)).getTag());
            assertTrue(((CSeqHeader) toBob.getHeader(CSeqHeader.NAME)).getSeqNumber() > reInviteCSeq, toBob.toString());
            assertNotNull(toBob.getHeader("Reason"), toBob.toString());
            assertEquals(List.of(), u.bob().errors());
            assertEquals(List.of(), u.alice().errors());

            assertEquals(0, json(send(authorized(base, "/admin/calls").GET()), 200).get("calls").size());
            assertEquals(404, send(authorized(base, "/admin/calls?callId=" + enc(callId)).DELETE()).statusCode());
            JsonNode record = awaitRecord(cdrs, callId);
            assertEquals("admin", record.get("ended_by").asText(), record.toString());
            // the routes were not read from a file
            JsonNode noFile = json(send(authorized(base, "/admin/routes/reload").POST(HttpRequest.BodyPublishers.noBody())),
                    409);
            assertTrue(noFile.get("reason").asText().contains("without a configuration file"), noFile.toString());
        }
    }

    @Test
    void theSecondProxysByesFollowTheRouteSetBackThroughTheFirst() throws Exception {
        // alice -> A -> B -> bob; B ends the call: bob's BYE goes straight, alice's through A
        try (TestServer b = TestServer.start(dir.resolve("b"), "domain", "example.com", "http", "127.0.0.1:0",
                "admin.token", TOKEN);
             TestServer a = TestServer.start(dir.resolve("a"), "route",
                     "example.com=" + b.hostPort(Transport.TCP) + ";transport=tcp");
             TestUa bob = TestUa.start("bob", "example.com", Transport.TCP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            assertEquals(Response.OK, bob.register(b.address(Transport.TCP), 600).getStatusCode());
            TestUa.Call call = alice.call(bob.aor(), a.address(Transport.UDP));
            bob.awaitRequest(Request.ACK, WAIT);
            String callId = ((CallIdHeader) call.invite().request().getHeader(CallIdHeader.NAME)).getCallId();

            JsonNode ended = json(send(authorized(base(b), "/admin/calls?callId=" + enc(callId)).DELETE()), 200);
            assertTrue(ended.get("ended").get(0).get("byeToCaller").asBoolean(), ended.toString());

            Request toAlice = alice.awaitRequest(Request.BYE, WAIT);
            assertEquals(alice.contactUri().toString(), toAlice.getRequestURI().toString());
            // the Record-Route entries below B's, in order (A's TCP then its UDP interface): through A
            assertEquals(List.of(a.hostPort(Transport.UDP), b.hostPort(Transport.TCP)), SipHeaders.vias(toAlice));
            Request toBob = bob.awaitRequest(Request.BYE, WAIT);
            assertEquals(List.of(b.hostPort(Transport.TCP)), SipHeaders.vias(toBob));
            assertEquals(List.of(), alice.errors());
            assertEquals(List.of(), bob.errors());
        }
    }

    @Test
    void aRoutesReloadSendsTheNextRequestToTheNewRouteAndABadFileKeepsTheOld() throws Exception {
        try (TestUa first = TestUa.start("gw", Transport.UDP);
             TestUa second = TestUa.start("gw", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            Path file = dir.resolve("sipcrypt.properties");
            writeRoute(file, first);
            try (TestServer server = TestServer.startFromFile(dir.resolve("data"), file, "http", "127.0.0.1:0",
                    "admin.token", TOKEN)) {
                String base = base(server);
                assertEquals(Response.OK, options(alice, server).getStatusCode());
                first.awaitRequest(Request.OPTIONS, WAIT);

                writeRoute(file, second);
                assertEquals(401, send(HttpRequest.newBuilder(URI.create(base + "/admin/routes/reload"))
                        .POST(HttpRequest.BodyPublishers.noBody())).statusCode());
                JsonNode reloaded = json(send(authorized(base, "/admin/routes/reload")
                        .POST(HttpRequest.BodyPublishers.noBody())), 200);
                assertTrue(reloaded.get("routes").get(0).asText().contains(":" + second.port() + ";"), reloaded.toString());
                assertEquals(Response.OK, options(alice, server).getStatusCode());
                second.awaitRequest(Request.OPTIONS, WAIT);
                assertEquals(1, first.received(Request.OPTIONS).size(), "the old route was taken after the reload");

                Files.writeString(file, "route=example.net=127.0.0.1:99999\n");
                JsonNode refused = json(send(authorized(base, "/admin/routes/reload")
                        .POST(HttpRequest.BodyPublishers.noBody())), 409);
                assertTrue(refused.get("reason").asText().contains("route"), refused.toString());
                assertEquals(Response.OK, options(alice, server).getStatusCode());
                second.awaitRequests(Request.OPTIONS, 2, WAIT);
                assertEquals(1, first.received(Request.OPTIONS).size());
            }
        }
    }

    @Test
    void aRoutesReloadSwapsADestinationSetAndAFileNamingAMissingSetKeepsTheOld() throws Exception {
        try (TestUa a = TestUa.start("gw", Transport.UDP);
             TestUa b = TestUa.start("gw", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            a.answer(Request.INVITE, TestUa.Answer.status(Response.BUSY_HERE));
            b.answer(Request.INVITE, TestUa.Answer.status(Response.BUSY_HERE));
            Path file = dir.resolve("sipcrypt.properties");
            writeSet(file, "gw", a);
            try (TestServer server = TestServer.startFromFile(dir.resolve("data"), file, "http", "127.0.0.1:0",
                    "admin.token", TOKEN)) {
                String base = base(server);
                assertEquals(Response.BUSY_HERE, invite(alice, server).getStatusCode());
                a.awaitRequest(Request.INVITE, WAIT);

                writeSet(file, "gw", b);
                JsonNode reloaded = json(send(authorized(base, "/admin/routes/reload")
                        .POST(HttpRequest.BodyPublishers.noBody())), 200);
                assertTrue(reloaded.get("sets").get(0).asText().startsWith("gw -> 127.0.0.1:" + b.port() + "/udp"),
                        reloaded.toString());
                assertEquals(1, reloaded.get("sets").size(), reloaded.toString());
                assertEquals(Response.BUSY_HERE, invite(alice, server).getStatusCode());
                b.awaitRequest(Request.INVITE, WAIT);
                assertEquals(1, a.received(Request.INVITE).size(), "the old destination was taken after the reload");
                assertEquals(null, server.server().registry().find("destinations.requests")
                        .tag("destination", "127.0.0.1:" + a.port() + "/udp").functionCounter(),
                        "the removed destination's meters are still registered");
                String destinations = send(authorized(base, "/admin/destinations").GET()).body();
                assertTrue(destinations.contains(":" + b.port()) && !destinations.contains(":" + a.port()),
                        destinations);

                // a route naming a set the new file lacks: refused, the sets in force stay
                Files.writeString(file, "mode=proxy\ndestinations.probeInterval=0\nroute=example.net=set:gw\n"
                        + "destination=gw2=127.0.0.1:" + a.port() + "\n");
                JsonNode refused = json(send(authorized(base, "/admin/routes/reload")
                        .POST(HttpRequest.BodyPublishers.noBody())), 409);
                assertTrue(refused.get("reason").asText().contains("set gw"), refused.toString());
                assertEquals(Response.BUSY_HERE, invite(alice, server).getStatusCode());
                b.awaitRequests(Request.INVITE, 2, WAIT);
                assertEquals(1, a.received(Request.INVITE).size());
            }
        }
    }

    @Test
    void drainRefusesANewInviteWhileTheByeOfACallUpGoesThroughThenStopStopsTheServer() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir.resolve("data"), Transport.UDP, Transport.UDP, "http",
                "127.0.0.1:0", "admin.token", TOKEN, "shutdown.grace", "60s")) {
            String base = base(u.server());
            TestUa.Call up = u.alice().call(u.bob().aor(), u.server().address(Transport.UDP));
            u.bob().awaitRequest(Request.ACK, WAIT);

            assertEquals(401, send(HttpRequest.newBuilder(URI.create(base + "/admin/drain"))
                    .POST(HttpRequest.BodyPublishers.noBody())).statusCode());
            assertEquals(404, send(authorized(base, "/admin/drain?listener=sctp:127.0.0.1:1")
                    .POST(HttpRequest.BodyPublishers.noBody())).statusCode());
            assertEquals(409, send(authorized(base, "/admin/drain?listener=udp")
                    .POST(HttpRequest.BodyPublishers.noBody())).statusCode());
            assertEquals(200, send(HttpRequest.newBuilder(URI.create(base + "/health")).GET()).statusCode());
            // one stream listener: no new connection is accepted there, and the server says it is not ready
            int tcpPort = u.server().address(Transport.TCP).getPort();
            json(send(authorized(base, "/admin/drain?listener=" + enc("tcp:127.0.0.1:" + tcpPort))
                    .POST(HttpRequest.BodyPublishers.noBody())), 200);
            assertThrows(IOException.class, () -> {
                try (Socket s = new Socket("127.0.0.1", tcpPort)) {
                    s.getInputStream().read();
                }
            });

            assertEquals(503, send(HttpRequest.newBuilder(URI.create(base + "/health")).GET()).statusCode());

            JsonNode drained = json(send(authorized(base, "/admin/drain").POST(HttpRequest.BodyPublishers.noBody())), 200);
            assertTrue(drained.get("drained").asBoolean(), drained.toString());
            Response refused = u.alice().invite(u.bob().aor(), u.server().address(Transport.UDP)).invite()
                    .awaitFinal(WAIT);
            assertEquals(Response.SERVICE_UNAVAILABLE, refused.getStatusCode());
            assertNotNull(refused.getHeader(RetryAfterHeader.NAME), refused.toString());
            assertEquals(1, u.bob().received(Request.INVITE).size(), "a refused INVITE was forwarded");
            assertEquals(Response.OK, up.hangUp().getStatusCode());
            u.bob().awaitRequest(Request.BYE, WAIT);

            JsonNode stopping = json(send(authorized(base, "/admin/stop").POST(HttpRequest.BodyPublishers.noBody())), 202);
            assertTrue(stopping.get("stopping").asBoolean(), stopping.toString());
            u.server().server().whenStopped().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static void writeRoute(Path file, TestUa to) throws IOException {
        Files.writeString(file, "# the gateway of example.net\nroute=example.net=127.0.0.1:" + to.port() + "\n");
    }

    /** A file routing example.net to set {@code set}, whose one destination is {@code to}; no probes. */
    private static void writeSet(Path file, String set, TestUa to) throws IOException {
        Files.writeString(file, "mode=proxy\ndestinations.probeInterval=0\nroute=example.net=set:" + set + "\n"
                + "destination=" + set + "=127.0.0.1:" + to.port() + "\n");
    }

    private static Response invite(TestUa from, TestServer server) throws Exception {
        return from.invite(from.uri("gw", "example.net"), server.address(Transport.UDP)).invite().awaitFinal(WAIT);
    }

    private static Response options(TestUa from, TestServer server) throws Exception {
        return from.send(from.newRequest(Request.OPTIONS, from.uri("gw", "example.net"), server.address(Transport.UDP)))
                .awaitFinal(WAIT);
    }

    /** The record of {@code callId} in the JSON-lines file, once written. */
    private static JsonNode awaitRecord(Path file, String callId) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file)) {
                    JsonNode r = json.readTree(line);
                    if (callId.equals(r.path("call_id").asText())) {
                        return r;
                    }
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no record of " + callId + " in " + file + " within " + WAIT);
    }

    private static String base(TestServer server) {
        return "http://127.0.0.1:" + server.server().httpAddress().getPort();
    }

    private static JsonNode json(HttpResponse<String> r, int status) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        return json.readTree(r.body());
    }

    private static HttpRequest.Builder authorized(String base, String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + TOKEN);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
