package org.sipcrypt.server.cdr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The JSON form of a record, read back with Jackson. */
@Timeout(10)
class JsonLinesSinkTest {

    @TempDir
    Path dir;

    @Test
    void aRecordIsOneLineWithEveryFieldAndNullsForTheUnknown() throws Exception {
        CallRecord answered = new CallRecord("a84b4c76e66710@pc33", Instant.parse("2026-11-29T10:00:00Z"),
                Instant.parse("2026-11-29T10:00:01.500Z"), Instant.parse("2026-11-29T10:01:01.500Z"),
                "sip:alice@example.com", "sip:bob@example.com", "alice", "tls", "TLS_AES_256_GCM_SHA384", "udp", null,
                200, CallRecord.EndedBy.CALLER);
        CallRecord quoted = new CallRecord("x\"y\n", Instant.parse("2026-11-29T10:00:00Z"), null, null,
                "sip:\"odd\"@example.com", null, null, "udp", null, null, null, 0, CallRecord.EndedBy.UNKNOWN);
        Path file = dir.resolve("cdr.jsonl");
        try (JsonLinesSink sink = new JsonLinesSink(file)) {
            sink.write(List.of(answered));
        }
        try (JsonLinesSink sink = new JsonLinesSink(file)) {
            sink.write(List.of(quoted));
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(2, lines.size());
        ObjectMapper json = new ObjectMapper();
        JsonNode a = json.readTree(lines.get(0));
        assertEquals("a84b4c76e66710@pc33", a.get("call_id").asText());
        assertEquals("2026-11-29T10:00:00Z", a.get("start").asText());
        assertEquals("2026-11-29T10:00:01.500Z", a.get("answer").asText());
        assertEquals("2026-11-29T10:01:01.500Z", a.get("end").asText());
        assertEquals("sip:alice@example.com", a.get("caller").asText());
        assertEquals("sip:bob@example.com", a.get("callee").asText());
        assertEquals("alice", a.get("auth_user").asText());
        assertEquals("tls", a.get("in_transport").asText());
        assertEquals("TLS_AES_256_GCM_SHA384", a.get("in_cipher").asText());
        assertEquals("udp", a.get("out_transport").asText());
        assertEquals(true, a.get("out_cipher").isNull());
        assertEquals(200, a.get("status").asInt());
        assertEquals(60_000, a.get("duration_ms").asLong());
        assertEquals("caller", a.get("ended_by").asText());
        JsonNode q = json.readTree(lines.get(1));
        assertEquals("x\"y\n", q.get("call_id").asText());
        assertEquals("sip:\"odd\"@example.com", q.get("caller").asText());
        assertEquals(true, q.get("status").isNull());
        assertEquals(true, q.get("duration_ms").isNull());
        assertEquals(true, q.get("answer").isNull());
        assertEquals("unknown", q.get("ended_by").asText());
    }
}
