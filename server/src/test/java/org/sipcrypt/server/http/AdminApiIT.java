package org.sipcrypt.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The management API over real HTTP, against a server whose registrar and proxy really use what it
 * changes: a phone's REGISTER shows in {@code GET /admin/bindings}; a binding added by
 * {@code POST} is where a call to that AOR goes; one removed by {@code DELETE} is no longer called.
 * No token, a wrong token, a foreign domain, bad JSON, a binding too long, an unknown path and an
 * unsupported method each get their own clear answer; a server without {@code admin.token} has no
 * {@code /admin/} at all.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdminApiIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String TOKEN = "0123456789abcdef0123456789abcdef-admin";

    @TempDir
    static Path dir;

    private static TestServer server;
    private static String base;
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build();
    private static final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(dir.resolve("data"), "http", "127.0.0.1:0", "admin.token", TOKEN,
                "domain", "example.com");
        base = "http://127.0.0.1:" + server.server().httpAddress().getPort();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyRequestNeedsTheBearerToken() throws Exception {
        HttpResponse<String> none = send(HttpRequest.newBuilder(uri("/admin/bindings?aor=" + enc("sip:a@example.com")))
                .GET());
        assertEquals(401, none.statusCode(), none.body());
        assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"), none.headers().toString());
        HttpResponse<String> wrong = send(HttpRequest.newBuilder(uri("/admin/bindings?aor=" + enc("sip:a@example.com")))
                .header("Authorization", "Bearer " + TOKEN.substring(1) + "x").GET());
        assertEquals(401, wrong.statusCode());
        HttpResponse<String> unknownPath = send(authorized("/admin/nothing").GET());
        assertEquals(404, unknownPath.statusCode());
        HttpResponse<String> unknownUnauthorized = send(HttpRequest.newBuilder(uri("/admin/nothing")).GET());
        assertEquals(401, unknownUnauthorized.statusCode(), "nothing is said about a path before the token checks");
        assertEquals(405, send(authorized("/admin/bindings").PUT(HttpRequest.BodyPublishers.noBody())).statusCode());
    }

    @Test
    void aRegisteredPhoneIsListed() throws Exception {
        try (SipSocket phone = SipSocket.udp(server.address(Transport.UDP))) {
            phone.exchange(phone.request("REGISTER", "sip:example.com", "alice", "alice@example.com", "admin-reg-1", 1,
                    phone.contact("alice") + "Expires: 600\r\n"), "SIP/2.0 200", WAIT);
            HttpResponse<String> listed = send(authorized("/admin/bindings?aor=" + enc("sip:alice@example.com")).GET());
            assertEquals(200, listed.statusCode(), listed.body());
            JsonNode body = json.readTree(listed.body());
            assertEquals("sip:alice@example.com", body.get("aor").asText());
            assertEquals(1, body.get("bindings").size(), listed.body());
            JsonNode b = body.get("bindings").get(0);
            assertEquals("sip:alice@127.0.0.1:" + phone.localPort(), b.get("contact").asText());
            long expires = b.get("expires").asLong();
            assertTrue(expires > 500 && expires <= 600, listed.body());
        }
    }

    @Test
    void aBindingAddedIsCalledAndOneRemovedIsNot() throws Exception {
        try (SipSocket carol = SipSocket.udp(server.address(Transport.UDP));
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String contact = "sip:carol@127.0.0.1:" + carol.localPort();
            HttpResponse<String> added = send(authorized("/admin/bindings").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"aor\": \"sip:carol@example.com\", \"contact\": \""
                            + contact + "\", \"expires\": 300, \"q\": 0.5}")));
            assertEquals(200, added.statusCode(), added.body());
            assertEquals(contact, json.readTree(added.body()).get("bindings").get(0).get("contact").asText());

            String first = caller.request("INVITE", "sip:carol@example.com", "bob", "carol@example.com", "admin-call-1", 1,
                    caller.contact("bob"));
            caller.send(first);
            String invite = carol.awaitMessage("INVITE ", WAIT);
            assertNotNull(invite, "the call goes to the binding the API added");
            assertTrue(invite.startsWith("INVITE " + contact + " SIP/2.0"), invite);
            carol.send(SipSocket.response(invite, "486 Busy Here"));
            String busy = caller.awaitMessage("SIP/2.0 486", WAIT);
            assertNotNull(busy);
            // acknowledged, so that no retransmitted 486 arrives while the second call awaits its answer
            caller.send(SipSocket.ackFor(first, busy));

            HttpResponse<String> removed = send(authorized("/admin/bindings?aor=" + enc("sip:carol@example.com")
                    + "&contact=" + enc(contact)).DELETE());
            assertEquals(200, removed.statusCode(), removed.body());
            assertEquals(1, json.readTree(removed.body()).get("removed").asInt(), removed.body());
            HttpResponse<String> listed = send(authorized("/admin/bindings?aor=" + enc("sip:carol@example.com")).GET());
            assertEquals(0, json.readTree(listed.body()).get("bindings").size(), listed.body());

            caller.send(caller.request("INVITE", "sip:carol@example.com", "bob", "carol@example.com", "admin-call-2", 1,
                    caller.contact("bob")));
            String answer = awaitAnswerTo(caller, "admin-call-2");
            assertNotNull(answer, "a call to an AOR without bindings is answered 4xx");
            assertTrue(answer.startsWith("SIP/2.0 480") || answer.startsWith("SIP/2.0 404"), answer);
        }
    }

    /** The first 4xx the caller gets for the call {@code callId}, skipping any answer to another call. */
    private static String awaitAnswerTo(SipSocket caller, String callId) throws Exception {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            String m = caller.awaitMessage("SIP/2.0 4", Duration.ofNanos(Math.max(1, end - System.nanoTime())));
            if (m == null || m.contains(callId)) {
                return m;
            }
        }
        return null;
    }

    @Test
    void badInputGetsA400ThatSaysWhy() throws Exception {
        HttpResponse<String> foreign = send(authorized("/admin/bindings?aor=" + enc("sip:a@elsewhere.example.org")).GET());
        assertEquals(400, foreign.statusCode());
        assertTrue(foreign.body().contains("not a domain this server serves"), foreign.body());
        assertEquals(400, send(authorized("/admin/bindings").GET()).statusCode(), "aor missing");
        assertEquals(400, send(authorized("/admin/bindings?aor=" + enc("tel:+15550100")).GET()).statusCode());
        HttpResponse<String> notJson = send(authorized("/admin/bindings")
                .POST(HttpRequest.BodyPublishers.ofString("{\"aor\": ")));
        assertEquals(400, notJson.statusCode());
        assertTrue(notJson.body().startsWith("the body is not JSON"), notJson.body());
        HttpResponse<String> tooLong = send(authorized("/admin/bindings").POST(HttpRequest.BodyPublishers.ofString(
                "{\"aor\": \"sip:dave@example.com\", \"contact\": \"sip:dave@127.0.0.1:5999\", \"expires\": 99999999}")));
        assertEquals(400, tooLong.statusCode());
        assertTrue(tooLong.body().contains("registrar.maxExpires"), tooLong.body());
    }

    @Test
    void aServerWithoutTheTokenHasNoAdminPath(@TempDir Path own) throws Exception {
        try (TestServer plain = TestServer.start(own.resolve("data"), "http", "127.0.0.1:0")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + plain.server().httpAddress().getPort() + "/admin/bindings?aor=" + enc("sip:a@127.0.0.1")))
                    .header("Authorization", "Bearer " + TOKEN).timeout(WAIT).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, r.statusCode());
        }
    }

    private static HttpRequest.Builder authorized(String path) {
        return HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + TOKEN);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String path) {
        return URI.create(base + path);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
