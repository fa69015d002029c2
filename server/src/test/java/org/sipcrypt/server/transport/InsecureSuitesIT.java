package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.JdkTlsProbe;
import picocli.CommandLine;

/**
 * RC4 and 3DES with the lab switch, against the JDK's SunJSSE as the independent peer (openssl 3
 * has neither suite): both on the jsse engine, 3DES also on the bc engine; and a static-RSA suite
 * on the jsse engine of a JDK that refuses static RSA key exchange. The JDK reads
 * {@code jdk.tls.disabledAlgorithms} once per JVM, so the server jar and the client
 * ({@link JdkTlsProbe}) each run in a JVM of their own.
 */
@Timeout(120)
class InsecureSuitesIT {

    private static final Path JAR = Path.of("target", "sipcrypt-server.jar");

    @TempDir
    Path dir;

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** Runs the probe; returns its exit code and output. */
    private String probe(int port, Path ca, String suite, String... jvmOptions) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java()));
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), JdkTlsProbe.class.getName(),
                Integer.toString(port), ca.toString(), suite));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe finished");
        return p.exitValue() + " " + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    }

    private Process server(Path log, int port, String... extra) throws IOException {
        return server(List.of(), log, port, extra);
    }

    private Process server(List<String> jvmOptions, Path log, int port, String... extra) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(java()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", JAR.toString(), "--data-dir", dir.resolve("data").toString(),
                "--listen", "udp:127.0.0.1:" + port, "--listen", "tls:127.0.0.1:" + port,
                "--tls-cert", dir.resolve("certs/server.pem").toString(),
                "--tls-key", dir.resolve("certs/server-key.pem").toString(), "--stats-interval", "0"));
        cmd.addAll(List.of(extra));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static boolean contains(Path log, String text) {
        try {
            return Files.readString(log).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void rc4And3desHandshakeWithTheJdkOnlyWithTheLabSwitch() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the server jar is built in the package phase: " + JAR.toAbsolutePath());
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.resolve("certs").toString()));
        Path ca = dir.resolve("certs/ca.pem");

        Process refused = server(dir.resolve("refused.log"), freePort(), "--tls-ciphers", "rc4");
        assertTrue(refused.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, refused.exitValue(), Files.readString(dir.resolve("refused.log")));
        assertTrue(Files.readString(dir.resolve("refused.log")).contains("tls.ciphers: \"rc4\" is insecure"));

        int port = freePort();
        Path log = dir.resolve("lab.log");
        Process lab = server(log, port, "--tls-allow-insecure", "--tls-ciphers", "3des,rc4,aes");
        try {
            Await.until(() -> contains(log, "ready on"), Duration.ofSeconds(60),
                    () -> "server started: " + log);
            assertEquals("0 negotiated SSL_RSA_WITH_3DES_EDE_CBC_SHA", probe(port, ca, "SSL_RSA_WITH_3DES_EDE_CBC_SHA"));
            assertEquals("0 negotiated SSL_RSA_WITH_RC4_128_SHA", probe(port, ca, "SSL_RSA_WITH_RC4_128_SHA"));
            assertTrue(Files.readString(log).contains("insecure TLS suites enabled: [3des, rc4]"), "warned at start");
        } finally {
            stop(lab);
        }

        int bcPort = freePort();
        Path bcLog = dir.resolve("bc.log");
        Process bc = server(bcLog, bcPort, "--tls-allow-insecure", "--tls-ciphers", "3des", "--tls-engine", "bc",
                "--tls-crypto", "bc");
        try {
            Await.until(() -> contains(bcLog, "ready on"), Duration.ofSeconds(60), () -> "server started: " + bcLog);
            assertEquals("0 negotiated SSL_RSA_WITH_3DES_EDE_CBC_SHA", probe(bcPort, ca, "SSL_RSA_WITH_3DES_EDE_CBC_SHA"));
            assertTrue(Files.readString(bcLog).contains("offers insecure suites [3des]"), "warned for the listener");
        } finally {
            stop(bc);
        }

        int port2 = freePort();
        Process secure = server(dir.resolve("secure.log"), port2);
        try {
            Await.until(() -> contains(dir.resolve("secure.log"), "ready on"), Duration.ofSeconds(60),
                    () -> "server started");
            assertTrue(probe(port2, ca, "SSL_RSA_WITH_3DES_EDE_CBC_SHA").startsWith("1 failed"),
                    "a default server does not speak 3DES");
        } finally {
            stop(secure);
        }
    }

    /**
     * A JDK that refuses static RSA key exchange: Debian's OpenJDK 17.0.21 lists {@code TLS_RSA_*} in
     * {@code jdk.tls.disabledAlgorithms}; the suite's own name is listed too, so that a JDK which
     * does not read patterns there (17.0.15) refuses it as well. The jsse server configured with
     * RFC 3261's suite lifts exactly those two entries for itself, says so once, and handshakes with
     * a SunJSSE client that lifts them the same way.
     */
    @Test
    void aConfiguredStaticRsaSuiteIsLiftedOutOfTheJdksRefusal() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the server jar is built in the package phase: " + JAR.toAbsolutePath());
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.resolve("certs").toString()));
        Path security = dir.resolve("refuses-static-rsa.security");
        Files.writeString(security, "jdk.tls.disabledAlgorithms=SSLv3, TLSv1, TLSv1.1, DTLSv1.0, RC4, DES, MD5withRSA,"
                + " DH keySize < 1024, EC keySize < 224, 3DES_EDE_CBC, anon, NULL, ECDH, TLS_RSA_*,"
                + " TLS_RSA_WITH_AES_128_CBC_SHA, rsa_pkcs1_sha1 usage HandshakeSignature,"
                + " ecdsa_sha1 usage HandshakeSignature, dsa_sha1 usage HandshakeSignature\n");
        String refusing = "-Djava.security.properties=" + security;
        int port = freePort();
        Path log = dir.resolve("rsa.log");
        Process server = server(List.of(refusing), log, port, "--tls-engine", "jsse",
                "--tls-ciphers", "TLS_RSA_WITH_AES_128_CBC_SHA");
        try {
            Await.until(() -> contains(log, "ready on"), Duration.ofSeconds(60), () -> "server started: " + log);
            assertEquals("0 negotiated TLS_RSA_WITH_AES_128_CBC_SHA",
                    probe(port, dir.resolve("certs/ca.pem"), "TLS_RSA_WITH_AES_128_CBC_SHA", refusing));
            String out = Files.readString(log);
            assertTrue(out.contains("jdk.tls.disabledAlgorithms entries [TLS_RSA_*, TLS_RSA_WITH_AES_128_CBC_SHA] lifted"
                    + " in this JVM for the configured static-RSA suites [TLS_RSA_WITH_AES_128_CBC_SHA]"), out);
            assertEquals(out.indexOf("disabledAlgorithms entries"), out.lastIndexOf("disabledAlgorithms entries"),
                    "warned once: " + out);
        } finally {
            stop(server);
        }
    }
}
