package org.sipcrypt.server.cdr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.location.EmbeddedDatabase;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * Call detail records of real calls through the real proxy, checked against the calls made: two
 * JAIN-SIP user agents over UDP (an answered call hung up by the caller, a call the callee rejects with
 * 486, a call the caller cancels), a caller over TLS whose record carries the suite its own socket
 * negotiated, written as JSON lines by one server; and an answered call written to the {@code cdrs}
 * table by a second server, read back over a second JDBC connection to its embedded H2 while it runs.
 * One JSON-lines server serves every case but the database one.
 * Threading: JUnit's test thread.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class CallRecordsIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private Path certs;
    private Path file;
    private TestServer server;
    private TestUa alice;
    private TestUa bob;

    @BeforeAll
    void start() throws Exception {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        file = dir.resolve("cdr").resolve("calls.jsonl");
        server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.trust", certs.resolve("ca.pem").toString(), "cdr.sink", "jsonl", "cdr.file", file.toString());
        alice = TestUa.start("alice", Transport.UDP);
        bob = TestUa.start("bob", Transport.UDP);
        bob.registerAt(server.address(Transport.UDP));
    }

    @AfterAll
    void stop() throws Exception {
        try (TestServer s = server; TestUa a = alice; TestUa b = bob) {
            // closed by the try, in reverse order
        }
    }

    @Test
    void anAnsweredCallHungUpByTheCallerHasItsTimesStatusAndEnd() throws Exception {
        bob.answer(Request.INVITE, TestUa.Answer.ringThenOk());
        // the server's times are whole milliseconds: a start in the same millisecond may read before an untruncated now
        Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        TestUa.Call call = alice.call(bob.aor(), server.address(Transport.UDP));
        assertEquals(Response.OK, call.hangUp().getStatusCode());
        Instant after = Instant.now();

        JsonNode r = awaitLine(callId(call));
        Instant start = Instant.parse(r.get("start").asText());
        Instant answer = Instant.parse(r.get("answer").asText());
        Instant end = Instant.parse(r.get("end").asText());
        assertFalse(start.isBefore(before), r.toString());
        assertFalse(answer.isBefore(start), r.toString());
        assertFalse(end.isBefore(answer), r.toString());
        assertFalse(end.isAfter(after), r.toString());
        assertEquals(Duration.between(answer, end).toMillis(), r.get("duration_ms").asLong(), r.toString());
        assertEquals(200, r.get("status").asInt());
        assertEquals("caller", r.get("ended_by").asText());
        assertEquals("sip:alice@127.0.0.1", r.get("caller").asText());
        assertEquals("sip:bob@127.0.0.1", r.get("callee").asText());
        assertEquals("udp", r.get("in_transport").asText());
        assertEquals("udp", r.get("out_transport").asText());
        assertTrue(r.get("in_cipher").isNull(), r.toString());
        assertTrue(r.get("auth_user").isNull(), r.toString());
    }

    @Test
    void aCallTheCalleeRejectsHasItsStatusAndNoAnswer() throws Exception {
        bob.answer(Request.INVITE, TestUa.Answer.status(Response.BUSY_HERE));
        TestUa.Call call = alice.invite(bob.aor(), server.address(Transport.UDP));
        assertEquals(Response.BUSY_HERE, call.invite().awaitFinal(WAIT).getStatusCode());

        JsonNode r = awaitLine(callId(call));
        assertEquals(486, r.get("status").asInt());
        assertTrue(r.get("answer").isNull(), r.toString());
        assertTrue(r.get("duration_ms").isNull(), r.toString());
        assertFalse(Instant.parse(r.get("end").asText()).isBefore(Instant.parse(r.get("start").asText())));
        assertEquals("callee", r.get("ended_by").asText());
        assertTrue(r.get("out_transport").isNull(), r.toString());
    }

    @Test
    void aCallTheCallerCancelsIsEndedByTheCaller() throws Exception {
        bob.answer(Request.INVITE, TestUa.Answer.ringForever());
        TestUa.Call call = alice.invite(bob.aor(), server.address(Transport.UDP));
        assertNotNull(call.invite().await(Response.RINGING, WAIT), "no 180: " + call.invite().statuses());
        call.cancel();
        assertEquals(Response.REQUEST_TERMINATED, call.invite().awaitFinal(WAIT).getStatusCode());

        JsonNode r = awaitLine(callId(call));
        assertEquals(487, r.get("status").asInt());
        assertEquals("caller", r.get("ended_by").asText());
        assertTrue(r.get("answer").isNull(), r.toString());
    }

    @Test
    void aCallerOverTlsHasTheSuiteItsConnectionNegotiated() throws Exception {
        bob.answer(Request.INVITE, TestUa.Answer.status(Response.BUSY_HERE));
        try (SipSocket caller = SipSocket.tls(server.address(Transport.TLS), TestPki.sslContext(certs, null, null))) {
            String callId = "cdr-tls-" + System.nanoTime();
            String invite = caller.request("INVITE", "sip:bob@127.0.0.1", "carol", "bob@127.0.0.1", callId, 1,
                    caller.contact("carol"));
            caller.send(invite);
            String busy = caller.awaitMessage("SIP/2.0 486 ", WAIT);
            assertNotNull(busy, "no 486 over TLS");
            caller.send(SipSocket.ackFor(invite, busy));
            String suite = caller.tlsCipherSuite();
            assertNotNull(suite);

            JsonNode r = awaitLine(callId);
            assertEquals("tls", r.get("in_transport").asText());
            assertEquals(suite, r.get("in_cipher").asText(), r.toString());
            assertEquals(486, r.get("status").asInt());
            assertEquals("sip:carol@127.0.0.1", r.get("caller").asText());
        }
    }

    @Test
    void theDatabaseSinkWritesARowPerCallReadableWhileTheServerRuns() throws Exception {
        Path data = dir.resolve("data-db");
        try (TestServer db = TestServer.start(data, "listen", "udp:127.0.0.1:0", "cdr.sink", "database");
             TestUa dave = TestUa.start("dave", Transport.UDP)) {
            InetSocketAddress proxy = db.address(Transport.UDP);
            dave.registerAt(proxy);
            Instant before = Instant.now();
            TestUa.Call call = alice.call(dave.aor(), proxy);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            Instant after = Instant.now();
            String callId = callId(call);

            String secret = Files.readString(data.resolve("db.secret"), StandardCharsets.US_ASCII).trim();
            try (Connection c = DriverManager.getConnection(EmbeddedDatabase.url(data), "sa", secret);
                 PreparedStatement q = c.prepareStatement("SELECT start_ms, answer_ms, end_ms, caller, callee,"
                         + " in_transport, status, duration_ms, ended_by FROM cdrs WHERE call_id = ?")) {
                q.setString(1, callId);
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (true) {
                    try (ResultSet rs = q.executeQuery()) {
                        if (rs.next()) {
                            long start = rs.getLong("start_ms");
                            long answer = rs.getLong("answer_ms");
                            long end = rs.getLong("end_ms");
                            assertTrue(before.toEpochMilli() <= start && start <= answer && answer <= end
                                    && end <= after.toEpochMilli(), start + " " + answer + " " + end);
                            assertEquals(end - answer, rs.getLong("duration_ms"));
                            assertEquals(200, rs.getInt("status"));
                            assertEquals("caller", rs.getString("ended_by"));
                            assertEquals("sip:alice@127.0.0.1", rs.getString("caller"));
                            assertEquals("sip:dave@127.0.0.1", rs.getString("callee"));
                            assertEquals("udp", rs.getString("in_transport"));
                            assertFalse(rs.next(), "one row per call");
                            break;
                        }
                    }
                    assertTrue(System.nanoTime() < deadline, "no cdrs row for " + callId);
                    Thread.sleep(20);
                }
            }
            assertEquals(1.0, db.server().registry().get("cdr.records").tag("result", "written").counter().count());
        }
    }

    private static String callId(TestUa.Call call) {
        return ((CallIdHeader) call.invite().request().getHeader(CallIdHeader.NAME)).getCallId();
    }

    /** The record of {@code callId} in the JSON-lines file, waited for (the writer thread writes it soon after). */
    private JsonNode awaitLine(String callId) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            if (Files.exists(file)) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                JsonNode found = null;
                for (String line : lines) {
                    JsonNode n = JSON.readTree(line);
                    if (callId.equals(n.get("call_id").asText())) {
                        assertEquals(null, found, "one record per call: " + lines);
                        found = n;
                    }
                }
                if (found != null) {
                    return found;
                }
            }
            assertTrue(System.nanoTime() < deadline, "no record of " + callId + " in " + file);
            Thread.sleep(20);
        }
    }
}
