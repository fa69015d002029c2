package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.location.SchemaMigrator.Migration;

/** The one schema migrator, fed its own migrations, on an H2 file database. */
@Timeout(30)
class SchemaMigratorTest {

    private static final Migration FIRST = new Migration(1, List.of(
            "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)"));
    private static final Migration SECOND = new Migration(2, List.of(
            "CREATE TABLE IF NOT EXISTS u (id INTEGER PRIMARY KEY)",
            "CREATE INDEX IF NOT EXISTS u_id ON u (id)"));

    @TempDir
    Path dir;

    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "sa", "");
    }

    @Test
    void appliesEachVersionOnceInOrderAndLeavesAutoCommitAsItWas() throws Exception {
        SchemaMigrator migrator = SchemaMigrator.of(List.of(FIRST, SECOND));
        try (Connection c = connect()) {
            migrator.migrate(c, "test-db");
            migrator.migrate(c, "test-db");
            assertTrue(c.getAutoCommit());
            assertEquals(List.of(1, 2), versions(c));
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO u (id) VALUES (1)");
            }
        }
        assertEquals(2, migrator.latestVersion());
    }

    @Test
    void appendedVersionIsAppliedToAnOlderSchema() throws Exception {
        try (Connection c = connect()) {
            SchemaMigrator.of(List.of(FIRST)).migrate(c, "test-db");
            assertEquals(List.of(1), versions(c));
            SchemaMigrator.of(List.of(FIRST, SECOND)).migrate(c, "test-db");
            assertEquals(List.of(1, 2), versions(c));
        }
    }

    @Test
    void newerSchemaIsRefusedOnlyWhenAsked() throws Exception {
        try (Connection c = connect()) {
            SchemaMigrator.of(List.of(FIRST, SECOND)).migrate(c, "test-db");
            SchemaMigrator older = SchemaMigrator.of(List.of(FIRST));
            older.migrate(c, "test-db");
            SQLException e = assertThrows(SQLException.class,
                    () -> older.refusingNewerVersions().migrate(c, "test-db"));
            assertTrue(e.getMessage().contains("schema version 2 of test-db is newer"), e.getMessage());
            assertEquals(List.of(1, 2), versions(c));
        }
    }

    @Test
    void failingMigrationIsNotRecordedAndNamesTheDatabaseAndVersion() throws Exception {
        SchemaMigrator broken = SchemaMigrator.of(List.of(FIRST, new Migration(2, List.of("CREATE TABLE ("))));
        try (Connection c = connect()) {
            SQLException e = assertThrows(SQLException.class, () -> broken.migrate(c, "test-db"));
            assertTrue(e.getMessage().startsWith("migrating test-db to schema version 2 failed"), e.getMessage());
            assertEquals(List.of(1), versions(c));
            assertTrue(c.getAutoCommit());
        }
    }

    @Test
    void historyMustAscendAndMigrationsMustSaySomething() {
        assertThrows(IllegalArgumentException.class, () -> SchemaMigrator.of(List.of(SECOND, FIRST)));
        assertThrows(IllegalArgumentException.class, () -> SchemaMigrator.of(List.of(FIRST, FIRST)));
        assertThrows(IllegalArgumentException.class, () -> SchemaMigrator.of(List.of()));
        assertThrows(IllegalArgumentException.class, () -> new Migration(0, List.of("SELECT 1")));
        assertThrows(IllegalArgumentException.class, () -> new Migration(1, List.of()));
        assertEquals(1, SchemaMigrator.of(List.of(FIRST)).latestVersion());
    }

    /** The versions recorded in {@code schema_version}, in order. */
    static List<Integer> versions(Connection c) throws SQLException {
        List<Integer> v = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version FROM schema_version ORDER BY version")) {
            while (rs.next()) {
                v.add(rs.getInt(1));
            }
        }
        return v;
    }
}
