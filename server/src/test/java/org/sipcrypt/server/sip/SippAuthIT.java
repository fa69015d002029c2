package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.EmbeddedDatabase;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.Sipp;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Digest authentication against the real SIPp (RFC 3261 §22): 1,000 subscribers provisioned in
 * the server's realm, and SIPp answering the server's challenges with their credentials, drawn
 * from an injection file like the one {@code sipcrypt users generate --csv} writes. Every
 * registration (401, then Authorization) and every call through the proxy (407, ACK, then
 * Proxy-Authorization) must succeed, and the server must count each as accepted. The server runs
 * with its secure defaults otherwise: SIPp answers with qop=auth, and its digest uri is set to the
 * INVITE's Request-URI ({@code -auth_uri}). SIPp 3.6.1 computes MD5 only and answers the first
 * challenge, so the server offers MD5 alone.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SippAuthIT {

    private static final int USERS = 1000;
    private static final double RATE = 100;
    private static final Duration SIPP_TIMEOUT = Duration.ofSeconds(60);
    private static final String CALLEE = "callee";
    private static final String CALLEE_PASSWORD = "callee-secret";

    @TempDir
    Path dir;

    @Test
    void thousandSubscribersRegisterWithDigestOverUdp() throws Exception {
        try (TestServer server = startServer()) {
            Path users = provision(server);
            int port = Sipp.freePort();
            Sipp.Result reg = Sipp.scenario("register-auth.xml")
                    .mode(Sipp.Mode.UDP)
                    .remote("127.0.0.1", server.address(Transport.UDP).getPort())
                    .localPort(port)
                    .injectionFile(users)
                    .key("contact_port", Integer.toString(port))
                    .key("contact_transport", "udp")
                    .rate(RATE)
                    .calls(USERS)
                    .timeout(SIPP_TIMEOUT)
                    .run();

            assertEveryCallSucceeded(reg, server);
            Await.until(() -> outcomes(server, "accepted") >= USERS, Duration.ofSeconds(10),
                    () -> server.server().statsLine());
        }
    }

    @Test
    void thousandAuthenticatedCallsGoThroughTheProxy() throws Exception {
        try (TestServer server = startServer();
             Sipp.Running uas = Sipp.startUas(Sipp.Mode.UDP, 0, USERS, Duration.ofSeconds(100))) {
            Path users = provision(server);
            Path callee = Files.writeString(dir.resolve("callee.csv"),
                    "SEQUENTIAL\n" + CALLEE + ";" + CALLEE_PASSWORD + "\n", StandardCharsets.UTF_8);
            int udpPort = server.address(Transport.UDP).getPort();
            Sipp.Result reg = Sipp.scenario("register-auth.xml")
                    .mode(Sipp.Mode.UDP)
                    .remote("127.0.0.1", udpPort)
                    .injectionFile(callee)
                    .key("contact_port", Integer.toString(uas.port()))
                    .key("contact_transport", "udp")
                    .calls(1)
                    .timeout(Duration.ofSeconds(10))
                    .run();
            assertTrue(reg.allCallsSucceeded(), () -> reg.describe() + "\n  server: " + server.server().statsLine());

            Sipp.Result uac = Sipp.scenario("uac-auth.xml")
                    .mode(Sipp.Mode.UDP)
                    .remote("127.0.0.1", udpPort)
                    .injectionFile(users)
                    .service(CALLEE)
                    // the digest uri must be the INVITE's Request-URI (SIPp's default is sip:host:port)
                    .authUri(CALLEE + "@127.0.0.1:" + udpPort)
                    .rate(RATE)
                    .calls(USERS)
                    .timeout(SIPP_TIMEOUT)
                    .run();

            assertEveryCallSucceeded(uac, server);
            // the UAS exits by itself after its last call's timewait
            Await.until(() -> !uas.isAlive(), Duration.ofSeconds(15), () -> "SIPp UAS still running");
            Sipp.Result served = uas.stop();
            assertEquals(0, served.failedCalls(), served::describe);
            assertEquals(USERS, served.successfulCalls(), served::describe);
            // the callee's REGISTER and every caller's INVITE
            Await.until(() -> outcomes(server, "accepted") >= USERS + 1, Duration.ofSeconds(10),
                    () -> server.server().statsLine());
        }
    }

    /** Every one of the run's {@link #USERS} calls succeeded and none failed; the server's counters shown if not. */
    private static void assertEveryCallSucceeded(Sipp.Result run, TestServer server) {
        Supplier<String> both = () -> run.describe() + "\n  server: " + server.server().statsLine();
        assertTrue(run.allCallsSucceeded(), both);
        assertEquals(USERS, run.successfulCalls(), both);
        assertEquals(0, run.failedCalls(), both);
    }

    private TestServer startServer() throws Exception {
        return TestServer.start(dir.resolve("data"), "auth", "true", "auth.algorithms", "md5");
    }

    /**
     * Stores user1..user1000 (passwords pass1..pass1000) and the callee in the server's realm, as
     * {@code users generate} does, and writes the injection file of user1..user1000.
     */
    private Path provision(TestServer server) throws Exception {
        ServerConfig config = server.config();
        String realm = config.effectiveRealm();
        List<Subscriber> subscribers = new ArrayList<>(USERS + 1);
        StringBuilder inf = new StringBuilder("SEQUENTIAL\n");
        for (int i = 1; i <= USERS; i++) {
            subscribers.add(subscriber("user" + i, realm, "pass" + i));
            inf.append("user").append(i).append(";pass").append(i).append('\n');
        }
        subscribers.add(subscriber(CALLEE, realm, CALLEE_PASSWORD));
        // a second pool on the server's database: the embedded H2 is shared within this JVM
        try (Database database = EmbeddedDatabase.openConfigured(config.dbUrl(), config.dataDir(), config.dbUser(),
                config.dbPassword(), 1)) {
            assertEquals(USERS + 1, new SubscriberStore(database.dataSource()).putAll(subscribers));
        }
        return Files.writeString(dir.resolve("users.csv"), inf, StandardCharsets.UTF_8);
    }

    private static Subscriber subscriber(String username, String realm, String password) {
        return new Subscriber(username, realm, DigestAlgorithm.MD5.ha1(username, realm, password),
                DigestAlgorithm.SHA_256.ha1(username, realm, password), true);
    }

    private static double outcomes(TestServer server, String result) {
        Counter c = server.server().registry().find("auth.outcomes").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }
}
