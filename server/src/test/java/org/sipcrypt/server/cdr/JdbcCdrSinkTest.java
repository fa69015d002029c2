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

/**
 * The cdrs table (schema 6) on a real H2 database: rows as written, nulls kept, a failed batch leaves
 * nothing; and through the {@link CdrWriter}, an outage of H2 in server mode on loopback loses and
 * counts the records of its time, and writing resumes by itself when the database is back.
 * Threading: JUnit's test thread.
 */
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

    @Test
    void aDatabaseOutageLosesAndCountsItsRecordsAndWritingResumesByItself() throws Exception {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (org.sipcrypt.server.testing.TestH2Server h2 = org.sipcrypt.server.testing.TestH2Server.start(dir.resolve("h2"));
             Database db = Database.open(h2.url(), "sa", "", 2)) {
            try (CdrWriter writer = new CdrWriter(new JdbcCdrSink(db.dataSource()), 100, registry)) {
                writer.offer(record("before"));
                awaitCount(registry, "written", 1);
                h2.stop();
                writer.offer(record("during"));
                awaitCount(registry, "failed", 1);
                h2.startAgain();
                // the pool may yet lose a batch on a connection from before the outage: offer until one is written
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
                for (int i = 0; registry.get("cdr.records").tag("result", "written").counter().count() < 2; i++) {
                    assertTrue(System.nanoTime() < deadline, "nothing written after the database came back");
                    double lost = registry.get("cdr.records").tag("result", "failed").counter().count();
                    writer.offer(record("after"));
                    while (registry.get("cdr.records").tag("result", "written").counter().count() < 2
                            && registry.get("cdr.records").tag("result", "failed").counter().count() == lost) {
                        assertTrue(System.nanoTime() < deadline, "the batch after the outage never settled");
                        Thread.sleep(10);
                    }
                }
            }
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT call_id FROM cdrs ORDER BY start_ms")) {
                List<String> ids = new java.util.ArrayList<>();
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
                assertEquals(List.of("before", "after"), ids);
            }
        }
    }

    private static CallRecord record(String callId) {
        return new CallRecord(callId, Instant.now(), null, Instant.now(), null, null, null, "udp", null, null, null,
                486, CallRecord.EndedBy.CALLEE);
    }

    private static void awaitCount(io.micrometer.core.instrument.MeterRegistry registry, String result, double count)
            throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (registry.get("cdr.records").tag("result", result).counter().count() < count) {
            assertTrue(System.nanoTime() < deadline, "cdr.records{result=" + result + "} never reached " + count);
            Thread.sleep(10);
        }
    }
}
