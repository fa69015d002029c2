package org.sipcrypt.server.location;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The location database: a HikariCP pool ({@code sipcrypt-db-pool}) and the schema, created or
 * migrated when the database is opened. Migrations are numbered lists of SQL statements in the
 * subset H2 and PostgreSQL share; the versions applied are rows of {@code schema_version}.
 * Applying them is idempotent, and two servers starting against one database at once apply each
 * version once: the loser of the race finds the version recorded and carries on.
 * A connection is waited for at most {@link #CONNECTION_TIMEOUT}, so requests fail quickly while
 * the database is down (the SIP layer answers 503), and the pool reconnects by itself when it is back.
 * Threading: thread-safe; {@link #open} and {@link #close} block, {@link #dataSource()} hands out
 * connections that block.
 */
public final class Database implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Database.class);

    /** The Hikari pool name; its housekeeping threads carry it too. */
    public static final String POOL_NAME = "sipcrypt-db-pool";

    /** How long a request waits for a connection before it fails. */
    public static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(3);

    private static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(1);


    /** One schema version: statements applied together; each must be safe to run twice. */
    private record Migration(int version, List<String> statements) {
    }

    /** The schema history, oldest first. Never edit an applied version; append a new one. */
    private static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, List.of(
                    // Every AOR that ever registered: lets the proxy tell 404 (unknown) from 480 (no binding).
                    "CREATE TABLE IF NOT EXISTS aors ("
                            + "aor VARCHAR(512) PRIMARY KEY, "
                            + "first_registered BIGINT NOT NULL, "
                            + "last_registered BIGINT NOT NULL)",
                    "CREATE TABLE IF NOT EXISTS bindings ("
                            + "aor VARCHAR(512) NOT NULL, "
                            + "contact_key VARCHAR(1024) NOT NULL, "
                            + "contact VARCHAR(2048) NOT NULL, "
                            + "expires_at BIGINT NOT NULL, "
                            + "call_id VARCHAR(256) NOT NULL, "
                            + "cseq BIGINT NOT NULL, "
                            + "q REAL NOT NULL, "
                            + "received VARCHAR(128) NOT NULL, "
                            + "updated_at BIGINT NOT NULL, "
                            + "PRIMARY KEY (aor, contact_key))",
                    "CREATE INDEX IF NOT EXISTS bindings_expires_at ON bindings (expires_at)")),
            new Migration(2, List.of(
                    // Digest subscribers (RFC 3261 §22): HA1 per algorithm, never the password.
                    "CREATE TABLE IF NOT EXISTS subscribers ("
                            + "realm VARCHAR(128) NOT NULL, "
                            + "username VARCHAR(128) NOT NULL, "
                            + "ha1_md5 VARCHAR(32) NOT NULL, "
                            + "ha1_sha256 VARCHAR(64) NOT NULL, "
                            + "enabled BOOLEAN NOT NULL, "
                            + "updated_at BIGINT NOT NULL, "
                            + "PRIMARY KEY (realm, username))")),
            new Migration(3, List.of(
                    // Legal Call-IDs longer than 256 characters were refused by the column (and answered 503);
                    // the registrar now stores up to 1024 and answers 400 beyond.
                    "ALTER TABLE bindings ALTER COLUMN call_id SET DATA TYPE VARCHAR(1024)")));

    private static final String CREATE_SCHEMA_VERSION =
            "CREATE TABLE IF NOT EXISTS schema_version ("
                    + "version INTEGER PRIMARY KEY, "
                    + "applied_at BIGINT NOT NULL)";

    private final HikariDataSource dataSource;
    private final String maskedUrl;
    private final int poolSize;

    private Database(HikariDataSource dataSource, String maskedUrl, int poolSize) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
        this.poolSize = poolSize;
    }

    /**
     * Opens the pool, checks that the database answers and brings the schema to the latest version.
     *
     * @param jdbcUrl  e.g. {@code jdbc:h2:file:/var/lib/sipcrypt/db} or {@code jdbc:postgresql://db/sipcrypt}
     * @param user     database user
     * @param password database password, or {@code null} for none; never logged
     * @param poolSize most connections the pool holds
     * @throws SQLException when the database cannot be reached or migrated; the message names the URL
     *                      (with any password parameter masked) and never the password
     */
    public static Database open(String jdbcUrl, String user, String password, int poolSize)
            throws SQLException {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
        }
        String masked = JdbcSecrets.maskUrl(jdbcUrl);

        HikariConfig config = new HikariConfig();
        config.setPoolName(POOL_NAME);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        String driver = driverOf(jdbcUrl);
        if (driver != null) {
            config.setDriverClassName(driver);
        }
        config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        config.setValidationTimeout(VALIDATION_TIMEOUT.toMillis());
        // Fail at once when the database cannot be reached at start-up (a positive value means
        // "try for this many milliseconds, then throw").
        config.setInitializationFailTimeout(1);
        config.setExceptionOverrideClassName(BrokenConnectionOverride.class.getName());

        HikariDataSource ds;
        try {
            ds = new HikariDataSource(config);
        } catch (HikariPool.PoolInitializationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            String state = cause instanceof SQLException sql ? sql.getSQLState() : null;
            throw new SQLException("cannot reach database " + masked + ": " + JdbcSecrets.describe(cause, password),
                    state, cause);
        } catch (RuntimeException e) {
            // Hikari reports a URL no driver accepts and similar set-up failures unchecked.
            throw new SQLException("cannot open database " + masked + ": " + e.getClass().getSimpleName(), e);
        }

        Database db = new Database(ds, masked, poolSize);
        try {
            db.migrate();
        } catch (SQLException | RuntimeException e) {
            ds.close();
            throw e;
        }
        log.info("location database {} open (pool {} of {} connections, schema version {})",
                masked, POOL_NAME, poolSize, latestVersion());
        return db;
    }

    /**
     * The class of the bundled JDBC driver that accepts {@code jdbcUrl}, or null to leave it to
     * {@link java.sql.DriverManager}. In a servlet container DriverManager does not see the
     * drivers in the web application's own libraries, so the pool is told the class by name.
     */
    private static String driverOf(String jdbcUrl) {
        for (java.sql.Driver d : java.util.ServiceLoader.load(java.sql.Driver.class, Database.class.getClassLoader())) {
            try {
                if (d.acceptsURL(jdbcUrl)) {
                    return d.getClass().getName();
                }
            } catch (SQLException e) {
                log.debug("JDBC driver {} cannot judge {}: {}", d.getClass().getName(), JdbcSecrets.maskUrl(jdbcUrl),
                        e.toString());
            }
        }
        return null;
    }

    /** The pool; connections from it are in auto-commit mode when handed out. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The JDBC URL, with any password parameter masked, as it may be logged. */
    public String url() {
        return maskedUrl;
    }

    /** Most connections the pool holds. */
    public int poolSize() {
        return poolSize;
    }

    /** The newest schema version this code knows. */
    public static int latestVersion() {
        return MIGRATIONS.get(MIGRATIONS.size() - 1).version();
    }

    /**
     * Applies every migration not yet recorded in {@code schema_version}. Runs at {@link #open};
     * public so an operator tool can re-run it, which does nothing once the schema is current.
     */
    public void migrate() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            createVersionTable(c);
            for (Migration m : MIGRATIONS) {
                if (!isApplied(c, m.version())) {
                    apply(c, m);
                }
            }
        }
    }

    private void createVersionTable(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(CREATE_SCHEMA_VERSION);
        } catch (SQLException first) {
            // PostgreSQL: two concurrent CREATE TABLE IF NOT EXISTS can both miss the table and the
            // second fails on the catalog's unique index. By now the other one has committed.
            log.debug("{}: creating schema_version raced ({}); retrying", maskedUrl, first.toString());
            try (Statement s = c.createStatement()) {
                s.execute(CREATE_SCHEMA_VERSION);
            } catch (SQLException second) {
                second.addSuppressed(first);
                throw new SQLException("cannot create schema_version in " + maskedUrl + ": "
                        + second.getMessage(), second.getSQLState(), second);
            }
        }
    }

    /**
     * Applies one migration in one transaction. Where DDL is transactional (PostgreSQL) the version
     * row is inserted first: a second server doing the same waits on that row and then fails on the
     * primary key. Where DDL commits (H2) the idempotent statements run first and the row is
     * inserted last. Either way, a failure after which the version is found recorded means another
     * server applied it.
     */
    private void apply(Connection c, Migration m) throws SQLException {
        boolean ddlCommits = c.getMetaData().dataDefinitionCausesTransactionCommit();
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
            log.info("{}: applied schema version {}", maskedUrl, m.version());
        } catch (SQLException e) {
            try {
                c.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            boolean appliedElsewhere;
            try {
                appliedElsewhere = isApplied(c, m.version());
                c.commit();
            } catch (SQLException checkFailure) {
                e.addSuppressed(checkFailure);
                appliedElsewhere = false;
            }
            if (!appliedElsewhere) {
                throw new SQLException("migrating " + maskedUrl + " to schema version " + m.version()
                        + " failed: " + e.getMessage(), e.getSQLState(), e);
            }
            log.info("{}: schema version {} was applied concurrently by another server ({})",
                    maskedUrl, m.version(), e.toString());
        } finally {
            c.setAutoCommit(true);
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

    /** Closes the pool; connections in use are closed as they are returned. Idempotent. */
    @Override
    public void close() {
        if (!dataSource.isClosed()) {
            dataSource.close();
            log.info("location database {} closed", maskedUrl);
        }
    }

    @Override
    public String toString() {
        return "Database[" + maskedUrl + "]";
    }
}
