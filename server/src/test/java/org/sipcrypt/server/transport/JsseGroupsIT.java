package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.OpenSslClient;
import picocli.CommandLine;

/**
 * {@code tls.groups} on the jsse engine, in a server JVM of its own (the shipped jar), since on
 * Java 17 the groups go JVM-wide into {@code jdk.tls.namedGroups}, which SunJSSE reads once: the
 * test JVM's own TLS must not decide it. Java 17 (this build's JVM) takes that path; Temurin 25,
 * where it is installed, takes {@code SSLParameters.setNamedGroups}. The server lists secp384r1
 * only; {@code openssl s_client} offers X25519 first (with its key share) and P-384, and must end on
 * P-384 (SunJSSE's own defaults would take X25519).
 */
@Timeout(120)
class JsseGroupsIT {

    private static final Path JAR = Path.of("target", "sipcrypt-server.jar");
    private static final Pattern READY = Pattern.compile("ready on .*tls:([0-9.]+):([0-9]+)", Pattern.MULTILINE);

    @TempDir
    Path dir;

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"this JVM", "/usr/lib/jvm/temurin-25-jdk-amd64"})
    void theJsseListenerOffersOnlyTheConfiguredGroup(String jdk) throws Exception {
        Path javaHome = jdk.equals("this JVM") ? Path.of(System.getProperty("java.home")) : Path.of(jdk);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(javaHome.resolve("bin/java")),
                "no JDK at " + javaHome);
        assertTrue(Files.isRegularFile(JAR), "the server jar is built in the package phase: " + JAR.toAbsolutePath());
        Path certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        Path log = dir.resolve("server.log");
        List<String> cmd = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-jar", JAR.toString(),
                "--data-dir", dir.resolve("data").toString(), "--listen", "tls:127.0.0.1:0",
                "--tls-cert", certs.resolve("server.pem").toString(), "--tls-key", certs.resolve("server-key.pem").toString(),
                "--tls-engine", "jsse", "--tls-groups", "secp384r1", "--stats-interval", "0"));
        Process server = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Await.until(() -> READY.matcher(read(log)).find() || !server.isAlive(), Duration.ofSeconds(60),
                    () -> "server started: " + read(log));
            Matcher m = READY.matcher(read(log));
            assertTrue(m.find(), "server exited at start:\n" + read(log));
            int port = Integer.parseInt(m.group(2));
            String out = OpenSslClient.run(certs, TlsListenerContract.options(port, "jsse-groups"), "SIP/2.0 200",
                    "-connect", "127.0.0.1:" + port, "-groups", "X25519:P-384", "-CAfile", "ca.pem",
                    "-verify_return_error", "-brief");
            assertTrue(out.contains("Protocol version: TLSv1.3") && out.contains("Server Temp Key: ECDH, secp384r1"),
                    out + "\n" + read(log));
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
        } finally {
            server.destroy();
            if (!server.waitFor(20, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
