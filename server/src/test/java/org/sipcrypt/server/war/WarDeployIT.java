package org.sipcrypt.server.war;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.routing.CallRouter;
import org.sipcrypt.server.routing.FaultyRouter;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.DigestCall;
import org.sipcrypt.server.testing.HttpProbe;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestUa;

/**
 * The built WAR ({@code target/sipcrypt-server.war}, made in the package phase) in a real Tomcat
 * 10.1 run as an operator runs one: its own JVM with nothing but Tomcat on its class path
 * ({@code org.apache.catalina.startup.Bootstrap start} over a {@code server.xml} with an HTTP
 * connector on a free loopback port), the WAR dropped into {@code webapps/} as
 * {@code sipcrypt.war}, its settings from the file named by {@code SIPCRYPT_CONFIG} and from
 * context parameters in {@code conf/Catalina/localhost/sipcrypt.xml}; UDP, TCP and TLS listeners and
 * digest authentication on, with the certificates and subscribers made by the jar's {@code certs}
 * and {@code users} commands. Deployed, it answers OPTIONS over UDP and TLS, challenges and accepts
 * a REGISTER and carries an authenticated call between two user agents, and serves
 * {@code /sipcrypt/metrics} and {@code /sipcrypt/health}; removing the WAR undeploys it, releasing its SIP ports, with Tomcat
 * reporting no thread or thread-local left behind; dropping it in again on the same ports answers
 * again, now with an operator's router jar added to its {@code WEB-INF/lib} and chosen by a
 * {@code routing.router} context parameter, whose decision answers a MESSAGE; SIGTERM to Tomcat stops
 * it gracefully. Bad settings fail the deployment naming the key.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class WarDeployIT {

    private static final String ADMIN_TOKEN = "war-admin-token-0123456789abcdef0123";

    private static final Path WAR = Path.of("target", "sipcrypt-server.war");
    private static final Path JAR = Path.of("target", "sipcrypt-server.jar");
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Tomcat names a connector on port 0 {@code http-nio-ADDRESS-auto-N-PORT} once bound. */
    private static final Pattern CONNECTOR = Pattern.compile("http-nio-127\\.0\\.0\\.1-auto-\\d+-(\\d+)");
    /** What Tomcat's leak detection says of threads and thread-locals a web application left. */
    private static final List<String> LEAKS = List.of("failed to stop it", "memory leak", "created a ThreadLocal");
    /** The JVM options Tomcat's own scripts add, so that its leak detection can look everywhere. */
    private static final List<String> ADD_OPENS = List.of("--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED");

    @TempDir
    Path dir;

    private Process tomcat;
    private Path log;
    private int httpPort;

    @AfterEach
    void stopTomcat() throws Exception {
        if (tomcat != null && tomcat.isAlive()) {
            tomcat.destroy();
            if (!tomcat.waitFor(60, TimeUnit.SECONDS)) {
                tomcat.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
            n++;
        }
        return n;
    }

    /** Tomcat's own jars from this test's class path: the container's class path and nothing else. */
    private static String tomcatClassPath() {
        List<String> jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> p.contains("tomcat-embed-core") || p.contains("tomcat-annotations-api")).toList();
        assertEquals(2, jars.size(), "tomcat-embed-core and tomcat-annotations-api on the test class path: " + jars);
        return String.join(File.pathSeparator, jars);
    }

    /** Starts Tomcat over an empty {@code webapps/}, with {@code SIPCRYPT_CONFIG} naming {@code config}. */
    private Path startTomcat(Path config) throws Exception {
        Path base = dir.resolve("tomcat");
        Files.createDirectories(base.resolve("conf"));
        Files.createDirectories(base.resolve("webapps"));
        Files.createDirectories(base.resolve("lib"));
        Files.createDirectories(base.resolve("temp"));
        Files.writeString(base.resolve("conf/server.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <Server port="-1" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.core.JreMemoryLeakPreventionListener"/>
                  <Listener className="org.apache.catalina.core.ThreadLocalLeakPreventionListener"/>
                  <Service name="Catalina">
                    <Connector port="0" address="127.0.0.1" protocol="HTTP/1.1"/>
                    <Engine name="Catalina" defaultHost="localhost" backgroundProcessorDelay="1">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="true"/>
                    </Engine>
                  </Service>
                </Server>
                """);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(ADD_OPENS);
        cmd.addAll(List.of("-cp", tomcatClassPath(), "-Dcatalina.base=" + base, "-Dcatalina.home=" + base,
                "-Djava.io.tmpdir=" + base.resolve("temp"), "org.apache.catalina.startup.Bootstrap", "start"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        log = base.resolve("tomcat.log");
        pb.redirectOutput(log.toFile());
        pb.environment().put("SIPCRYPT_CONFIG", config.toString());
        tomcat = pb.start();
        Await.until(() -> CONNECTOR.matcher(log()).find() || !tomcat.isAlive(), WAIT, () -> "Tomcat started:\n" + log());
        assertTrue(tomcat.isAlive(), "Tomcat exited:\n" + log());
        Matcher m = CONNECTOR.matcher(log());
        assertTrue(m.find());
        httpPort = Integer.parseInt(m.group(1));
        return base;
    }

    /** Runs the server jar's command line to completion (certs, users); fails with its output otherwise. */
    private static void runJar(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "finished: " + cmd);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + "\n" + out);
    }

    private Path writeConfig(String... lines) throws IOException {
        Path config = dir.resolve("sipcrypt.properties");
        List<String> all = new ArrayList<>(List.of("dataDir=" + dir.resolve("data"), "shutdown.grace=2s",
                "stats.interval=0"));
        all.addAll(List.of(lines));
        Files.write(config, all);
        return config;
    }

    private void dropWar(Path base) throws IOException {
        publish(stageWar(base), base);
    }

    /** A copy of the WAR beside {@code webapps/}, for {@link #publish}. */
    private static Path stageWar(Path base) throws IOException {
        Path staged = base.resolve("sipcrypt.war.part");
        Files.copy(WAR, staged, StandardCopyOption.REPLACE_EXISTING);
        return staged;
    }

    /**
     * Puts into the staged WAR's {@code WEB-INF/lib} a router jar as an operator builds one: the test
     * router {@link FaultyRouter} (name {@code faulty}) with its {@code META-INF/services} entry.
     */
    private static void addRouterJar(Path war) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.util.jar.Manifest manifest = new java.util.jar.Manifest();
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        String classFile = FaultyRouter.class.getName().replace('.', '/') + ".class";
        try (java.util.jar.JarOutputStream jar = new java.util.jar.JarOutputStream(bytes, manifest);
             java.io.InputStream in = FaultyRouter.class.getClassLoader().getResourceAsStream(classFile)) {
            assertTrue(in != null, classFile + " among the test classes");
            jar.putNextEntry(new java.util.jar.JarEntry(classFile));
            in.transferTo(jar);
            jar.closeEntry();
            jar.putNextEntry(new java.util.jar.JarEntry("META-INF/services/" + CallRouter.class.getName()));
            jar.write((FaultyRouter.class.getName() + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        try (java.nio.file.FileSystem zip = java.nio.file.FileSystems.newFileSystem(war)) {
            Path lib = zip.getPath("WEB-INF", "lib");
            Files.createDirectories(lib);
            Files.write(lib.resolve("faulty-router.jar"), bytes.toByteArray());
        }
    }

    /** One rename into {@code webapps/}, so Tomcat never sees half a file. */
    private static void publish(Path staged, Path base) throws IOException {
        Files.move(staged, base.resolve("webapps/sipcrypt.war"), StandardCopyOption.ATOMIC_MOVE);
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + httpPort + "/sipcrypt" + path);
    }

    private int status(String path) {
        try {
            return HttpProbe.get(url(path)).status();
        } catch (IOException e) {
            return -1;
        }
    }

    private static void options(InetSocketAddress at, String callId) throws IOException {
        try (SipSocket s = SipSocket.udp(at)) {
            s.send(s.request("OPTIONS", "sip:127.0.0.1:" + at.getPort(), "probe", "127.0.0.1", callId, 1, ""));
            String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
            assertTrue(r != null && r.startsWith("SIP/2.0 200"), "OPTIONS: " + r);
        }
    }

    private static InetSocketAddress address(JsonNode health, String transport) {
        String[] hp = health.get("listeners").get(transport).asText().split(":");
        return new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
    }

    private void assertNoLeakReported() {
        String text = log();
        for (String leak : LEAKS) {
            assertFalse(text.contains(leak), "Tomcat reports something left behind (" + leak + "):\n" + text);
        }
    }

    @Test
    void warDeploysAnswersSipAndEndpointsUndeploysCleanlyAndRedeploysOnTheSamePorts() throws Exception {
        assertTrue(Files.isRegularFile(WAR), "the WAR is built in the package phase: " + WAR.toAbsolutePath());
        Path certs = dir.resolve("certs");
        runJar("certs", "--out", certs.toString(), "--san", "127.0.0.1,localhost");
        runJar("users", "--data-dir", dir.resolve("data").toString(), "add", "alice", "secret");
        runJar("users", "--data-dir", dir.resolve("data").toString(), "add", "bob", "b0b");
        Path base = startTomcat(writeConfig("listen=udp:127.0.0.1:0,tcp:127.0.0.1:0,tls:127.0.0.1:0",
                "tls.cert=" + certs.resolve("server.pem"), "tls.key=" + certs.resolve("server-key.pem"), "auth=on",
                "admin.token=" + ADMIN_TOKEN));
        dropWar(base);
        Await.until(() -> status("/health") == 200, WAIT, () -> "deployed and ready:\n" + log());

        HttpProbe.Answer health = HttpProbe.get(url("/health"));
        assertTrue(health.json().get("ready").asBoolean(), health.body());
        InetSocketAddress udp = address(health.json(), "udp");
        InetSocketAddress tcp = address(health.json(), "tcp");
        assertEquals(200, status("/health/live"));

        InetSocketAddress tls = address(health.json(), "tls");
        options(udp, "war-opt-1");
        try (SipSocket s = SipSocket.tls(tls, DigestCall.trusting(certs.resolve("ca.pem")))) {
            s.send(s.request("OPTIONS", "sip:127.0.0.1:" + tls.getPort(), "probe", "127.0.0.1", "war-opt-tls", 1, ""));
            String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
            assertTrue(r != null && r.startsWith("SIP/2.0 200"), "OPTIONS over TLS: " + r);
        }
        DigestCall.callWithDigestCredentials(udp);

        HttpProbe.Answer metrics = HttpProbe.get(url("/metrics"));
        assertEquals(200, metrics.status());
        assertTrue(metrics.headers().get("content-type").replace(" ", "").startsWith("text/plain;version=0.0.4"),
                metrics.headers().toString());
        Map<String, Double> samples = HttpProbe.samples(metrics.body(), new HashMap<>());
        for (String method : new String[] {"options", "register", "invite", "bye"}) {
            assertTrue(samples.getOrDefault("sipcrypt_sip_requests_received_total{method=" + method + "}", 0.0) >= 1,
                    method + ": " + samples);
        }
        assertTrue(samples.getOrDefault("sipcrypt_auth_outcomes_total{result=accepted}", 0.0) >= 2,
                "REGISTER and INVITE authenticated: " + samples);
        assertEquals(405, HttpProbe.request(url("/metrics"), "POST", Map.of("Content-Length", "0")).status());
        assertEquals(404, status("/nothing"));
        // the management API under the context path, behind its bearer token
        URI bindings = url("/admin/bindings?aor=sip%3Aalice%40127.0.0.1");
        assertEquals(401, HttpProbe.request(bindings, "GET", Map.of()).status());
        HttpProbe.Answer listed = HttpProbe.request(bindings, "GET", Map.of("Authorization", "Bearer " + ADMIN_TOKEN));
        assertEquals(200, listed.status(), listed.body());
        assertEquals("sip:alice@127.0.0.1", listed.json().get("aor").asText(), listed.body());

        // undeploy: the WAR removed from webapps/
        Files.delete(base.resolve("webapps/sipcrypt.war"));
        // Tomcat deletes the expanded application last, after its leak checks
        Await.until(() -> count(log(), "SipcryptServer - stopped") == 1 && !Files.exists(base.resolve("webapps/sipcrypt"))
                && status("/health") == 404, WAIT, () -> "undeployed:\n" + log());
        try (DatagramSocket free = new DatagramSocket(udp)) {
            assertEquals(udp.getPort(), free.getLocalPort(), "the SIP port is released");
        }
        assertNoLeakReported();

        // redeploy on the same ports, given as context parameters over the file's port 0, with a router
        // jar of the operator's in WEB-INF/lib chosen by routing.router (MESSAGE left unchallenged, so
        // the router sees it); the WAR is copied first, so the descriptor and the WAR appear together
        Path staged = stageWar(base);
        addRouterJar(staged);
        Files.createDirectories(base.resolve("conf/Catalina/localhost"));
        Path descriptor = base.resolve("sipcrypt.xml.part");
        Files.writeString(descriptor, "<Context>\n"
                + "  <Parameter name=\"listen\" value=\"udp:127.0.0.1:" + udp.getPort() + ",tcp:127.0.0.1:"
                + tcp.getPort() + ",tls:127.0.0.1:" + tls.getPort() + "\" override=\"false\"/>\n"
                + "  <Parameter name=\"routing.router\" value=\"faulty\" override=\"false\"/>\n"
                + "  <Parameter name=\"auth.methods\" value=\"REGISTER,INVITE\" override=\"false\"/>\n</Context>\n");
        Files.move(descriptor, base.resolve("conf/Catalina/localhost/sipcrypt.xml"), StandardCopyOption.ATOMIC_MOVE);
        publish(staged, base);
        Await.until(() -> status("/health") == 200, WAIT, () -> "redeployed and ready:\n" + log());
        HttpProbe.Answer again = HttpProbe.get(url("/health"));
        assertEquals(udp, address(again.json(), "udp"), log());
        assertEquals(tcp, address(again.json(), "tcp"), log());
        assertEquals(tls, address(again.json(), "tls"), log());
        options(udp, "war-opt-2");
        // the router from WEB-INF/lib decided: FaultyRouter rejects user whoami with 403 and the identity
        try (SipSocket s = SipSocket.udp(udp)) {
            s.send(s.request("MESSAGE", "sip:whoami@127.0.0.1", "carol", "whoami@127.0.0.1", "war-router-1", 1, ""));
            String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
            assertTrue(r != null && r.startsWith("SIP/2.0 403 Identity none"), "MESSAGE decided by the router: " + r
                    + "\n" + log());
        }

        // SIGTERM to Tomcat, as systemd stops it
        tomcat.destroy();
        assertTrue(tomcat.waitFor(60, TimeUnit.SECONDS), "Tomcat stopped:\n" + log());
        String out = log();
        assertEquals(2, count(out, "SipcryptServer - stopped"), "stopped gracefully on undeploy and on SIGTERM:\n" + out);
        assertNoLeakReported();
    }

    @Test
    void badSettingsFailTheDeploymentNamingTheKey() throws Exception {
        Path base = startTomcat(writeConfig("listen=udp:127.0.0.1:0", "sip.workers=0"));
        dropWar(base);
        Await.until(() -> log().contains("startup failed due to previous errors"), WAIT,
                () -> "deployment failed:\n" + log());
        String out = log();
        assertTrue(out.contains("sip.workers: \"0\" is out of range"), "the key and value named:\n" + out);
        assertEquals(404, status("/health"), "nothing served");
    }
}
