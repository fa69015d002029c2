package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped server jar started while its database (a JDBC URL to a database server on loopback
 * that is not running) cannot be reached: it exits with status 1 after one ERROR line that names the
 * database and what to check, with no stack trace and never the password.
 */
@Timeout(120)
class DatabaseDownAtStartIT {

    private static final Path JAR = Path.of("target", "sipcrypt-server.jar");
    private static final String PASSWORD = "hunter2-not-shown";

    @TempDir
    Path dir;

    @Test
    void unreachableDatabaseAtStartIsOneClearLineAndExitStatus1() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the server jar is built in the package phase: " + JAR.toAbsolutePath());
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        // nothing listens on the port any more: the connection is refused
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/./sipcrypt";
        Path log = dir.resolve("server.log");
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString(), "--data-dir", dir.resolve("data").toString(), "--listen", "udp:127.0.0.1:0",
                "--db", url, "--db-password", PASSWORD, "--stats-interval", "0")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean exited = server.waitFor(90, TimeUnit.SECONDS);
        if (!exited) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(exited, "the server gives up by itself:\n" + out);
        assertEquals(1, server.exitValue(), "exit status:\n" + out);

        List<String> errors = out.lines().filter(l -> l.contains(" ERROR ")).toList();
        assertEquals(1, errors.size(), "one ERROR line:\n" + out);
        String line = errors.get(0);
        assertTrue(line.contains("cannot reach database " + url), line);
        assertTrue(line.contains("check that the database server runs"), line);
        assertFalse(out.lines().anyMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by")),
                "no stack trace:\n" + out);
        assertFalse(out.contains(PASSWORD), "the password is never shown:\n" + out);
        assertFalse(out.contains("ready on"), out);
    }
}
