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
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.HttpProbe;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.tls.PemFiles;

/**
 * The shipped server jar started as a user starts it: {@code java -jar target/sipcrypt-server.jar}
 * in a process of its own with nothing else on its class path, the README's {@code certs} and
 * {@code users add} commands first, then the server with UDP, TLS, {@code --auth} and {@code --http}.
 * It must answer OPTIONS on both transports, challenge and accept a REGISTER, carry an authenticated
 * call, report itself ready on {@code /health} and count that traffic on {@code /metrics}.
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

    private SSLContext trusting(Path ca) throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (java.security.cert.X509Certificate c : PemFiles.readCertificates(ca)) {
            trust.setCertificateEntry("ca" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }


    /** Header lines of {@code name} in {@code message}, whole lines with their CRLF. */
    private static String lines(String message, String name) {
        StringBuilder sb = new StringBuilder();
        for (String line : message.split("\r\n")) {
            if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
                sb.append(line).append("\r\n");
            }
        }
        return sb.toString();
    }

    private static String value(String message, String name) {
        String l = lines(message, name);
        return l.isEmpty() ? null : l.substring(name.length() + 1, l.indexOf("\r\n")).trim();
    }

    /**
     * bob registers and alice calls him through the proxy, each answering the first challenge
     * offered (SHA-256 by default) with qop=auth credentials; the call is answered, acknowledged and
     * hung up along the proxy's Record-Route.
     */
    private static void callWithDigestCredentials(InetSocketAddress proxy) throws IOException {
        Duration t = TestUa.TIMEOUT;
        String domain = "127.0.0.1:" + proxy.getPort();
        try (SipSocket bob = SipSocket.udp(proxy); SipSocket alice = SipSocket.udp(proxy)) {
            bob.send(bob.request("REGISTER", "sip:" + domain, "bob", "bob@" + domain, "jar-reg", 1,
                    bob.contact("bob") + "Expires: 600\r\n"));
            String challenge = bob.awaitMessage("SIP/2.0 401", t);
            assertNotNull(challenge, "REGISTER challenged with 401");
            String www = value(challenge, "WWW-Authenticate");
            assertTrue(www.contains("algorithm=SHA-256"), "SHA-256 offered first: " + www);
            bob.send(bob.request("REGISTER", "sip:" + domain, "bob", "bob@" + domain, "jar-reg", 2,
                    bob.contact("bob") + "Expires: 600\r\n"
                            + DigestClient.answer("Authorization", www, "bob", "b0b", "REGISTER", "sip:" + domain, 1)));
            String registered = bob.awaitMessage("SIP/2.0 ", t);
            assertTrue(registered != null && registered.startsWith("SIP/2.0 200"), "REGISTER: " + registered);

            String target = "sip:bob@" + domain;
            alice.send(alice.request("INVITE", target, "alice", "bob@" + domain, "jar-call", 1,
                    alice.contact("alice")));
            String proxyChallenge = alice.awaitMessage("SIP/2.0 407", t);
            assertNotNull(proxyChallenge, "INVITE challenged with 407");
            alice.send(alice.request("ACK", target, "alice", "bob@" + domain, "jar-call", 1, "")
                    .replace("To: <" + target + ">", "To: " + value(proxyChallenge, "To")));
            String pa = value(proxyChallenge, "Proxy-Authenticate");
            alice.send(alice.request("INVITE", target, "alice", "bob@" + domain, "jar-call", 2,
                    alice.contact("alice") + DigestClient.answer("Proxy-Authorization", pa, "alice", "secret",
                            "INVITE", target, 1)));

            String invite = bob.awaitMessage("INVITE ", t);
            assertNotNull(invite, "the authenticated INVITE reaches bob");
            assertTrue(lines(invite, "Proxy-Authorization").isEmpty(), "credentials for the proxy's realm are consumed");
            String ok = SipSocket.response(invite, "200 OK");
            ok = ok.replace("Content-Length: 0\r\n", lines(invite, "Record-Route") + bob.contact("bob")
                    + "Content-Length: 0\r\n");
            bob.send(ok);
            String answered = alice.awaitMessage("SIP/2.0 200", t);
            assertNotNull(answered, "alice gets the 200");

            // RFC 3261 §12.1.2: the route set is the Record-Route of the 2xx in reverse order
            List<String> rr = new ArrayList<>();
            for (String line : lines(answered, "Record-Route").split("\r\n")) {
                if (!line.isEmpty()) {
                    rr.add(0, line.substring("Record-Route:".length()).trim());
                }
            }
            String route = rr.isEmpty() ? "" : "Route: " + String.join(", ", rr) + "\r\n";
            String bobContact = value(answered, "Contact").replaceAll("^<|>.*$", "");
            String toWithTag = "To: " + value(answered, "To");
            alice.send(alice.request("ACK", bobContact, "alice", "bob@" + domain, "jar-call", 2, route)
                    .replace("To: <sip:bob@" + domain + ">", toWithTag));
            assertNotNull(bob.awaitMessage("ACK ", t), "the ACK reaches bob");
            alice.send(alice.request("BYE", bobContact, "alice", "bob@" + domain, "jar-call", 3, route)
                    .replace("To: <sip:bob@" + domain + ">", toWithTag));
            String bye = bob.awaitMessage("BYE ", t);
            assertNotNull(bye, "the BYE reaches bob");
            bob.send(SipSocket.response(bye, "200 OK"));
            String byeOk = alice.awaitMessage("SIP/2.0 200", t);
            assertTrue(byeOk != null && byeOk.contains("BYE"), "BYE answered: " + byeOk);
        }
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
            try (SipSocket s = SipSocket.tls(tls, trusting(dir.resolve("certs/ca.pem")))) {
                s.send(s.request("OPTIONS", "sip:127.0.0.1:" + tls.getPort(), "probe", "127.0.0.1", "jar-opt-tls", 1, ""));
                String r = s.awaitMessage("SIP/2.0 ", TestUa.TIMEOUT);
                assertTrue(r != null && r.startsWith("SIP/2.0 200"), "OPTIONS over TLS: " + r);
            }

            callWithDigestCredentials(udp);

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
            assertTrue(samples.keySet().stream().anyMatch(k -> k.startsWith("sipcrypt_tls_handshakes_total{kind=full,suite=TLS_")),
                    "handshakes by kind and suite: " + samples.keySet());
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
}
