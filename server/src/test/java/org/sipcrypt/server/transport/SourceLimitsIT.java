package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.ManualClock;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;

/**
 * Per-source limits on the real server over real sockets, several loopback addresses acting as
 * distinct sources. The server's clock stands still unless the test moves it, so buckets refill and
 * bans end only when the test says.
 */
@Timeout(60)
class SourceLimitsIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final ManualClock clock = ManualClock.atSystemTime();
    private TestServer server;
    private final List<SipSocket> sockets = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (SipSocket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private SipSocket udpFrom(String address) throws Exception {
        SipSocket s = SipSocket.udpFrom(InetAddress.getByName(address), server.address(Transport.UDP));
        sockets.add(s);
        return s;
    }

    private String serverUri() {
        return "sip:" + server.hostPort(Transport.UDP);
    }

    private static String options(SipSocket from, String serverUri) {
        return from.request("OPTIONS", serverUri, "scanner", "100@127.0.0.1", UUID.randomUUID().toString(), 1, "");
    }

    private double limited(String reason, String action) {
        Counter c = registry().find("sip.sources.limited").tag("reason", reason).tag("action", action).counter();
        return c == null ? 0 : c.count();
    }

    private MeterRegistry registry() {
        return server.server().registry();
    }

    private static String statusLine(String message) {
        return message.substring(0, message.indexOf("\r\n"));
    }

    @Test
    void aUdpFloodFromOneSourceIsLimitedWhileAnotherSourceIsAnswered() throws Exception {
        server = TestServer.start(dir, clock, "limits.allow", "none", "limits.requestsPerSecond", "10",
                "limits.burst", "5");
        String uri = serverUri();
        SipSocket scanner = udpFrom("127.0.0.2");
        // a scanner's sweep: OPTIONS, then INVITEs to numbered users, back to back
        for (int i = 0; i < 5; i++) {
            scanner.send(options(scanner, uri));
        }
        for (int i = 0; i < 15; i++) {
            String target = "sip:" + (100 + i) + "@" + server.hostPort(Transport.UDP);
            scanner.send(scanner.request("INVITE", target, "scanner", (100 + i) + "@127.0.0.1",
                    UUID.randomUUID().toString(), 1, ""));
        }
        Await.until(() -> limited("rate", "dropped") == 10, WAIT,
                () -> "limited: answered " + limited("rate", "answered") + ", dropped " + limited("rate", "dropped"));
        assertEquals(5, limited("rate", "answered"));

        int ok = 0;
        int unavailable = 0;
        for (int i = 0; i < 10; i++) {
            String r = scanner.awaitMessage("SIP/2.0 ", WAIT);
            assertNotNull(r, "answer " + i);
            if (r.startsWith("SIP/2.0 200 ")) {
                ok++;
            } else {
                assertEquals("SIP/2.0 503 Service Unavailable", statusLine(r), r);
                assertTrue(r.contains("\r\nRetry-After: "), r);
                unavailable++;
            }
        }
        assertEquals(5, ok, "the burst of OPTIONS was answered");
        assertEquals(5, unavailable, "five INVITEs were refused with 503");

        SipSocket neighbour = udpFrom("127.0.0.3");
        neighbour.exchange(options(neighbour, uri), "SIP/2.0 200 ", WAIT);
        String invite = neighbour.request("INVITE", "sip:nobody@" + server.hostPort(Transport.UDP), "alice",
                "nobody@127.0.0.1", UUID.randomUUID().toString(), 1, "");
        neighbour.send(invite);
        String answer = neighbour.awaitMessage("SIP/2.0 4", WAIT);
        assertNotNull(answer, "the other source's INVITE got its final answer");
        // the flood got nothing beyond its ten answers: its last ten requests were dropped unanswered
        assertNull(scanner.receive(Duration.ofMillis(200)));
        assertEquals(0, server.server().registry().find("sip.overload.rejected").counters().stream()
                .mapToDouble(Counter::count).sum(), "not refused as overload");
    }

    @Test
    void aTcpSourceOverItsRateGets503OnItsConnection() throws Exception {
        server = TestServer.start(dir, clock, "limits.allow", "none", "limits.requestsPerSecond", "10",
                "limits.burst", "2");
        SipSocket tcp = SipSocket.tcpFrom(InetAddress.getByName("127.0.0.4"), server.address(Transport.TCP));
        sockets.add(tcp);
        String uri = "sip:" + server.hostPort(Transport.TCP) + ";transport=tcp";
        tcp.exchange(options(tcp, uri), "SIP/2.0 200 ", WAIT);
        tcp.exchange(options(tcp, uri), "SIP/2.0 200 ", WAIT);
        String refused = tcp.exchange(options(tcp, uri), "SIP/2.0 503 ", WAIT);
        assertTrue(refused.contains("\r\nRetry-After: "), refused);
        // the bucket refills with the server's clock
        clock.advance(Duration.ofMillis(300));
        tcp.exchange(options(tcp, uri), "SIP/2.0 200 ", WAIT);
    }

    @Test
    void aSourceFailingDigestAuthenticationIsBannedWithoutLookupsUntilTheBanEnds() throws Exception {
        server = TestServer.start(dir, clock, "auth", "true", "limits.allow", "none", "limits.authFailures", "3",
                "limits.banTime", "10m");
        String realm = server.config().effectiveRealm();
        server.server().subscribers().putAll(List.of(subscriber("alice", realm, "secret"),
                subscriber("bob", realm, "b0b")));
        String uri = serverUri();
        SipSocket cracker = udpFrom("127.0.0.2");
        String callId = UUID.randomUUID().toString();
        String challenge = challenge(register(cracker, uri, "alice", callId, 1, ""));
        for (int nc = 1; nc <= 3; nc++) {
            String r = register(cracker, uri, "alice", callId, 1 + nc,
                    DigestClient.answer("Authorization", challenge, "alice", "guess" + nc, "REGISTER", uri, nc));
            assertEquals("SIP/2.0 403 Forbidden", statusLine(r), r);
        }
        Await.until(() -> registry().get("sip.sources.banned").gauge().value() == 1, WAIT,
                () -> "banned: " + registry().get("sip.sources.banned").gauge().value());

        double lookups = registry().counter("auth.lookups").count();
        double outcomes = registry().find("auth.outcomes").counters().stream().mapToDouble(Counter::count).sum();
        // the right password now, with the nonce it already had: refused before any authentication
        String r = register(cracker, uri, "alice", callId, 5,
                DigestClient.answer("Authorization", challenge, "alice", "secret", "REGISTER", uri, 4));
        assertEquals("SIP/2.0 403 Forbidden", statusLine(r), r);
        assertEquals(lookups, registry().counter("auth.lookups").count(), "no credential lookup");
        assertEquals(outcomes, registry().find("auth.outcomes").counters().stream().mapToDouble(Counter::count)
                .sum(), "no authentication at all");
        assertEquals(1, limited("banned", "answered"));

        // another source registers as usual
        SipSocket phone = udpFrom("127.0.0.3");
        assertEquals("SIP/2.0 200 OK", statusLine(registerWith(phone, uri, "bob", "b0b")));

        clock.advance(Duration.ofMinutes(10));
        assertEquals("SIP/2.0 200 OK", statusLine(registerWith(cracker, uri, "alice", "secret")),
                "the ban is over");
        assertEquals(0, registry().get("sip.sources.banned").gauge().value());
    }

    @Test
    void allowListedSourcesAndTrustedPeersAreNeverLimited() throws Exception {
        // loopback is allowed by default: the lab and the benchmarks drive their load from it
        server = TestServer.start(dir, clock, "limits.requestsPerSecond", "1", "limits.burst", "1");
        String uri = serverUri();
        SipSocket local = udpFrom("127.0.0.2");
        for (int i = 0; i < 20; i++) {
            local.exchange(options(local, uri), "SIP/2.0 200 ", WAIT);
        }
        server.close();
        server = null;

        server = TestServer.start(dir, clock, "limits.allow", "127.0.0.5/32", "auth.trustedPeers", "127.0.0.7",
                "limits.requestsPerSecond", "1", "limits.burst", "1");
        uri = serverUri();
        for (String allowed : List.of("127.0.0.5", "127.0.0.7")) {
            SipSocket s = udpFrom(allowed);
            for (int i = 0; i < 20; i++) {
                s.exchange(options(s, uri), "SIP/2.0 200 ", WAIT);
            }
        }
        SipSocket other = udpFrom("127.0.0.6");
        other.exchange(options(other, uri), "SIP/2.0 200 ", WAIT);
        other.exchange(options(other, uri), "SIP/2.0 503 ", WAIT);
        assertEquals(1, limited("rate", "answered"));
        assertEquals(1, registry().get("sip.sources.tracked").gauge().value(), "only the limited source is kept");
    }

    private static Subscriber subscriber(String user, String realm, String password) {
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, password),
                DigestAlgorithm.SHA_256.ha1(user, realm, password), true);
    }

    private String register(SipSocket ua, String uri, String user, String callId, int cseq, String extra)
            throws Exception {
        String realm = server.config().effectiveRealm();
        ua.send(ua.request("REGISTER", uri, user, user + "@" + realm, callId, cseq,
                ua.contact(user) + "Expires: 600\r\n" + extra));
        String r = ua.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(r, "no answer to REGISTER " + cseq);
        return r;
    }

    /** Registers {@code user} in a new call: challenged first, then answering with {@code password}. */
    private String registerWith(SipSocket ua, String uri, String user, String password) throws Exception {
        String callId = UUID.randomUUID().toString();
        String challenge = challenge(register(ua, uri, user, callId, 1, ""));
        return register(ua, uri, user, callId, 2,
                DigestClient.answer("Authorization", challenge, user, password, "REGISTER", uri, 1));
    }

    /** The MD5 challenge of a 401. */
    private static String challenge(String response) {
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(response), response);
        for (String c : DigestClient.challenges(response, "WWW-Authenticate")) {
            if (c.toUpperCase(java.util.Locale.ROOT).contains("MD5")) {
                return c;
            }
        }
        throw new AssertionError("no MD5 challenge in\n" + response);
    }
}
