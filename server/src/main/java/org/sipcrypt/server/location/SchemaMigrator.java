package org.sipcrypt.server.location;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a database's schema to the newest of a numbered list of migrations: lists of SQL
 * statements in the subset H2 and PostgreSQL share, each safe to run twice. The versions applied
 * are rows of {@code schema_version}; every version not recorded there is applied, in order, in a
 * transaction of its own. Two processes migrating one database at once apply each version once:
 * the loser of the race finds the version recorded and carries on. The server's location database
 * ({@link LocationSchema}) and the crypto lab's result store each feed it their own migrations.
 * Threading: immutable; runs on the caller's connection and blocks; migrations of one database in one JVM take turns.
 */
public final class SchemaMigrator {

    private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

    /**
     * How many times a migration runs where DDL commits before its failure is reported; between
     * attempts the process waits a little longer each time (50 ms, 100 ms, ...: at most 2.25 s in
     * all), so that another process's ALTER TABLE holding the table's lock can finish.
     */
    private static final int DDL_ATTEMPTS = 10;

    private static final String CREATE_SCHEMA_VERSION =
            "CREATE TABLE IF NOT EXISTS schema_version ("
                    + "version INTEGER PRIMARY KEY, "
                    + "applied_at BIGINT NOT NULL)";

    /** One schema version: statements applied together; each must be safe to run twice. */
    public record Migration(int version, List<String> statements) {
        public Migration {
            if (version < 1) {
                throw new IllegalArgumentException("version must be at least 1: " + version);
            }
            statements = List.copyOf(statements);
            if (statements.isEmpty()) {
                throw new IllegalArgumentException("migration " + version + " has no statements");
            }
        }
    }

    private final List<Migration> migrations;
    private final boolean refuseNewer;

    private SchemaMigrator(List<Migration> migrations, boolean refuseNewer) {
        this.migrations = List.copyOf(migrations);
        this.refuseNewer = refuseNewer;
    }

    /**
     * A migrator of the given history, oldest first, versions strictly ascending. Never edit an
     * applied version; append a new one.
     */
    public static SchemaMigrator of(List<Migration> migrations) {
        Objects.requireNonNull(migrations, "migrations");
        if (migrations.isEmpty()) {
            throw new IllegalArgumentException("no migrations");
        }
        for (int i = 1; i < migrations.size(); i++) {
            if (migrations.get(i).version() <= migrations.get(i - 1).version()) {
                throw new IllegalArgumentException("migration versions must ascend: "
                        + migrations.get(i - 1).version() + " before " + migrations.get(i).version());
            }
        }
        return new SchemaMigrator(migrations, false);
    }

    /**
     * This migrator, failing instead when the database records a version newer than it knows
     * (written by newer code whose schema this code may misread).
     */
    public SchemaMigrator refusingNewerVersions() {
        return new SchemaMigrator(migrations, true);
    }

    /** The newest schema version this migrator knows. */
    public int latestVersion() {
        return migrations.get(migrations.size() - 1).version();
    }

    /**
     * Applies every migration not yet recorded in {@code schema_version}, creating that table first.
     * Doing it again once the schema is current does nothing.
     *
     * @param c        a connection in auto-commit mode; left in the mode it came in
     * @param database how the database is named in messages and logs (a masked URL)
     * @throws SQLException when a migration fails and was not applied by another process meanwhile,
     *                      or, when refusing newer versions, the database has one; the message names
     *                      {@code database} and the version
     */
    public void migrate(Connection c, String database) throws SQLException {
        Objects.requireNonNull(database, "database");
        // servers of one JVM migrating one database take turns: H2 runs each ALTER TABLE as a copy
        // of the table, which another session's DDL meanwhile finds missing or locked
        synchronized (IN_THIS_JVM.computeIfAbsent(database, k -> new Object())) {
            migrateNow(c, database);
        }
    }

    /** One lock per database (its masked URL) for the migrations run in this JVM; a few entries at most. */
    private static final java.util.concurrent.ConcurrentMap<String, Object> IN_THIS_JVM =
            new java.util.concurrent.ConcurrentHashMap<>();

    private void migrateNow(Connection c, String database) throws SQLException {
        createVersionTable(c, database);
        if (refuseNewer) {
            int recorded = recordedVersion(c);
            if (recorded > latestVersion()) {
                throw new SQLException("schema version " + recorded + " of " + database
                        + " is newer than this code knows (" + latestVersion() + "); use a newer version");
            }
        }
        for (Migration m : migrations) {
            if (!isApplied(c, m.version())) {
                apply(c, m, database);
            }
        }
    }

    private static void createVersionTable(Connection c, String database) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(CREATE_SCHEMA_VERSION);
        } catch (SQLException first) {
            // PostgreSQL: two concurrent CREATE TABLE IF NOT EXISTS can both miss the table and the
            // second fails on the catalog's unique index. By now the other one has committed.
            log.debug("{}: creating schema_version raced ({}); retrying", database, first.toString());
            try (Statement s = c.createStatement()) {
                s.execute(CREATE_SCHEMA_VERSION);
            } catch (SQLException second) {
                second.addSuppressed(first);
                throw new SQLException("cannot create schema_version in " + database + ": "
                        + second.getMessage(), second.getSQLState(), second);
            }
        }
    }

    /**
     * Applies one migration in one transaction. Where DDL is transactional (PostgreSQL) the version
     * row is inserted first: a second process doing the same waits on that row and then fails on the
     * primary key. Where DDL commits (H2) the idempotent statements run first and the row is
     * inserted last, so a migration cut short is not recorded and runs again. Either way, a failure
     * after which the version is found recorded means another process applied it.
     */
    private static void apply(Connection c, Migration m, String database) throws SQLException {
        boolean ddlCommits = c.getMetaData().dataDefinitionCausesTransactionCommit();
        for (int attempt = 1; ; attempt++) {
            try {
                applyOnce(c, m, database, ddlCommits);
                return;
            } catch (SQLException e) {
                // Where DDL commits, the statements are idempotent and two processes may run them at
                // once; the database may then refuse one of them (H2: "object already exists" from
                // inside CREATE INDEX IF NOT EXISTS, or a lock timeout while another ALTER TABLE
                // holds the table). Run again, they find the objects made.
                if (!ddlCommits || attempt == DDL_ATTEMPTS) {
                    throw e;
                }
                log.debug("{}: schema version {} raced another process ({}); applying it again",
                        database, m.version(), e.toString());
                try {
                    Thread.sleep(50L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(interrupted);
                    throw e;
                }
            }
        }
    }

    private static void applyOnce(Connection c, Migration m, String database, boolean ddlCommits)
            throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            if (!ddlCommits) {
                recordVersion(c, m.version());
            }
            try (Statement s = c.createStatement()) {
                for (String sql : m.statements()) {
                    s.execute(sql);
                }
            }
            if (ddlCommits) {
                recordVersion(c, m.version());
            }
            c.commit();
            log.info("{}: applied schema version {}", database, m.version());
        } catch (SQLException e) {
            SqlTransactions.rollbackAfter(c, e);
            boolean appliedElsewhere;
            try {
                appliedElsewhere = isApplied(c, m.version());
                c.commit();
            } catch (SQLException checkFailure) {
                e.addSuppressed(checkFailure);
                appliedElsewhere = false;
            }
            if (!appliedElsewhere) {
                throw new SQLException("migrating " + database + " to schema version " + m.version()
                        + " failed: " + e.getMessage(), e.getSQLState(), e);
            }
            log.info("{}: schema version {} was applied concurrently by another process ({})",
                    database, m.version(), e.toString());
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    private static void recordVersion(Connection c, int version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)")) {
            ps.setInt(1, version);
            ps.setLong(2, System.currentTimeMillis());
            ps.executeUpdate();
        }
    }

    private static boolean isApplied(Connection c, int version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM schema_version WHERE version = ?")) {
            ps.setInt(1, version);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static int recordedVersion(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT MAX(version) FROM schema_version");
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }
}
