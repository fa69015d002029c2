package org.sipcrypt.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.hawkular.agent.prometheus.types.MetricType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.HttpProbe;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestH2Server;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * The {@code http} listener of a running server: {@code /metrics} scraped before and after SIP
 * traffic (OPTIONS, a REGISTER, a call) parses as Prometheus text and its counters move;
 * {@code /health} is ready with every listener and the database, and not ready while an H2 server
 * database is down; the listener refuses what it does not serve.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpEndpointsIT {

    @TempDir
    Path dir;

    private static URI url(TestServer server, String path) {
        InetSocketAddress a = server.server().httpAddress();
        return URI.create("http://127.0.0.1:" + a.getPort() + path);
    }

    private static double value(Map<String, Double> samples, String series) {
        return samples.getOrDefault(series, 0.0);
    }

    @Test
    void metricsParseAsPrometheusTextAndCountersMoveWithSipTraffic() throws Exception {
        try (TestServer server = TestServer.start(dir, "http", "127.0.0.1:0")) {
            assertNotNull(server.server().httpAddress(), "http listener bound");
            HttpProbe.Answer first = HttpProbe.get(url(server, "/metrics"));
            assertEquals(200, first.status(), first.body());
            assertTrue(first.headers().get("content-type").startsWith("text/plain; version=0.0.4"),
                    first.headers().toString());
            Map<String, MetricType> types = new HashMap<>();
            Map<String, Double> before = HttpProbe.samples(first.body(), types);

            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                s.send(s.request("OPTIONS", "sip:" + server.hostPort(Transport.UDP), "probe", "127.0.0.1",
                        "http-opt", 1, ""));
                String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
                assertTrue(r != null && r.startsWith("SIP/2.0 200"), "OPTIONS: " + r);
            }
            try (TestUa callee = TestUa.start("bob", Transport.UDP);
                 TestUa caller = TestUa.start("alice", Transport.UDP)) {
                callee.registerAt(server.address(Transport.UDP));
                TestUa.Call call = caller.call(callee.aor(), server.address(Transport.UDP));
                callee.awaitRequest(Request.ACK, TestUa.TIMEOUT);
                assertEquals(Response.OK, call.hangUp().getStatusCode());
                callee.awaitRequest(Request.BYE, TestUa.TIMEOUT);
            }

            HttpProbe.Answer second = HttpProbe.get(url(server, "/metrics"));
            assertEquals(200, second.status());
            Map<String, Double> after = HttpProbe.samples(second.body(), types);
            for (String method : new String[] {"options", "register", "invite", "ack", "bye"}) {
                String series = "sipcrypt_sip_requests_received_total{method=" + method + "}";
                assertTrue(value(after, series) >= value(before, series) + 1,
                        series + ": " + value(before, series) + " then " + value(after, series));
            }
            String ok = "sipcrypt_sip_responses_sent_total{status=2xx}";
            assertTrue(value(after, ok) >= value(before, ok) + 2, ok + ": " + value(after, ok));
            assertTrue(value(after, "sipcrypt_sip_proxy_forwarded_total{method=invite}") >= 1, after.toString());
            assertTrue(value(after, "sipcrypt_registrar_bindings{}") >= 1, "bindings gauge: " + after);
            // a transaction is timed when the stack ends it, which may come a little after its answer
            String timed = "sipcrypt_sip_transaction_duration_seconds_count{}";
            double timedBefore = value(before, timed);
            AtomicReference<Map<String, Double>> latest = new AtomicReference<>(after);
            Await.until(() -> {
                latest.set(scrape(server, types));
                return value(latest.get(), timed) >= timedBefore + 3;
            }, Duration.ofSeconds(30), () -> "OPTIONS, REGISTER and INVITE transactions timed: "
                    + value(latest.get(), timed));
            // the ACK and the BYE went on statelessly from their bytes: no transaction to time (with
            // the fast path on)
            String early = "sipcrypt_sip_requests_relayed_early_total{}";
            assertEquals(value(before, early) + (server.fastPath() ? 2 : 0), value(after, early), early);
            assertEquals(MetricType.SUMMARY, types.get("sipcrypt_sip_transaction_duration_seconds"));
            assertTrue(after.containsKey("sipcrypt_sip_transactions_live{}"), after.keySet().toString());
            assertTrue(after.containsKey("sipcrypt_sip_workers_queued{lane=0}"), after.keySet().toString());
            assertTrue(after.containsKey("sipcrypt_transport_connections_open{}"), after.keySet().toString());
            assertTrue(after.containsKey("sipcrypt_transport_connections_current{transport=tcp}"), after.keySet().toString());
            assertEquals(MetricType.GAUGE, types.get("sipcrypt_sip_flows_open"));
            assertTrue(after.containsKey("sipcrypt_sip_flows_open{transport=udp}"), after.keySet().toString());
            assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith("sipcrypt_jvm_memory_used_bytes{")
                    && k.contains("area=heap")), "heap gauge: " + after.keySet());
            // Prometheus conventions: one prefix, counters end in _total
            types.forEach((name, type) -> {
                assertTrue(name.startsWith("sipcrypt_"), name);
                if (type == MetricType.COUNTER) {
                    assertTrue(name.endsWith("_total"), name);
                }
            });
            assertEquals(MetricType.COUNTER, types.get("sipcrypt_sip_requests_received_total"));
        }
    }

    @Test
    void theParserRejectsTextThatIsNotTheExpositionFormat() {
        // the check above can fail: the parser refuses a sample line that is not one
        assertThrows(Exception.class, () -> HttpProbe.samples(
                "# TYPE sipcrypt_x_total counter\nsipcrypt_x_total{method=\"a\" one\n", new HashMap<>()));
    }

    @Test
    void healthIsReadyWithListenersAndDatabaseAndLiveAlways() throws Exception {
        try (TestServer server = TestServer.start(dir, "http", "127.0.0.1:0")) {
            HttpProbe.Answer health = HttpProbe.get(url(server, "/health"));
            assertEquals(200, health.status(), health.body());
            assertEquals("application/json", health.headers().get("content-type"));
            JsonNode j = health.json();
            assertEquals("ready", j.get("status").asText());
            assertTrue(j.get("live").asBoolean());
            assertTrue(j.get("ready").asBoolean());
            assertEquals("up", j.get("database").asText());
            assertEquals(server.hostPort(Transport.UDP), j.get("listeners").get("udp").asText());
            assertEquals(server.hostPort(Transport.TCP), j.get("listeners").get("tcp").asText());

            HttpProbe.Answer live = HttpProbe.get(url(server, "/health/live"));
            assertEquals(200, live.status());
            assertTrue(live.json().get("live").asBoolean());
        }
    }

    @Test
    void listenerAnswersOnlyGetOnItsPathsAndBoundsRequests() throws Exception {
        try (TestServer server = TestServer.start(dir, "http", "127.0.0.1:0", "http.maxRequestBytes", "1024")) {
            HttpProbe.Answer post = HttpProbe.request(url(server, "/metrics"), "POST", Map.of("Content-Length", "0"));
            assertEquals(405, post.status());
            assertEquals("GET", post.headers().get("allow"));
            assertEquals(404, HttpProbe.get(url(server, "/")).status());
            assertEquals(404, HttpProbe.get(url(server, "/metrics/x")).status());
            assertEquals(200, HttpProbe.get(url(server, "/metrics?name=x")).status());
            HttpProbe.Answer big = HttpProbe.request(url(server, "/metrics"), "GET", Map.of("X-Filler", "x".repeat(2000)));
            assertEquals(431, big.status());
        }
    }

    @Test
    void healthIsNotReadyWhileTheDatabaseIsDownAndReadyAgainWhenItReturns() throws Exception {
        try (TestH2Server h2 = TestH2Server.start(dir.resolve("h2"));
             TestServer server = TestServer.start(dir.resolve("data"), "db", h2.url(), "http", "127.0.0.1:0")) {
            assertEquals(200, HttpProbe.get(url(server, "/health")).status());

            h2.stop();
            HttpProbe.Answer[] last = new HttpProbe.Answer[1];
            Await.until(() -> status(url(server, "/health"), last) == 503, Duration.ofSeconds(30),
                    () -> "503 while the database is down; last: " + last[0]);
            JsonNode down = last[0].json();
            assertEquals(false, down.get("ready").asBoolean());
            assertTrue(down.get("listening").asBoolean(), down.toString());
            assertTrue(!down.get("database").asText().equals("up"), down.toString());
            assertEquals(200, HttpProbe.get(url(server, "/health/live")).status(), "still live");

            h2.startAgain();
            Await.until(() -> status(url(server, "/health"), last) == 200, Duration.ofSeconds(30),
                    () -> "200 once the database is back; last: " + last[0]);
        }
    }

    private static Map<String, Double> scrape(TestServer server, Map<String, MetricType> types) {
        try {
            return HttpProbe.samples(HttpProbe.get(url(server, "/metrics")).body(), types);
        } catch (IOException e) {
            throw new IllegalStateException("/metrics: " + e, e);
        }
    }

    private static int status(URI url, HttpProbe.Answer[] last) {
        try {
            last[0] = HttpProbe.get(url);
            return last[0].status();
        } catch (IOException e) {
            throw new IllegalStateException(url + ": " + e, e);
        }
    }
}
