package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.RestartableDatabase;
import org.sipcrypt.server.testing.TestH2Server;
import org.sipcrypt.server.testing.TestPostgres;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The location database, H2 in server mode or PostgreSQL (a separate database server reached by
 * JDBC URL), stops and starts again on the same port with the same files. While it is down, REGISTERs, routed
 * INVITEs and credential lookups are answered 503 with Retry-After (each one answered, none left to
 * the client's timers) and the circuit breaker counts them; once it is back, REGISTERs get 200 again
 * by themselves, and every registration acknowledged (200) is still there: those before the outage
 * and those of a stream of REGISTERs running across it.
 * Waits are generous bounds on events expected to happen; nothing here asserts how fast.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DatabaseOutageIT {

    /** How long one request may wait for its final answer: far beyond the breaker's 1 s, within a client's 32 s. */
    private static final Duration ANSWER = Duration.ofSeconds(10);
    /** How long the database may take to be noticed gone, or back. */
    private static final Duration NOTICE = Duration.ofSeconds(30);
    private static final int USERS = 8;
    /** Bounds of the background REGISTERs across an outage. */
    private static final int LOAD_REGISTERS = 2_000;
    private static final Duration LOAD_TIME = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private TestH2Server h2;

    /** H2 in server mode on a loopback port; the JDBC URL of its database. */
    private String startH2() throws Exception {
        h2 = TestH2Server.start(dir.resolve("h2"));
        return h2.url();
    }

    @AfterEach
    void stopH2() {
        if (h2 != null) {
            h2.close();
        }
    }

    /** The final response to what was just sent (provisional ones skipped); fails when none comes within {@link #ANSWER}. */
    private static String finalResponse(SipSocket s, String what) throws IOException {
        long deadline = System.nanoTime() + ANSWER.toNanos();
        while (System.nanoTime() < deadline) {
            String r = s.receive(Duration.ofMillis(300));
            if (r != null && r.startsWith("SIP/2.0 ") && !r.startsWith("SIP/2.0 1")) {
                return r;
            }
        }
        throw new AssertionError(what + ": no final answer within " + ANSWER);
    }

    private static String register(SipSocket s, String hp, String user, int cseq, String extra) throws IOException {
        s.send(s.request("REGISTER", "sip:" + hp, user, user + "@" + hp, "reg-" + user, cseq, extra));
        return finalResponse(s, "REGISTER " + user + " CSeq " + cseq);
    }

    /** REGISTERs (new CSeq each) until one is answered with {@code status}; every one must be answered. */
    private static String registerUntil(SipSocket s, String hp, String user, int[] cseq, String status)
            throws Exception {
        long deadline = System.nanoTime() + NOTICE.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = register(s, hp, user, ++cseq[0], s.contact(user) + "Expires: 600\r\n");
            if (last.startsWith("SIP/2.0 " + status)) {
                return last;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no " + status + " within " + NOTICE + "; last answer: " + last);
    }

    private static double counter(MeterRegistry registry, String name, String tag, String value) {
        FunctionCounter c = registry.find(name).tag(tag, value).functionCounter();
        assertNotNull(c, name + "{" + tag + "=" + value + "}");
        return c.count();
    }

    private static String header(String message, String name) {
        for (String line : message.split("\r\n")) {
            if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }

    private static void assertUnavailable(String response, String what) {
        assertTrue(response.startsWith("SIP/2.0 503 "), what + ": " + response);
        assertNotNull(header(response, "Retry-After"), what + " carries Retry-After: " + response);
    }

    @Test
    void anH2OutageIsAnswered503UntilTheDatabaseReturnsAndNoAcknowledgedRegistrationIsLost() throws Exception {
        String url = startH2();
        outage(h2, "db", url);
    }

    @Test
    void aPostgresCrashIsAnswered503UntilTheDatabaseReturnsAndNoAcknowledgedRegistrationIsLost() throws Exception {
        try (TestPostgres pg = TestPostgres.start()) {
            outage(pg, "db", pg.url(), "db.user", "sipcrypt");
        }
    }

    /**
     * Registrations acknowledged, the database stopped, REGISTERs and a routed INVITE refused with 503,
     * the database started again, REGISTERs accepted and every registration acknowledged before still there.
     */
    private void outage(RestartableDatabase database, String... settings) throws Exception {
        try (TestServer server = TestServer.start(dir.resolve("data"), settings);
             SipSocket carol = SipSocket.udp(server.address(Transport.UDP));
             SipSocket bob = SipSocket.udp(server.address(Transport.UDP));
             SipSocket alice = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            MeterRegistry registry = server.server().registry();
            int[] cseq = {0};
            registerUntil(carol, hp, "carol", cseq, "200");
            // registrations the server acknowledges before the outage
            List<String> acknowledged = new ArrayList<>();
            try (SipSocket others = SipSocket.udp(server.address(Transport.UDP))) {
                for (int i = 0; i < USERS; i++) {
                    String user = "user" + i;
                    String r = register(others, hp, user, 1, "Contact: <sip:" + user + "@127.0.0.1:" + (6000 + i)
                            + ">\r\nExpires: 600\r\n");
                    assertTrue(r.startsWith("SIP/2.0 200"), user + ": " + r);
                    acknowledged.add(user);
                }
            }
            assertTrue(register(bob, hp, "bob", 1, bob.contact("bob") + "Expires: 600\r\n").startsWith("SIP/2.0 200"));

            // REGISTERs of new AORs one after the other, across the outage, in the background
            AtomicBoolean stopLoad = new AtomicBoolean();
            AtomicInteger loadedOk = new AtomicInteger();
            ExecutorService loader = Executors.newSingleThreadExecutor();
            Future<List<String>> loaded = loader.submit(() -> registerWhile(server, hp, stopLoad, loadedOk));
            try {
                Await.until(() -> loadedOk.get() >= 5 || loaded.isDone(), NOTICE, () -> "load running");
                database.stop();
                runOutage(server, carol, alice, hp, cseq, registry);
                database.startAgain();
                registerUntil(carol, hp, "carol", cseq, "200");
            } finally {
                stopLoad.set(true);
                loader.shutdown();
            }
            List<String> acknowledgedUnderLoad = loaded.get(LOAD_TIME.toSeconds() + NOTICE.toSeconds(), TimeUnit.SECONDS);
            assertTrue(!acknowledgedUnderLoad.isEmpty(), "some REGISTERs under load were acknowledged");
            acknowledged.addAll(acknowledgedUnderLoad);
            String ok = registerUntil(carol, hp, "carol", cseq, "200");
            assertTrue(ok.contains("expires="), ok);
            assertTrue(counter(registry, "db.breaker.transitions", "to", "closed") >= 1);

            // a REGISTER without Contact lists the bindings (RFC 3261 §10.2.3): each one acknowledged is kept
            try (SipSocket query = SipSocket.udp(server.address(Transport.UDP))) {
                for (String user : acknowledged) {
                    String r = register(query, hp, user, 1_000_000, "");
                    assertTrue(r.startsWith("SIP/2.0 200"), user + ": " + r);
                    assertTrue(r.contains("sip:" + user + "@127.0.0.1:"), user + "'s binding kept: " + r);
                }
            }
            // and a call to bob is routed to the contact he registered before the outage
            String target = "sip:bob@" + hp;
            alice.send(alice.request("INVITE", target, "alice", "bob@" + hp, "call-back", 1, alice.contact("alice")));
            String invite = bob.awaitMessage("INVITE ", ANSWER);
            assertNotNull(invite, "the INVITE reaches bob after the database is back");
            bob.send(SipSocket.response(invite, "486 Busy Here"));
            String busy = finalResponse(alice, "INVITE to bob after the outage");
            assertTrue(busy.startsWith("SIP/2.0 486"), busy);
            alice.send(alice.request("ACK", target, "alice", "bob@" + hp, "call-back", 1, "")
                    .replace("To: <" + target + ">", "To: " + header(busy, "To")));
        }
    }

    /**
     * Registers {@code loadN} AORs one at a time (each REGISTER waits for its answer) until told to
     * stop, at most {@link #LOAD_REGISTERS} of them or for {@link #LOAD_TIME}; returns those answered 200.
     */
    private static List<String> registerWhile(TestServer server, String hp, AtomicBoolean stop, AtomicInteger ok)
            throws Exception {
        List<String> acknowledged = new ArrayList<>();
        long deadline = System.nanoTime() + LOAD_TIME.toNanos();
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            for (int i = 0; i < LOAD_REGISTERS && !stop.get() && System.nanoTime() < deadline; i++) {
                String user = "load" + i;
                String r = register(s, hp, user, 1, "Contact: <sip:" + user + "@127.0.0.1:7000>\r\nExpires: 600\r\n");
                if (r.startsWith("SIP/2.0 200")) {
                    acknowledged.add(user);
                    ok.incrementAndGet();
                } else if (!r.startsWith("SIP/2.0 503")) {
                    throw new AssertionError(user + ": neither 200 nor 503: " + r);
                }
                Thread.sleep(10);
            }
        }
        return acknowledged;
    }

    /** While the database is down: REGISTERs and an INVITE needing a lookup are answered 503, and counted. */
    private static void runOutage(TestServer server, SipSocket carol, SipSocket alice, String hp, int[] cseq,
                                  MeterRegistry registry) throws Exception {
        String first = registerUntil(carol, hp, "carol", cseq, "503");
        assertUnavailable(first, "REGISTER while the database is down");
        Await.until(() -> server.server().registry().find("db.breaker.open").gauge().value() == 1.0, NOTICE,
                () -> "breaker open");
        // known down: every REGISTER and every INVITE needing a location lookup is answered 503
        for (int i = 0; i < 3; i++) {
            assertUnavailable(register(carol, hp, "carol", ++cseq[0], carol.contact("carol") + "Expires: 600\r\n"),
                    "REGISTER " + i + " while the breaker is open");
        }
        String target = "sip:bob@" + hp;
        alice.send(alice.request("INVITE", target, "alice", "bob@" + hp, "call-down", 1, alice.contact("alice")));
        String refused = finalResponse(alice, "INVITE to bob while the database is down");
        assertUnavailable(refused, "INVITE to bob while the database is down");
        alice.send(alice.request("ACK", target, "alice", "bob@" + hp, "call-down", 1, "")
                .replace("To: <" + target + ">", "To: " + header(refused, "To")));

        assertTrue(counter(registry, "db.breaker.transitions", "to", "open") >= 1);
        assertTrue(counter(registry, "db.breaker.rejected", "op", "register") >= 3,
                "refused REGISTERs counted: " + counter(registry, "db.breaker.rejected", "op", "register"));
        assertTrue(counter(registry, "db.breaker.rejected", "op", "lookup") >= 1);
    }

    @Test
    void credentialLookupsAreAnswered503WhileTheDatabaseIsDownAndRecoverByThemselves() throws Exception {
        // the cache off, so every request asks the database for its subscriber
        try (TestServer server = TestServer.start(dir.resolve("data"), "db", startH2(), "auth", "true",
                "auth.cacheSize", "0");
             SipSocket alice = SipSocket.udp(server.address(Transport.UDP))) {
            String realm = server.server().config().effectiveRealm();
            server.server().subscribers().putAll(List.of(new Subscriber("alice", realm,
                    DigestAlgorithm.MD5.ha1("alice", realm, "secret"),
                    DigestAlgorithm.SHA_256.ha1("alice", realm, "secret"), true)));
            String hp = server.hostPort(Transport.UDP);
            String challenge = DigestClient.challenges(
                    register(alice, hp, "alice", 1, alice.contact("alice") + "Expires: 600\r\n"),
                    "WWW-Authenticate").get(0);
            int[] n = {1};
            String registered = authenticatedRegister(alice, hp, challenge, n);
            assertTrue(registered.startsWith("SIP/2.0 200"), registered);

            h2.stop();
            long deadline = System.nanoTime() + NOTICE.toNanos();
            String r = authenticatedRegister(alice, hp, challenge, n);
            while (!r.startsWith("SIP/2.0 503") && System.nanoTime() < deadline) {
                r = authenticatedRegister(alice, hp, challenge, n);
            }
            assertUnavailable(r, "authenticated REGISTER while the database is down");
            Await.until(() -> server.server().registry().find("db.breaker.open").gauge().value() == 1.0, NOTICE,
                    () -> "breaker open");
            assertUnavailable(authenticatedRegister(alice, hp, challenge, n), "authenticated REGISTER, breaker open");

            // an INVITE with credentials: its subscriber cannot be looked up either
            String target = "sip:alice@" + hp;
            alice.send(alice.request("INVITE", target, "alice", "alice@" + hp, "auth-call", 1, alice.contact("alice")));
            String proxyChallenge = finalResponse(alice, "INVITE without credentials");
            assertTrue(proxyChallenge.startsWith("SIP/2.0 407"), "a challenge needs no database: " + proxyChallenge);
            alice.send(alice.request("ACK", target, "alice", "alice@" + hp, "auth-call", 1, "")
                    .replace("To: <" + target + ">", "To: " + header(proxyChallenge, "To")));
            String pa = header(proxyChallenge, "Proxy-Authenticate");
            alice.send(alice.request("INVITE", target, "alice", "alice@" + hp, "auth-call", 2, alice.contact("alice")
                    + DigestClient.answer("Proxy-Authorization", pa, "alice", "secret", "INVITE", target, 1)));
            String refused = finalResponse(alice, "authenticated INVITE while the database is down");
            assertUnavailable(refused, "authenticated INVITE while the database is down");
            alice.send(alice.request("ACK", target, "alice", "alice@" + hp, "auth-call", 2, "")
                    .replace("To: <" + target + ">", "To: " + header(refused, "To")));
            assertTrue(counter(server.server().registry(), "db.breaker.rejected", "op", "credentials") >= 2);

            h2.startAgain();
            deadline = System.nanoTime() + NOTICE.toNanos();
            r = authenticatedRegister(alice, hp, challenge, n);
            while (!r.startsWith("SIP/2.0 200") && System.nanoTime() < deadline) {
                Thread.sleep(50);
                r = authenticatedRegister(alice, hp, challenge, n);
            }
            assertTrue(r.startsWith("SIP/2.0 200"), "authenticated REGISTER after the database is back: " + r);
        }
    }

    /** One REGISTER with credentials (next CSeq and nonce count) and its final answer. */
    private static String authenticatedRegister(SipSocket s, String hp, String challenge, int[] n) throws IOException {
        n[0]++;
        return register(s, hp, "alice", n[0], s.contact("alice") + "Expires: 600\r\n"
                + DigestClient.answer("Authorization", challenge, "alice", "secret", "REGISTER", "sip:" + hp, n[0]));
    }
}
