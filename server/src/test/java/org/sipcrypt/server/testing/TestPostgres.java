package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A throw-away PostgreSQL server for tests, from Debian's {@code postgresql} package: its own
 * cluster in a temporary directory, listening on 127.0.0.1 on a free port, trust authentication
 * for user {@code sipcrypt}, database {@code sipcrypt}. Run as root, the server runs as the
 * {@code postgres} user (PostgreSQL refuses root). Closing it stops the server and deletes the cluster.
 * Threading: start and close from the test thread.
 */
public final class TestPostgres implements RestartableDatabase {

    /** Install hint when the server binaries are missing. */
    public static final String INSTALL_HINT = "PostgreSQL not found: install it with 'apt-get install -y postgresql'";

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgres;

    private TestPostgres(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /**
     * One cluster for all the tests of a class, started before the first and closed after the last:
     * {@code @RegisterExtension static final TestPostgres.PerClass postgres = new TestPostgres.PerClass();}
     * Threading: JUnit's calls only.
     */
    public static final class PerClass implements BeforeAllCallback, AfterAllCallback {
        private TestPostgres postgres;

        @Override
        public void beforeAll(ExtensionContext context) throws Exception {
            postgres = TestPostgres.start();
        }

        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            if (postgres != null) {
                postgres.close();
            }
        }

        /** The JDBC URL of database {@code sipcrypt}. */
        public String url() {
            return postgres.url();
        }
    }

    /** Creates and starts a cluster. */
    public static TestPostgres start() throws IOException, InterruptedException, SQLException {
        Path bin = binaries();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("sipcrypt-pg");
        if (root) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        TestPostgres pg = new TestPostgres(bin, dir, port, root);
        try {
            pg.run(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", "sipcrypt",
                    "--auth=trust", "--no-sync", "-E", "UTF8");
            pg.startServer();
            try (Connection c = DriverManager.getConnection(pg.url("postgres"), "sipcrypt", "");
                 Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE sipcrypt");
            }
        } catch (IOException | SQLException | RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    private void startServer() throws IOException, InterruptedException {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "30",
                "-l", dir.resolve("server.log").toString(), "-o",
                "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start");
    }

    /**
     * Stops the server the way a crash does ({@code pg_ctl -m immediate}): connections are cut, and
     * what was committed is recovered from the log at the next start. The cluster is kept.
     */
    @Override
    public void stop() throws IOException, InterruptedException {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
    }

    /** Starts the server again after {@link #stop}, on the same port with the same cluster. */
    @Override
    public void startAgain() throws IOException, InterruptedException {
        startServer();
    }

    private static Path binaries() {
        Path root = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(root)) {
            try (Stream<Path> versions = Files.list(root)) {
                var found = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                        .max(Comparator.comparing(Path::toString));
                if (found.isPresent()) {
                    return found.get();
                }
            } catch (IOException e) {
                throw new IllegalStateException(INSTALL_HINT, e);
            }
        }
        throw new IllegalStateException(INSTALL_HINT);
    }

    /** The JDBC URL of a database on this server. */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** The JDBC URL of the {@code sipcrypt} database. */
    @Override
    public String url() {
        return url("sipcrypt");
    }

    private void run(String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (asPostgres) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("commands.log").toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", command));
        }
        if (p.exitValue() != 0) {
            throw new IOException("failed (" + p.exitValue() + "): " + String.join(" ", command) + "\n"
                    + Files.readString(dir.resolve("commands.log")));
        }
    }

    /** Stops the server at once and deletes the cluster. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            if (Files.exists(dir.resolve("data/postmaster.pid"))) {
                run(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w",
                        "stop");
            }
        } finally {
            FileTrees.delete(dir);
        }
    }
}
