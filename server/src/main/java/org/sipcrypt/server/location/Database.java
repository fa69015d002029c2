package org.sipcrypt.server.location;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The location database: a HikariCP pool ({@code sipcrypt-db-pool-N}) and the schema, created or
 * migrated when the database is opened ({@link LocationSchema} by {@link SchemaMigrator}: applying
 * it is idempotent, and two servers starting against one database at once apply each version once).
 * A connection is waited for at most {@code connectTimeout} ({@link #DEFAULT_CONNECT_TIMEOUT}); when
 * that fails for want of the database, its {@link #breaker()} opens and requests needing it fail at
 * once (the SIP layer answers 503) until a probe finds it back. The pool keeps no minimum of idle
 * connections, so while the database is down HikariCP does not keep retrying in the background with
 * a back-off that grows to 5 s, and the first request after the breaker closes connects at once.
 * Opening checks first, on a connection outside the pool, that the database answers, so a database
 * that is down at start is one {@link DatabaseUnreachableException} with a one-line message.
 * Threading: thread-safe; {@link #open}, {@link #probe} and {@link #close} block,
 * {@link #dataSource()} hands out connections that block.
 */
public final class Database implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Database.class);

    /** The Hikari pool name; its housekeeping threads carry it too. */
    public static final String POOL_NAME = "sipcrypt-db-pool";
    private static final java.util.concurrent.atomic.AtomicInteger POOLS = new java.util.concurrent.atomic.AtomicInteger();

    /** How long a request waits for a connection before it fails, unless told otherwise ({@code db.connectTimeout}). */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);

    /** How often an open breaker probes the database, unless told otherwise ({@code db.probeInterval}). */
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(250);

    private static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(1);


    private final HikariDataSource dataSource;
    private final String maskedUrl;
    private final int poolSize;
    private final Endpoint endpoint;
    private final DatabaseBreaker breaker;

    private Database(HikariDataSource dataSource, String maskedUrl, int poolSize, Endpoint endpoint,
                     Duration probeInterval) {
        this.dataSource = dataSource;
        this.maskedUrl = maskedUrl;
        this.poolSize = poolSize;
        this.endpoint = endpoint;
        this.breaker = new DatabaseBreaker(maskedUrl, this::probe, probeInterval, System::nanoTime);
    }

    /** Where the database is and how to log in; the password is never shown. */
    private record Endpoint(String url, String user, String password, Duration timeout) {
        @Override
        public String toString() {
            return JdbcSecrets.maskUrl(url);
        }
    }

    /** Opens the database with the default connect timeout and probe interval. */
    public static Database open(String jdbcUrl, String user, String password, int poolSize)
            throws SQLException {
        return open(jdbcUrl, user, password, poolSize, DEFAULT_CONNECT_TIMEOUT, DEFAULT_PROBE_INTERVAL);
    }

    /**
     * Opens the pool, checks that the database answers and brings the schema to the latest version.
     *
     * @param jdbcUrl  e.g. {@code jdbc:h2:file:/var/lib/sipcrypt/db} or {@code jdbc:postgresql://db/sipcrypt}
     * @param user     database user
     * @param password database password, or {@code null} for none; never logged
     * @param poolSize most connections the pool holds
     * @param connectTimeout longest wait for a connection ({@code db.connectTimeout}, at least 250 ms)
     * @param probeInterval  how often the breaker probes a database that went away ({@code db.probeInterval})
     * @throws DatabaseUnreachableException when the database cannot be reached; the message is one line
     * @throws SQLException when the database refuses us or cannot be migrated; the message names the URL
     *                      (with any password parameter masked) and never the password
     */
    public static Database open(String jdbcUrl, String user, String password, int poolSize,
                                Duration connectTimeout, Duration probeInterval) throws SQLException {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
        }
        if (connectTimeout.compareTo(Duration.ofMillis(250)) < 0) {
            throw new IllegalArgumentException("connectTimeout must be at least 250 ms: " + connectTimeout);
        }
        String masked = JdbcSecrets.maskUrl(jdbcUrl);
        Endpoint endpoint = new Endpoint(jdbcUrl, user, password, connectTimeout);
        check(endpoint, masked);

        HikariConfig config = new HikariConfig();
        // one name per pool, so that closing one waits for its own threads only
        config.setPoolName(POOL_NAME + "-" + POOLS.incrementAndGet());
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(poolSize);
        // No idle minimum: see the class comment (HikariCP's background refill backs off up to 5 s).
        config.setMinimumIdle(0);
        String driver = driverOf(jdbcUrl);
        if (driver != null) {
            config.setDriverClassName(driver);
        }
        config.setConnectionTimeout(connectTimeout.toMillis());
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
            String reason = JdbcSecrets.describe(cause, password).replace('\n', ' ').replace('\r', ' ');
            if (DatabaseBreaker.isOutage(cause)) {
                throw new DatabaseUnreachableException("cannot reach database " + masked + ": " + reason
                        + unreachableHint(jdbcUrl), state, cause);
            }
            throw new SQLException("cannot reach database " + masked + ": " + reason, state, cause);
        } catch (RuntimeException e) {
            // Hikari reports a URL no driver accepts and similar set-up failures unchecked.
            throw new SQLException("cannot open database " + masked + ": " + e.getClass().getSimpleName(), e);
        }

        Database db = new Database(ds, masked, poolSize, endpoint, probeInterval);
        try {
            db.migrate();
        } catch (SQLException | RuntimeException e) {
            db.breaker.close();
            ds.close();
            throw e;
        }
        log.info("location database {} open (pool {} of {} connections, schema version {})",
                masked, ds.getPoolName(), poolSize, latestVersion());
        return db;
    }

    /**
     * The first check at {@link #open}: one connection outside the pool. A database that cannot be
     * reached is a {@link DatabaseUnreachableException} with a one-line message; any other refusal
     * (wrong password, unknown database) keeps the driver's SQL state.
     */
    private static void check(Endpoint endpoint, String masked) throws SQLException {
        try {
            driverFor(endpoint.url());
        } catch (SQLException e) {
            // DriverManager says 08001 (a connection exception) here too, but nothing was tried.
            throw new SQLException("cannot open database " + masked
                    + ": no JDBC driver accepts this URL (expected jdbc:h2:... or jdbc:postgresql:...)", e);
        }
        try {
            connectAndValidate(endpoint);
        } catch (SQLException e) {
            String reason = JdbcSecrets.describe(e, endpoint.password()).replace('\n', ' ').replace('\r', ' ');
            if (DatabaseBreaker.isOutage(e)) {
                throw new DatabaseUnreachableException("cannot reach database " + masked + ": " + reason
                        + unreachableHint(endpoint.url()), e.getSQLState(), e);
            }
            throw new SQLException("cannot open database " + masked + ": " + reason, e.getSQLState(), e);
        }
    }

    /** What the operator should check when the database at {@code jdbcUrl} cannot be reached. */
    static String unreachableHint(String jdbcUrl) {
        boolean embedded = jdbcUrl.startsWith("jdbc:h2:") && !jdbcUrl.startsWith("jdbc:h2:tcp:")
                && !jdbcUrl.startsWith("jdbc:h2:ssl:");
        return embedded
                ? " (check that no other process has the embedded database open, such as a running server)"
                : " (check that the database server runs and accepts connections from this host; the URL is the db setting)";
    }

    /**
     * Checks that the database answers, on a connection of its own outside the pool (the pool's
     * connections may all be busy or broken): what the breaker runs while the database is down.
     * Blocks for about {@code db.connectTimeout} at most where the driver honours timeouts.
     */
    public void probe() throws SQLException {
        connectAndValidate(endpoint);
    }

    private static void connectAndValidate(Endpoint endpoint) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", endpoint.user());
        if (endpoint.password() != null) {
            props.setProperty("password", endpoint.password());
        }
        int seconds = (int) Math.max(1, (endpoint.timeout().toMillis() + 999) / 1000);
        if (endpoint.url().startsWith("jdbc:postgresql:")) {
            // PgJDBC's own bounds on connecting and logging in (H2 refuses unknown properties).
            props.setProperty("connectTimeout", Integer.toString(seconds));
            props.setProperty("loginTimeout", Integer.toString(seconds));
            props.setProperty("socketTimeout", Integer.toString(seconds + 1));
        }
        Connection opened = driverFor(endpoint.url()).connect(endpoint.url(), props);
        if (opened == null) {
            throw new SQLException("no JDBC driver accepts " + JdbcSecrets.maskUrl(endpoint.url()), "08001");
        }
        try (Connection c = opened) {
            if (!c.isValid(seconds)) {
                throw new SQLNonTransientConnectionException("database " + endpoint + " did not answer within "
                        + seconds + " s", "08006");
            }
        }
    }

    /** The circuit breaker of this database: open while it is known to be unreachable. */
    public DatabaseBreaker breaker() {
        return breaker;
    }

    /**
     * The class of the bundled JDBC driver that accepts {@code jdbcUrl}, or null to leave it to
     * {@link java.sql.DriverManager}. In a servlet container DriverManager does not see the
     * drivers in the web application's own libraries, so the pool is told the class by name.
     */
    private static String driverOf(String jdbcUrl) {
        try {
            return driverFor(jdbcUrl).getClass().getName();
        } catch (SQLException e) {
            return null;
        }
    }

    /**
     * The JDBC driver that accepts {@code jdbcUrl}: one bundled with the server (found with the
     * server's own class loader, which a servlet container's DriverManager does not search), else
     * whatever {@link java.sql.DriverManager} knows.
     */
    private static java.sql.Driver driverFor(String jdbcUrl) throws SQLException {
        for (java.sql.Driver d : java.util.ServiceLoader.load(java.sql.Driver.class, Database.class.getClassLoader())) {
            try {
                if (d.acceptsURL(jdbcUrl)) {
                    return d;
                }
            } catch (SQLException e) {
                log.debug("JDBC driver {} cannot judge {}: {}", d.getClass().getName(), JdbcSecrets.maskUrl(jdbcUrl),
                        e.toString());
            }
        }
        return DriverManager.getDriver(jdbcUrl);
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
        return LocationSchema.MIGRATOR.latestVersion();
    }

    /**
     * Applies every migration not yet recorded in {@code schema_version}. Runs at {@link #open};
     * public so an operator tool can re-run it, which does nothing once the schema is current.
     */
    public void migrate() throws SQLException {
        try (Connection c = migrationConnection()) {
            LocationSchema.MIGRATOR.migrate(c, maskedUrl);
        }
    }

    /**
     * A pooled connection for the migration. While another process migrates the same embedded H2
     * database, its ALTER TABLE holds the database and a new connection may take longer than
     * {@code db.connectTimeout}: at start only, the pool is asked up to {@value #MIGRATION_CONNECT_ATTEMPTS}
     * times before the start fails.
     */
    private Connection migrationConnection() throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return dataSource.getConnection();
            } catch (java.sql.SQLTransientConnectionException e) {
                if (attempt == MIGRATION_CONNECT_ATTEMPTS) {
                    throw e;
                }
                log.debug("{}: no connection for the schema migration yet ({}); asking again", maskedUrl,
                        e.toString());
            }
        }
    }

    private static final int MIGRATION_CONNECT_ATTEMPTS = 5;

    /** Stops the breaker's probes and closes the pool; connections in use are closed as they are returned. Idempotent. */
    @Override
    public void close() {
        breaker.close();
        if (!dataSource.isClosed()) {
            dataSource.close();
            awaitPoolThreads(dataSource.getPoolName(), Duration.ofSeconds(5));
            log.info("location database {} closed", maskedUrl);
        }
    }

    /**
     * Waits until the pool's own threads (housekeeper, connection adder and closer) have ended: the
     * pool's close only waits for their executors to terminate, and a thread can still be finishing
     * then, which a servlet container reports as leaked when the WAR is undeployed.
     */
    private static void awaitPoolThreads(String poolName, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            boolean ours = t.getName().startsWith(poolName + " ") || t.getName().startsWith(poolName + ":");
            if (!ours || t == Thread.currentThread()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                t.join(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "Database[" + maskedUrl + "]";
    }
}
