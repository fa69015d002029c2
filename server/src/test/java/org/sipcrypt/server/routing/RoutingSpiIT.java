package org.sipcrypt.server.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.sipcrypt.server.config.ConfigException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.FileTrees;
import org.sipcrypt.server.testing.ManualClock;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * The routing SPI end to end: one proxy with three routers from the test class path (least-cost routing
 * over a table in the server's database, an office-hours rule on the server's clock set by hand, and one
 * that throws, fails or never answers), calls over real UDP sockets to user agents standing in for
 * gateways and phones. One server for the routing cases: the routers decide by the number or user called,
 * so the cases do not meet; {@code sip.workers=1} puts every call on the one lane a slow router must not
 * hold. Two cases need a server of their own: digest authentication on (the identity a router sees),
 * and a start that must fail.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoutingSpiIT {

    private static final Instant MORNING = Instant.parse("2026-11-30T10:00:00Z");
    private static final Instant NIGHT = Instant.parse("2026-11-30T22:00:00Z");
    private static final String VOICEMAIL = "sip:voicemail@127.0.0.1:5999";

    private static Path dir;
    private static ManualClock clock;
    private static TestServer server;
    private static TestUa alice;

    @BeforeAll
    static void startServer() throws Exception {
        dir = Files.createTempDirectory("routing-spi-it");
        clock = new ManualClock(MORNING);
        server = TestServer.start(dir, clock, "sip.workers", "1",
                "routing.router", "lcr", "routing.router", "office-hours", "routing.router", "faulty",
                "routing.timeout", "5s",
                "routing.option", "lcr.strip=00", "routing.option", "office.user=office",
                "routing.option", "office.open=09:00-17:00", "routing.option", "office.voicemail=" + VOICEMAIL);
        alice = TestUa.start("alice", Transport.UDP);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (alice != null) {
            alice.close();
        }
        if (server != null) {
            server.close();
        }
        FileTrees.delete(dir);
    }

    @Test
    void leastCostRouterSendsTheCallToTheCheapestGatewayOfTheLongestPrefixWithTheNumberRewritten() throws Exception {
        try (TestUa cheap = TestUa.start("gw", Transport.UDP);
             TestUa dear = TestUa.start("gw", Transport.UDP)) {
            try (Connection c = LeastCostRouter.started.dataSource().getConnection();
                 Statement s = c.createStatement()) {
                // the shorter prefix is cheaper still, but the longest matching prefix wins first
                s.executeUpdate("INSERT INTO lcr_route VALUES ('49', '127.0.0.1:" + cheap.port() + ";transport=udp', 1),"
                        + " ('4930', '127.0.0.1:" + dear.port() + ";transport=udp', 7),"
                        + " ('4930', '127.0.0.1:" + cheap.port() + ";transport=udp', 2),"
                        + " ('4940', '127.0.0.1:" + dear.port() + ";transport=udp', 1)");
            }
            double before = count("lcr", "proxy");

            TestUa.Call call = alice.invite(alice.uri("004930123456", "127.0.0.1"), server.address(Transport.UDP));
            call.awaitAnswered(TestUa.TIMEOUT);

            Request atGateway = cheap.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals("4930123456", ((SipURI) atGateway.getRequestURI()).getUser());
            assertEquals(cheap.port(), ((SipURI) atGateway.getRequestURI()).getPort());
            assertEquals(List.of(), dear.received(Request.INVITE));
            assertEquals(before + 1, count("lcr", "proxy"));
            assertEquals(Response.OK, call.hangUp().getStatusCode());
        }
    }

    @Test
    void officeHoursRuleLetsCallsThroughByDayAndRedirectsThemToVoicemailAtNight() throws Exception {
        try (TestUa office = TestUa.start("office", Transport.UDP)) {
            office.registerAt(server.address(Transport.UDP));
            try {
                TestUa.Call day = alice.invite(office.aor(), server.address(Transport.UDP));
                day.awaitAnswered(TestUa.TIMEOUT);
                assertEquals(1, office.received(Request.INVITE).size());
                assertEquals(Response.OK, day.hangUp().getStatusCode());

                clock.set(NIGHT);
                Response night = alice.invite(office.aor(), server.address(Transport.UDP)).invite()
                        .awaitFinal(TestUa.TIMEOUT);

                assertEquals(Response.MOVED_TEMPORARILY, night.getStatusCode());
                assertEquals(VOICEMAIL, ((ContactHeader) night.getHeader(ContactHeader.NAME)).getAddress().getURI()
                        .toString());
                assertEquals(1, office.received(Request.INVITE).size(), "the office phone rang at night");
            } finally {
                clock.set(MORNING);
            }
        }
    }

    @Test
    void whenEveryRouterContinuesARegisteredUserIsReachedAsWithoutRouters() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            bob.registerAt(server.address(Transport.UDP));
            double before = count("faulty", "continue");

            TestUa.Call call = alice.call(bob.aor(), server.address(Transport.UDP));

            assertEquals(1, bob.received(Request.INVITE).size());
            assertEquals(before + 1, count("faulty", "continue"));
            assertEquals(Response.OK, call.hangUp().getStatusCode());
        }
    }

    @Test
    void routerThatThrowsOrFailsGets500AndIsCounted() throws Exception {
        double before = count("faulty", "error");

        Response thrown = alice.invite(alice.uri("boom", "127.0.0.1"), server.address(Transport.UDP)).invite()
                .awaitFinal(TestUa.TIMEOUT);
        Request message = alice.newRequest(Request.MESSAGE, alice.uri("failing", "127.0.0.1"),
                server.address(Transport.UDP));
        Response failed = alice.send(message).awaitFinal(TestUa.TIMEOUT);

        assertEquals(Response.SERVER_INTERNAL_ERROR, thrown.getStatusCode());
        assertEquals(Response.SERVER_INTERNAL_ERROR, failed.getStatusCode());
        assertEquals(before + 2, count("faulty", "error"));
    }

    @Test
    void slowRouterGets504Or487WhenCancelledAndTheLaneServesOtherCallsMeanwhile() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            bob.registerAt(server.address(Transport.UDP));
            double before = count("faulty", "timeout");

            SipExchange slow = alice.invite(alice.uri("slow", "127.0.0.1"), server.address(Transport.UDP)).invite();
            TestUa.Call cancelled = alice.invite(alice.uri("slow", "127.0.0.1"), server.address(Transport.UDP));
            cancelled.invite().await(Response.TRYING, TestUa.TIMEOUT);
            assertEquals(Response.OK, cancelled.cancel().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            TestUa.Call other = alice.call(bob.aor(), server.address(Transport.UDP));

            // the one lane carried bob's call while the router had not decided: no final answer yet
            assertTrue(slow.statuses().stream().allMatch(s -> s < 200), "answered before bob's call: " + slow.statuses());
            assertEquals(Response.OK, other.hangUp().getStatusCode());
            assertEquals(Response.SERVER_TIMEOUT, slow.awaitFinal(Duration.ofSeconds(20)).getStatusCode());
            // RFC 3261 §16.10: the INVITE cancelled while the router had not decided ends 487, not 504
            assertEquals(Response.REQUEST_TERMINATED,
                    cancelled.invite().awaitFinal(Duration.ofSeconds(20)).getStatusCode());
            assertEquals(before + 2, count("faulty", "timeout"));
        }
    }

    @Test
    void routersSeeRequestsAfterAuthenticationWithTheIdentityTheyProved() throws Exception {
        Path other = Files.createTempDirectory("routing-spi-it-auth");
        try (TestServer withAuth = TestServer.start(other, "auth", "true", "auth.algorithms", "md5",
                "routing.router", "faulty")) {
            String realm = withAuth.server().config().effectiveRealm();
            withAuth.server().subscribers().putAll(List.of(new org.sipcrypt.server.location.Subscriber("alice", realm,
                    org.sipcrypt.server.config.DigestAlgorithm.MD5.ha1("alice", realm, "secret"),
                    org.sipcrypt.server.config.DigestAlgorithm.SHA_256.ha1("alice", realm, "secret"), true)));
            // JAIN-SIP's digest client answers MD5 only
            Request message = alice.newRequest(Request.MESSAGE, alice.uri("whoami", "127.0.0.1"),
                    withAuth.address(Transport.UDP));
            SipExchange challenged = alice.send(message);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, challenged.awaitFinal(TestUa.TIMEOUT).getStatusCode());

            Response decided = alice.authenticate(challenged, "secret").awaitFinal(TestUa.TIMEOUT);

            assertEquals(Response.FORBIDDEN, decided.getStatusCode());
            assertEquals("Identity alice", decided.getReasonPhrase());
        } finally {
            FileTrees.delete(other);
        }
    }

    @Test
    void routerMissingFromTheClassPathStopsTheStartNamingIt() throws Exception {
        Path other = Files.createTempDirectory("routing-spi-it-missing");
        try {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> TestServer.start(other, "routing.router", "lcr", "routing.router", "nosuch").close());
            assertTrue(e.getMessage().startsWith("routing.router: no router named \"nosuch\" on the class path"
                    + " (found: faulty, lcr, office-hours, to-set)"), e.getMessage());
        } finally {
            FileTrees.delete(other);
        }
    }

    private static double count(String router, String decision) {
        Counter c = server.server().registry().find("routing.decisions").tag("router", router)
                .tag("decision", decision).counter();
        return c == null ? 0 : c.count();
    }
}
