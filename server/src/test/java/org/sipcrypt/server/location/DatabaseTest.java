package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class DatabaseTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private String url() {
        return "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
    }

    @Test
    @Timeout(30)
    void openCreatesTheSchema() throws Exception {
        try (Database db = Database.open(url(), "sa", "", 2);
             Connection c = db.dataSource().getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            for (String table : List.of("schema_version", "aors", "bindings", "subscribers")) {
                try (ResultSet rs = meta.getTables(null, null, table.toUpperCase(Locale.ROOT), null)) {
                    assertTrue(rs.next(), "table " + table);
                }
            }
            List<String> indexedColumns = new ArrayList<>();
            try (ResultSet rs = meta.getIndexInfo(null, null, "BINDINGS", false, false)) {
                while (rs.next()) {
                    indexedColumns.add(rs.getString("COLUMN_NAME"));
                }
            }
            assertTrue(indexedColumns.contains("EXPIRES_AT"), "index on expires_at: " + indexedColumns);
            assertEquals(List.of(1, 2, 3, 4, 5, 6), SchemaMigratorTest.versions(c));
            assertEquals(6, Database.latestVersion());
        }
    }

    @Test
    @Timeout(30)
    void migratingTwiceIsANoOp() throws Exception {
        try (Database db = Database.open(url(), "sa", "", 2)) {
            long appliedAt = appliedAt(db);
            db.migrate();
            db.migrate();
            try (Connection c = db.dataSource().getConnection()) {
                assertEquals(List.of(1, 2, 3, 4, 5, 6), SchemaMigratorTest.versions(c));
            }
            assertEquals(appliedAt, appliedAt(db));
        }
        try (Database db = Database.open(url(), "sa", "", 2);
             Connection c = db.dataSource().getConnection()) {
            assertEquals(List.of(1, 2, 3, 4, 5, 6), SchemaMigratorTest.versions(c));
        }
    }

    @Test
    @Timeout(30)
    void callIdsUpToTheRegistrarsBoundAreStored() throws Exception {
        String callId = "c".repeat(org.sipcrypt.server.sip.registrar.Registrar.MAX_CALL_ID_CHARS);
        try (Database db = Database.open(url(), "sa", "", 2);
             JdbcLocationService locations = new JdbcLocationService(db, 2, 100)) {
            ContactChange alice = new ContactChange("sip:alice@10.0.0.1", "<sip:alice@10.0.0.1>",
                    Duration.ofHours(1), -1);
            assertInstanceOf(RegisterOutcome.Applied.class, locations.register(new RegisterChange(
                    "sip:alice@example.com", callId, 1, false, List.of(alice), "udp:10.0.0.1:5060", T0))
                    .get(10, TimeUnit.SECONDS));
            assertEquals(callId, locations.lookup("sip:alice@example.com", T0).get(10, TimeUnit.SECONDS)
                    .bindings().get(0).callId());
        }
    }

    @Test
    @Timeout(30)
    void whileTheBreakerIsOpenLocationCallsFailAtOnceAndNothingIsWritten() throws Exception {
        // a probe interval far beyond the test, so the breaker stays open until the test is done with it
        try (Database db = Database.open(url(), "sa", "", 2, Duration.ofSeconds(1), Duration.ofSeconds(60));
             JdbcLocationService locations = new JdbcLocationService(db, 2, 100)) {
            db.breaker().failed(new SQLTransientConnectionException("request timed out", "08001"), db.breaker().now());
            ContactChange alice = new ContactChange("sip:alice@10.0.0.1", "<sip:alice@10.0.0.1>",
                    Duration.ofHours(1), -1);
            ExecutionException refused = assertThrows(ExecutionException.class, () -> locations.register(
                    new RegisterChange("sip:alice@example.com", "cid-1", 1, false, List.of(alice), "udp:10.0.0.1:5060",
                            T0)).get(10, TimeUnit.SECONDS));
            assertInstanceOf(DatabaseUnavailableException.class, refused.getCause());
            assertInstanceOf(DatabaseUnavailableException.class, assertThrows(ExecutionException.class,
                    () -> locations.lookup("sip:alice@example.com", T0).get(10, TimeUnit.SECONDS)).getCause());
            assertEquals(1, db.breaker().refused("register"));
            assertEquals(1, db.breaker().refused("lookup"));
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM bindings")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getLong(1), "a refused REGISTER writes nothing");
            }
        }
    }

    @Test
    @Timeout(30)
    void registrationsSurviveARestart() throws Exception {
        try (Database db = Database.open(url(), "sa", "", 2);
             JdbcLocationService locations = new JdbcLocationService(db, 2, 100)) {
            ContactChange alice = new ContactChange("sip:alice@10.0.0.1", "<sip:alice@10.0.0.1>",
                    Duration.ofHours(1), 0.5f);
            assertInstanceOf(RegisterOutcome.Applied.class, locations.register(new RegisterChange(
                    "sip:alice@example.com", "cid-1", 1, false, List.of(alice), "udp:10.0.0.1:5060", T0))
                    .get(10, TimeUnit.SECONDS));
        }
        try (Database db = Database.open(url(), "sa", "", 2);
             JdbcLocationService locations = new JdbcLocationService(db)) {
            LookupResult found = locations.lookup("sip:alice@example.com", T0.plusSeconds(60))
                    .get(10, TimeUnit.SECONDS);
            assertTrue(found.known());
            assertEquals(1, found.bindings().size());
            Binding b = found.bindings().get(0);
            assertEquals("<sip:alice@10.0.0.1>", b.contact());
            assertEquals(T0.plus(Duration.ofHours(1)), b.expiresAt());
            assertEquals("cid-1", b.callId());
            assertEquals(0.5f, b.q());
            assertEquals("udp:10.0.0.1:5060", b.received());
        }
    }

    /**
     * Schema 5 adds {@code bindings.path} to a database of schema 4 (made here by removing the column
     * and its version row); a binding's Path is kept across a restart and lost by none written without one.
     */
    @Test
    @Timeout(30)
    void aSchemaFourDatabaseGainsThePathColumnAndKeepsBindingsPaths() throws Exception {
        try (Database db = Database.open(url(), "sa", "", 2);
             Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER TABLE bindings DROP COLUMN path");
            s.execute("DELETE FROM schema_version WHERE version = 5");
        }
        String path = "<sip:edge.example.com;lr;received=sip:198.51.100.7:5060>,<sip:core.example.com;lr>";
        try (Database db = Database.open(url(), "sa", "", 2);
             JdbcLocationService locations = new JdbcLocationService(db, 2, 100)) {
            try (Connection c = db.dataSource().getConnection()) {
                assertEquals(List.of(1, 2, 3, 4, 5, 6), SchemaMigratorTest.versions(c));
            }
            ContactChange alice = new ContactChange("sip:alice@198.51.100.7:5060", "<sip:alice@198.51.100.7:5060>",
                    Duration.ofHours(1), -1);
            ContactChange bob = new ContactChange("sip:bob@198.51.100.8:5060", "<sip:bob@198.51.100.8:5060>",
                    Duration.ofHours(1), -1);
            assertInstanceOf(RegisterOutcome.Applied.class, locations.register(new RegisterChange(
                    "sip:alice@example.com", "cid-1", 1, false, List.of(alice), "udp:203.0.113.1:5060", T0, null, path))
                    .get(10, TimeUnit.SECONDS));
            assertInstanceOf(RegisterOutcome.Applied.class, locations.register(new RegisterChange(
                    "sip:bob@example.com", "cid-2", 1, false, List.of(bob), "udp:198.51.100.8:5060", T0))
                    .get(10, TimeUnit.SECONDS));
        }
        try (Database db = Database.open(url(), "sa", "", 2);
             JdbcLocationService locations = new JdbcLocationService(db)) {
            assertEquals(path, locations.lookup("sip:alice@example.com", T0).get(10, TimeUnit.SECONDS)
                    .bindings().get(0).path());
            assertEquals(null, locations.lookup("sip:bob@example.com", T0).get(10, TimeUnit.SECONDS)
                    .bindings().get(0).path());
        }
    }

    @Test
    @Timeout(60)
    void twoServersStartingAtOnceApplyEachVersionOnce() throws Exception {
        int servers = 4;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(servers,
                r -> new Thread(r, "test-server-start-" + next.getAndIncrement()));
        try {
            List<Future<Database>> opened = new ArrayList<>();
            for (int i = 0; i < servers; i++) {
                Callable<Database> open = () -> {
                    start.await();
                    return Database.open(url(), "sa", "", 2);
                };
                opened.add(pool.submit(open));
            }
            start.countDown();
            List<Database> dbs = new ArrayList<>();
            for (Future<Database> f : opened) {
                dbs.add(f.get(30, TimeUnit.SECONDS));
            }
            try (Connection c = dbs.get(0).dataSource().getConnection()) {
                assertEquals(List.of(1, 2, 3, 4, 5, 6), SchemaMigratorTest.versions(c));
            }
            dbs.forEach(Database::close);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(30)
    void unreachableDatabaseFailsFastNamingTheUrlButNotThePassword() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/nowhere";
        SQLException e = assertThrows(SQLException.class,
                () -> Database.open(url, "sa", "hunter2-secret", 2));
        assertInstanceOf(DatabaseUnreachableException.class, e);
        assertTrue(e.getMessage().contains(url), e.getMessage());
        assertTrue(e.getMessage().contains("check that the database server runs"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertFalse(e.getMessage().contains("hunter2-secret"), e.getMessage());
    }

    @Test
    @Timeout(10)
    void passwordsInUrlsAreMasked() {
        assertEquals("jdbc:postgresql://db/sipcrypt?user=sip&password=<masked>&ssl=true",
                JdbcSecrets.maskUrl("jdbc:postgresql://db/sipcrypt?user=sip&password=hunter2&ssl=true"));
        assertEquals("jdbc:h2:file:/tmp/db;USER=sa;PASSWORD=<masked>",
                JdbcSecrets.maskUrl("jdbc:h2:file:/tmp/db;USER=sa;PASSWORD=hunter2"));
    }

    @Test
    @Timeout(10)
    void closeIsIdempotentAndRefusesConnectionsAfterwards() throws Exception {
        Database db = Database.open(url(), "sa", "", 1);
        db.close();
        db.close();
        assertThrows(SQLException.class, () -> db.dataSource().getConnection());
    }

    private static long appliedAt(Database db) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT applied_at FROM schema_version WHERE version = 1")) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
