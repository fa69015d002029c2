package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.UsersCommand;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * The subscriber database is a secret at rest: the data directory is the owner's alone, the
 * database files too, and the embedded database has a password of its own, which the server and
 * the {@code users} command share and which the H2 default ({@code sa} with no password) does not open.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SecretsAtRestIT {

    @TempDir
    Path dir;

    private static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static boolean posix(Path p) throws Exception {
        return Files.getFileStore(p).supportsFileAttributeView("posix");
    }

    @Test
    void dataDirectoryDatabaseFilesAndPasswordFileAreOwnerOnly() throws Exception {
        assumeTrue(posix(dir), "POSIX permissions");
        Path data = dir.resolve("data");
        try (TestServer server = TestServer.start(data)) {
            assertEquals("rwx------", perms(data));
            assertEquals("rw-------", perms(data.resolve("db.secret")));
            assertEquals("rw-------", perms(data.resolve("sipcrypt.mv.db")));
            try (var files = Files.list(data)) {
                for (Path f : files.toList()) {
                    assertFalse(perms(f).matches(".{3}.*[rwx].*"), f + " is " + perms(f));
                }
            }
        }
    }

    @Test
    void embeddedDatabaseHasAGeneratedPasswordTheH2DefaultDoesNotOpen() throws Exception {
        Path data = dir.resolve("data");
        try (TestServer server = TestServer.start(data)) {
            assertTrue(server.server() != null);
        }
        String secret = Files.readString(data.resolve("db.secret"), StandardCharsets.US_ASCII).trim();
        assertTrue(secret.length() >= 40, "a random password of 32 bytes, base64: " + secret.length());

        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(
                EmbeddedDatabase.url(data), "sa", "").close());
        assertEquals("28000", refused.getSQLState(), refused.getMessage());
        try (Connection c = DriverManager.getConnection(EmbeddedDatabase.url(data), "sa", secret)) {
            assertTrue(c.isValid(1));
        }
    }

    @Test
    void databaseMadeWithTheEmptyPasswordStillOpensAndIsGivenTheGeneratedOne() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        // What an older sipcrypt left: the schema and a registration, with sa and no password.
        try (Database old = Database.open(EmbeddedDatabase.url(data), "sa", "", 1);
             JdbcLocationService locations = new JdbcLocationService(old, 1, 10)) {
            locations.register(new RegisterChange("sip:alice@127.0.0.1", "old-call", 1, false,
                    List.of(new ContactChange("sip:alice@127.0.0.1:5999", "sip:alice@127.0.0.1:5999",
                            Duration.ofHours(1), -1)),
                    "udp:127.0.0.1:5999", java.time.Instant.now())).get(5, TimeUnit.SECONDS);
        }

        try (TestServer server = TestServer.start(data);
             SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@127.0.0.1", "query", 1, ""));
            String r = s.awaitMessage("SIP/2.0 200", Duration.ofSeconds(5));
            assertTrue(r != null && r.contains("sip:alice@127.0.0.1:5999"), "old binding kept: " + r);
        }
        String secret = Files.readString(data.resolve("db.secret"), StandardCharsets.US_ASCII).trim();
        assertThrows(SQLException.class, () -> DriverManager.getConnection(EmbeddedDatabase.url(data), "sa", "").close());
        try (Connection c = DriverManager.getConnection(EmbeddedDatabase.url(data), "sa", secret)) {
            assertTrue(c.isValid(1));
        }
    }

    @Test
    void usersCommandOpensTheDatabaseWithTheServersPassword() throws Exception {
        Path data = dir.resolve("data");
        assertEquals(0, users(data, "add", "alice", "s3cret"));
        assertTrue(Files.exists(data.resolve("db.secret")));
        try (TestServer server = TestServer.start(data, "auth", "true")) {
            assertTrue(server.server() != null);
        }
        assertEquals(0, users(data, "list"));
    }

    @Test
    void configuredPasswordIsUsedAndNoPasswordFileIsWritten() throws Exception {
        Path data = dir.resolve("data");
        try (TestServer server = TestServer.start(data, "db.password", "configured-password-1")) {
            assertTrue(server.server() != null);
        }
        assertFalse(Files.exists(data.resolve("db.secret")));
        try (Connection c = DriverManager.getConnection(EmbeddedDatabase.url(data), "sa", "configured-password-1")) {
            assertTrue(c.isValid(1));
        }
    }

    private static int users(Path data, String... args) {
        CommandLine cl = new CommandLine(new UsersCommand());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--data-dir";
        all[args.length + 1] = data.toString();
        int code = cl.execute(all);
        if (code != 0) {
            System.err.println(out.toString(StandardCharsets.UTF_8));
        }
        return code;
    }
}
