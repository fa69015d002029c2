package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.DigestCall;
import org.sipcrypt.server.testing.HttpProbe;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestUa;

/**
 * The shipped server jar started as a user starts it: {@code java -jar target/sipcrypt-server.jar}
 * in a process of its own with nothing else on its class path, the README's {@code certs} and
 * {@code users add} commands first, then the server with UDP, TLS, {@code --auth} and {@code --http}.
 * It must answer OPTIONS on both transports, challenge and accept a REGISTER, carry an authenticated
 * call, report itself ready on {@code /health} and count that traffic on {@code /metrics}. Started
 * with {@code --config} and {@code --admin-token}, it reloads the routes of the changed file and
 * exits with 0 once {@code POST /admin/stop} has drained and stopped it.
 */
@Timeout(180)
class ServerJarIT {

    private static final Path JAR = Path.of("target", "sipcrypt-server.jar");
    private static final Pattern READY = Pattern.compile("ready on (.*)$", Pattern.MULTILINE);
    private static final Pattern HTTP = Pattern.compile("http endpoints on http://([^/]+)/metrics", Pattern.MULTILINE);

    @TempDir
    Path dir;

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Runs the jar to completion with {@code args}; fails with its output when it exits non-zero. */
    private void runJar(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java(), "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "finished: " + cmd);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    /** The listeners the server reported in its "ready on udp:H:P, tls:H:P" line. */
    private static Map<String, InetSocketAddress> listeners(String log) {
        Matcher m = READY.matcher(log);
        assertTrue(m.find(), log);
        Map<String, InetSocketAddress> out = new TreeMap<>();
        for (String item : m.group(1).trim().split(",\\s*")) {
            String[] parts = item.split(":");
            out.put(parts[0], new InetSocketAddress(parts[1], Integer.parseInt(parts[2])));
        }
        return out;
    }

    @Test
    void jarWithAuthUdpAndTlsAnswersOptionsRegistersAndConnectsACall() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the server jar is built in the package phase: " + JAR.toAbsolutePath());
        String data = dir.resolve("data").toString();
        runJar("certs", "--out", dir.resolve("certs").toString(), "--san", "127.0.0.1,localhost");
        runJar("users", "--data-dir", data, "add", "alice", "secret");
        runJar("users", "--data-dir", data, "add", "bob", "b0b");

        Path log = dir.resolve("server.log");
        Process server = new ProcessBuilder(java(), "-jar", JAR.toString(), "--data-dir", data,
                "--listen", "udp:127.0.0.1:0", "--listen", "tls:127.0.0.1:0",
                "--tls-cert", dir.resolve("certs/server.pem").toString(),
                "--tls-key", dir.resolve("certs/server-key.pem").toString(), "--auth", "--stats-interval", "0",
                "--http", "127.0.0.1:0")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Await.until(() -> READY.matcher(read(log)).find() || !server.isAlive(), Duration.ofSeconds(60),
                    () -> "server started: " + read(log));
            assertTrue(server.isAlive(), "server exited at start:\n" + read(log));
            Map<String, InetSocketAddress> at = listeners(read(log));
            InetSocketAddress udp = at.get("udp");
            InetSocketAddress tls = at.get("tls");
            assertNotNull(udp, at.toString());
            assertNotNull(tls, at.toString());

            try (SipSocket s = SipSocket.udp(udp)) {
                s.send(s.request("OPTIONS", "sip:127.0.0.1:" + udp.getPort(), "probe", "127.0.0.1", "jar-opt-udp", 1, ""));
                String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
                assertTrue(r != null && r.startsWith("SIP/2.0 200"), "OPTIONS over UDP: " + r);
            }
            try (SipSocket s = SipSocket.tls(tls, DigestCall.trusting(dir.resolve("certs/ca.pem")))) {
                s.send(s.request("OPTIONS", "sip:127.0.0.1:" + tls.getPort(), "probe", "127.0.0.1", "jar-opt-tls", 1, ""));
                String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
                assertTrue(r != null && r.startsWith("SIP/2.0 200"), "OPTIONS over TLS: " + r);
            }

            DigestCall.callWithDigestCredentials(udp);

            Matcher http = HTTP.matcher(read(log));
            assertTrue(http.find(), "http listener logged:\n" + read(log));
            HttpProbe.Answer health = HttpProbe.get(URI.create("http://" + http.group(1) + "/health"));
            assertEquals(200, health.status(), health.body());
            assertTrue(health.json().get("ready").asBoolean(), health.body());
            assertEquals(tls.getAddress().getHostAddress() + ":" + tls.getPort(),
                    health.json().get("listeners").get("tls").asText());
            HttpProbe.Answer metrics = HttpProbe.get(URI.create("http://" + http.group(1) + "/metrics"));
            assertEquals(200, metrics.status());
            Map<String, Double> samples = HttpProbe.samples(metrics.body(), new java.util.HashMap<>());
            assertTrue(samples.getOrDefault("sipcrypt_auth_outcomes_total{result=accepted}", 0.0) >= 2,
                    "REGISTER and INVITE accepted: " + samples);
            assertTrue(samples.getOrDefault("sipcrypt_sip_requests_received_total{method=options}", 0.0) >= 2,
                    "OPTIONS over UDP and TLS: " + samples);
            assertTrue(samples.keySet().stream().anyMatch(k -> k.startsWith("sipcrypt_tls_handshakes_total{engine=")
                            && k.contains(",group=") && k.contains(",kind=full,role=server,suite=TLS_")),
                    "handshakes by engine, group, kind, role and suite: " + samples.keySet());
            assertTrue(samples.containsKey("sipcrypt_transport_connections_current{transport=tls}"),
                    "open connections per transport: " + samples.keySet());
        } finally {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        String out = read(log);
        // a JVM ended by SIGTERM exits 143 (128 + 15) once its shutdown hook has run
        assertEquals(143, server.exitValue(), "exit status after SIGTERM:\n" + out);
        assertTrue(out.contains("SipcryptServer - stopped"), "stopped gracefully:\n" + out);
        assertTrue(!out.contains("Exception") && !out.contains("Error:"), "no error at run or stop:\n" + out);
    }

    @Test
    void theJarReloadsRoutesFromItsConfigFileAndExitsWithZeroWhenStoppedThroughTheApi() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "the server jar is built in the package phase: " + JAR.toAbsolutePath());
        String token = "0123456789abcdef0123456789abcdef-jar";
        Path config = dir.resolve("sipcrypt.properties");
        Files.writeString(config, "listen=udp:127.0.0.1:0\nhttp=127.0.0.1:0\nstats.interval=0\n"
                + "route=example.net=127.0.0.1:5070\n");
        Path log = dir.resolve("stop.log");
        Process server = new ProcessBuilder(java(), "-jar", JAR.toString(), "--config", config.toString(),
                "--data-dir", dir.resolve("data-stop").toString(), "--admin-token", token)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Await.until(() -> HTTP.matcher(read(log)).find() && READY.matcher(read(log)).find() || !server.isAlive(),
                    Duration.ofSeconds(60), () -> "server started: " + read(log));
            assertTrue(server.isAlive(), "server exited at start:\n" + read(log));
            Matcher http = HTTP.matcher(read(log));
            assertTrue(http.find(), read(log));
            java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
            Files.writeString(config, "listen=udp:127.0.0.1:0\nhttp=127.0.0.1:0\nstats.interval=0\n"
                    + "route=example.net=127.0.0.1:5080\n");
            java.net.http.HttpResponse<String> reloaded = client.send(java.net.http.HttpRequest.newBuilder(
                            URI.create("http://" + http.group(1) + "/admin/routes/reload"))
                    .header("Authorization", "Bearer " + token).POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(30)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, reloaded.statusCode(), reloaded.body());
            assertTrue(reloaded.body().contains("127.0.0.1:5080"), reloaded.body());
            java.net.http.HttpResponse<String> stop = client.send(java.net.http.HttpRequest.newBuilder(
                            URI.create("http://" + http.group(1) + "/admin/stop"))
                    .header("Authorization", "Bearer " + token).POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(30)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(202, stop.statusCode(), stop.body());
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "still running after /admin/stop:\n" + read(log));
        } finally {
            if (server.isAlive()) {
                server.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        String out = read(log);
        assertEquals(0, server.exitValue(), "exit status after /admin/stop:\n" + out);
        assertTrue(out.contains("SipcryptServer - stopped"), "stopped gracefully:\n" + out);
        assertTrue(!out.contains("Exception") && !out.contains("Error:"), "no error at run or stop:\n" + out);
    }
}
