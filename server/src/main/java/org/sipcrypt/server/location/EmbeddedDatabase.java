package org.sipcrypt.server.location;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded H2 database under the data directory, kept as a secret: it holds the subscribers'
 * HA1 values, which are password equivalents (RFC 3261 §22.4, RFC 7616 §5.13). The data directory
 * is created {@code 0700}, the database files and the password file are made {@code 0600} (where
 * the file system has POSIX permissions), and the database gets a random password of its own,
 * kept in {@value #SECRET_FILE} in the data directory, unless {@code db.password} is configured.
 * <p>
 * A database created before it had a password (the empty one) still opens: it is opened with the
 * empty password once, given the password in effect with {@code ALTER USER ... SET PASSWORD},
 * and opened again; this is logged at WARN once.
 * Threading: immutable (static methods only); {@link #open} blocks on file and database I/O.
 */
public final class EmbeddedDatabase {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);

    /** The file in the data directory holding the generated database password. */
    public static final String SECRET_FILE = "db.secret";

    /** The base name of the H2 files ({@code sipcrypt.mv.db}, {@code sipcrypt.trace.db}). */
    public static final String DB_NAME = "sipcrypt";

    /** H2's SQL state for a wrong user name or password. */
    private static final String WRONG_PASSWORD = "28000";

    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");

    private static final SecureRandom RANDOM = new SecureRandom();

    private EmbeddedDatabase() {
    }

    /** The JDBC URL of the embedded database under {@code dataDir}. */
    public static String url(Path dataDir) {
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve(DB_NAME) + ";DB_CLOSE_ON_EXIT=FALSE";
    }

    /**
     * Opens the database the server is configured with: the embedded one under {@code dataDir}
     * when {@code jdbcUrlOrNull} is null (see {@link #open}), else that URL with the password as
     * given. The server and the {@code users} command both open it this way.
     */
    public static Database openConfigured(String jdbcUrlOrNull, Path dataDir, String user, String password,
                                          int poolSize) throws SQLException, IOException {
        return openConfigured(jdbcUrlOrNull, dataDir, user, password, poolSize, Database.DEFAULT_CONNECT_TIMEOUT,
                Database.DEFAULT_PROBE_INTERVAL);
    }

    /**
     * As {@link #openConfigured(String, Path, String, String, int)}, with the connect timeout and the
     * breaker's probe interval ({@code db.connectTimeout}, {@code db.probeInterval}).
     */
    public static Database openConfigured(String jdbcUrlOrNull, Path dataDir, String user, String password,
                                          int poolSize, Duration connectTimeout, Duration probeInterval)
            throws SQLException, IOException {
        if (jdbcUrlOrNull == null) {
            return open(dataDir, user, password, poolSize, connectTimeout, probeInterval);
        }
        return Database.open(jdbcUrlOrNull, user, password, poolSize, connectTimeout, probeInterval);
    }

    /**
     * Opens the embedded database, creating the data directory and the password file when absent.
     *
     * @param dataDir            the data directory
     * @param user               database user
     * @param configuredPassword {@code db.password}; empty means "generate one and keep it in
     *                           {@value #SECRET_FILE}"
     * @param poolSize           most connections the pool holds
     * @throws SQLException when the database cannot be opened with the password in effect nor migrated to it
     * @throws IOException  when the data directory or the password file cannot be made or read
     */
    public static Database open(Path dataDir, String user, String configuredPassword, int poolSize)
            throws SQLException, IOException {
        return open(dataDir, user, configuredPassword, poolSize, Database.DEFAULT_CONNECT_TIMEOUT,
                Database.DEFAULT_PROBE_INTERVAL);
    }

    private static Database open(Path dataDir, String user, String configuredPassword, int poolSize,
                                 Duration connectTimeout, Duration probeInterval) throws SQLException, IOException {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(configuredPassword, "configuredPassword");
        createPrivateDirectory(dataDir);
        String password = configuredPassword.isEmpty() ? secret(dataDir) : configuredPassword;
        String url = url(dataDir);
        Database db;
        try {
            db = Database.open(url, user, password, poolSize, connectTimeout, probeInterval);
        } catch (SQLException e) {
            if (!WRONG_PASSWORD.equals(e.getSQLState()) || !Files.exists(dataDir.resolve(DB_NAME + ".mv.db"))) {
                throw e;
            }
            db = migrateFromEmptyPassword(url, user, password, poolSize, connectTimeout, probeInterval, e);
        }
        restrictFiles(dataDir);
        return db;
    }

    /**
     * A database made before it had a password: opened with the empty one, given {@code password},
     * and opened again with it.
     */
    private static Database migrateFromEmptyPassword(String url, String user, String password, int poolSize,
                                                     Duration connectTimeout, Duration probeInterval,
                                                     SQLException wrongPassword) throws SQLException {
        try (Database old = Database.open(url, user, "", 1);
             Connection c = old.dataSource().getConnection();
             Statement s = c.createStatement()) {
            // H2 keeps user names upper case; the password is a string literal (no parameters in DDL).
            s.execute("ALTER USER \"" + user.toUpperCase(Locale.ROOT).replace("\"", "\"\"")
                    + "\" SET PASSWORD '" + password.replace("'", "''") + "'");
        } catch (SQLException e) {
            e.addSuppressed(wrongPassword);
            throw new SQLException("embedded database opens with neither the password in effect nor the empty one: "
                    + JdbcSecrets.describe(e, password), e.getSQLState(), e);
        }
        log.warn("embedded database {} had the empty password; it now has the {} password",
                JdbcSecrets.maskUrl(url), "configured or generated (" + SECRET_FILE + ")");
        return Database.open(url, user, password, poolSize, connectTimeout, probeInterval);
    }

    /**
     * The generated password, read from {@value #SECRET_FILE}, or made and written there
     * ({@code 0600}) when the file does not exist yet.
     */
    static String secret(Path dataDir) throws IOException {
        Path file = dataDir.resolve(SECRET_FILE);
        if (!Files.exists(file)) {
            byte[] random = new byte[32];
            RANDOM.nextBytes(random);
            String fresh = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            Path tmp = dataDir.resolve(SECRET_FILE + ".tmp");
            Files.deleteIfExists(tmp);
            createPrivateFile(tmp);
            Files.writeString(tmp, fresh + "\n", StandardCharsets.US_ASCII);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException raced) {
                Files.deleteIfExists(tmp);
            }
            log.info("generated the embedded database password in {}", file.toAbsolutePath());
        }
        restrict(file, OWNER_FILE);
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        if (text.isEmpty()) {
            throw new IOException(file.toAbsolutePath() + " is empty (expected the database password;"
                    + " delete it only together with a database that never used it)");
        }
        return text;
    }

    /** Creates the data directory {@code 0700}; warns when an existing one is open to others. */
    static void createPrivateDirectory(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            if (posix(dir.toAbsolutePath().getParent())) {
                FileAttribute<Set<PosixFilePermission>> attr = PosixFilePermissions.asFileAttribute(OWNER_DIR);
                Files.createDirectory(dir, attr);
                // The umask may have taken bits away, never added any; set them exactly.
                Files.setPosixFilePermissions(dir, OWNER_DIR);
            } else {
                Files.createDirectory(dir);
            }
            return;
        }
        if (posix(dir)) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
            if (perms.stream().anyMatch(p -> !OWNER_DIR.contains(p))) {
                log.warn("data directory {} is {}: other local users can reach the subscriber database"
                                + " (chmod 700 {} to close it; see docs/operations.md, \"Secrets at rest\")",
                        dir.toAbsolutePath(), PosixFilePermissions.toString(perms), dir.toAbsolutePath());
            }
        }
    }

    /** Makes every database file ({@code sipcrypt.*}) owner-only. */
    static void restrictFiles(Path dataDir) throws IOException {
        if (!posix(dataDir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dataDir, DB_NAME + ".*")) {
            for (Path f : files) {
                if (Files.isRegularFile(f)) {
                    restrict(f, OWNER_FILE);
                }
            }
        }
    }

    private static void createPrivateFile(Path file) throws IOException {
        if (posix(file.getParent())) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_FILE));
            Files.setPosixFilePermissions(file, OWNER_FILE);
        } else {
            Files.createFile(file);
        }
    }

    private static void restrict(Path file, Set<PosixFilePermission> perms) throws IOException {
        if (posix(file) && !Files.getPosixFilePermissions(file).equals(perms)) {
            Files.setPosixFilePermissions(file, perms);
        }
    }

    private static boolean posix(Path p) throws IOException {
        return p != null && Files.getFileStore(p.toAbsolutePath()).supportsFileAttributeView("posix");
    }
}
