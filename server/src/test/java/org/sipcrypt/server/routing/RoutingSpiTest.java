package org.sipcrypt.server.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.ManualClock;

/** The routing SPI's types, its loader, and the example time-of-day router with a clock set by hand. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RoutingSpiTest {

    private static final ManualClock CLOCK = new ManualClock(Instant.parse("2026-11-30T10:00:00Z"));

    private static RouterContext context(Map<String, String> options) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:routing-spi-test;DB_CLOSE_DELAY=-1");
        return new RouterContext(h2, options, CLOCK);
    }

    private static RouteRequest invite(String requestUri, String to) {
        return new RouteRequest("INVITE", requestUri, "sip:alice@example.com", to, "call-1",
                Map.of("Max-Forwards", List.of("70")), new InetSocketAddress("127.0.0.1", 5070), "udp",
                Optional.empty());
    }

    @Test
    void decisionsCheckWhatTheyCarry() {
        assertEquals(List.of("sip:a@gw", "sip:b@gw"), ((RouteDecision.Proxy) RouteDecision.proxy("sip:a@gw", "sip:b@gw")).targets());
        assertEquals(302, ((RouteDecision.Redirect) RouteDecision.redirect("sip:vm@example.com")).status());
        assertInstanceOf(RouteDecision.Continue.class, RouteDecision.CONTINUE);
        assertThrows(IllegalArgumentException.class, RouteDecision::proxy);
        assertThrows(IllegalArgumentException.class, () -> new RouteDecision.Proxy(
                java.util.Collections.nCopies(RouteDecision.Proxy.MAX_TARGETS + 1, "sip:a@gw")));
        assertThrows(IllegalArgumentException.class, () -> new RouteDecision.Redirect(200, List.of("sip:a@gw")));
        assertThrows(IllegalArgumentException.class, () -> new RouteDecision.Redirect(302, List.of()));
        assertEquals(380, new RouteDecision.Redirect(380, List.of()).status());
        assertThrows(IllegalArgumentException.class, () -> RouteDecision.reject(399, null));
        assertThrows(IllegalArgumentException.class, () -> RouteDecision.reject(700, null));
        assertThrows(IllegalArgumentException.class, () -> RouteDecision.reject(403, "bad\r\nX-Injected: 1"));
        assertEquals("Blocked", ((RouteDecision.Reject) RouteDecision.reject(403, "Blocked")).reason());
        assertThrows(NullPointerException.class, () -> new RouteDecision.Proxy(null));
    }

    @Test
    void requestViewFindsHeadersInAnyCaseAndTheRequestUser() {
        RouteRequest r = invite("sip:0049301234@gw.example.com;user=phone", "sip:bob@example.com");
        assertEquals(Optional.of("70"), r.header("max-forwards"));
        assertEquals(List.of("70"), r.headers("MAX-FORWARDS"));
        assertEquals(List.of(), r.headers("Subject"));
        assertEquals(Optional.of("0049301234"), r.requestUser());
        assertEquals(Optional.empty(), RouteRequest.userOf("sip:example.com"));
        assertEquals(Optional.empty(), RouteRequest.userOf("tel:+4930"));
        assertEquals(Optional.of("bob"), RouteRequest.userOf("sips:bob:secret@example.com"));
        assertThrows(UnsupportedOperationException.class, () -> r.headers().put("x", List.of()));
    }

    /** Seeded fuzz: userOf answers or declines for any text, and what it answers is part of the text. */
    @Test
    void userOfNeverThrowsOnArbitraryText() {
        Random random = new Random(443);
        String alphabet = "sip:S@.:;%a0+ ";
        for (int i = 0; i < 5_000; i++) {
            StringBuilder sb = new StringBuilder();
            int len = random.nextInt(16);
            for (int c = 0; c < len; c++) {
                sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String text = sb.toString();
            RouteRequest.userOf(text).ifPresent(u -> assertTrue(text.contains(u + "@") || text.contains(u + ":"), text));
        }
    }

    @Test
    void officeHoursRouterContinuesWithinHoursAndRejectsOutsideWithoutVoicemail() throws Exception {
        OfficeHoursRouter r = new OfficeHoursRouter();
        r.start(context(Map.of("office.user", "office", "office.open", "09:00-17:00")));
        RouteRequest toOffice = invite("sip:office@example.com", "sip:office@example.com");

        CLOCK.set(Instant.parse("2026-11-30T16:59:59Z"));
        assertEquals(RouteDecision.CONTINUE, r.route(toOffice).toCompletableFuture().join());
        CLOCK.set(Instant.parse("2026-11-30T17:00:00Z"));
        assertEquals(RouteDecision.reject(480, "Office Closed"), r.route(toOffice).toCompletableFuture().join());
        assertEquals(RouteDecision.CONTINUE,
                r.route(invite("sip:bob@example.com", "sip:bob@example.com")).toCompletableFuture().join());
    }

    @Test
    void officeHoursRouterNeedsItsOptions() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new OfficeHoursRouter().start(context(Map.of("office.open", "09:00-17:00"))));
        assertEquals("routing.option: office.user=... is required", e.getMessage());
    }

    @Test
    void unknownRouterNameFailsWithTheNamesFound() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> CallRouters.load(
                List.of("lcr", "nosuch"), getClass().getClassLoader(), context(Map.of())));
        assertTrue(e.getMessage().startsWith("routing.router: no router named \"nosuch\" on the class path"
                + " (found: faulty, lcr, office-hours, to-set)"), e.getMessage());
    }

    @Test
    void routerThatFailsToStartFailsTheLoadNamingIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> CallRouters.load(
                List.of("faulty", "office-hours"), getClass().getClassLoader(), context(Map.of())));
        assertEquals("routing.router: router \"office-hours\" failed to start:"
                + " routing.option: office.user=... is required", e.getMessage());
    }

    @Test
    void routersLoadInTheOrderGiven() {
        try (CallRouters routers = CallRouters.load(List.of("faulty", "lcr"), getClass().getClassLoader(),
                context(Map.of()))) {
            assertEquals(List.of("faulty", "lcr"), routers.names());
        }
    }
}
