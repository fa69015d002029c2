package org.sipcrypt.server.cdr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.location.Database;

/** The cdrs table (schema 6) on a real H2 database: rows as written, nulls kept, a failed batch leaves nothing. */
@Timeout(30)
class JdbcCdrSinkTest {

    @TempDir
    Path dir;

    private String url() {
        return "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
    }

    @Test
    void aBatchBecomesRowsWithNullsWhereUnknown() throws Exception {
        CallRecord answered = new CallRecord("c1", Instant.ofEpochMilli(1_000), Instant.ofEpochMilli(3_000),
                Instant.ofEpochMilli(63_000), "sip:alice@example.com", "sip:bob@example.com", "alice", "tls",
                "TLS_AES_128_GCM_SHA256", "udp", null, 200, CallRecord.EndedBy.CALLEE);
        CallRecord forgotten = new CallRecord("c2", Instant.ofEpochMilli(5_000), Instant.ofEpochMilli(6_000), null,
                "sip:" + "a".repeat(2000) + "@example.com", null, null, "udp", null, "udp", null, 200,
                CallRecord.EndedBy.UNKNOWN);
        try (Database db = Database.open(url(), "sa", "", 2)) {
            new JdbcCdrSink(db.dataSource()).write(List.of(answered, forgotten));
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT * FROM cdrs ORDER BY start_ms")) {
                assertTrue(rs.next());
                assertEquals("c1", rs.getString("call_id"));
                assertEquals(1_000, rs.getLong("start_ms"));
                assertEquals(3_000, rs.getLong("answer_ms"));
                assertEquals(63_000, rs.getLong("end_ms"));
                assertEquals(60_000, rs.getLong("duration_ms"));
                assertEquals("alice", rs.getString("auth_user"));
                assertEquals("TLS_AES_128_GCM_SHA256", rs.getString("in_cipher"));
                assertNull(rs.getString("out_cipher"));
                assertEquals(200, rs.getInt("status"));
                assertEquals("callee", rs.getString("ended_by"));
                assertTrue(rs.next());
                assertEquals("c2", rs.getString("call_id"));
                rs.getLong("end_ms");
                assertTrue(rs.wasNull());
                rs.getLong("duration_ms");
                assertTrue(rs.wasNull());
                assertEquals(1024, rs.getString("caller").length(), "a URI longer than the column is cut, not refused");
                assertEquals("unknown", rs.getString("ended_by"));
                assertFalse(rs.next());
            }
        }
    }

    @Test
    void aBatchTheDatabaseRefusesThrowsAndWritesNothing() throws Exception {
        CallRecord ok = new CallRecord("c1", Instant.ofEpochMilli(1_000), null, Instant.ofEpochMilli(2_000), null,
                null, null, "udp", null, null, null, 486, CallRecord.EndedBy.CALLEE);
        CallRecord tooLong = new CallRecord("c2", Instant.ofEpochMilli(1_000), null, Instant.ofEpochMilli(2_000), null,
                null, null, "a-transport-name-longer-than-its-column", null, null, null, 486, CallRecord.EndedBy.CALLEE);
        try (Database db = Database.open(url(), "sa", "", 2)) {
            JdbcCdrSink sink = new JdbcCdrSink(db.dataSource());
            assertThrows(SQLException.class, () -> sink.write(List.of(ok, tooLong)));
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM cdrs")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "the batch is one transaction");
            }
            sink.write(List.of(ok));
        }
    }
}
