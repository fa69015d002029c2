package org.sipcrypt.server.sip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.Header;
import javax.sip.header.MinExpiresHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sipcrypt.server.testing.ServerPerTest;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** The registrar over real sockets (RFC 3261 §10.3): bindings, refreshes, removal, and its refusals. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistrarIT {

    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();

    @Test
    void registerIsAnsweredWithTheBindingAndItsExpires() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Response ok = bob.register(registrar(bob), 600);

            assertBindings(Map.of(bob.contactUri().toString(), 600), ok);
            assertNotNull(ok.getHeader("Date"), "200 for REGISTER carries Date (RFC 3261 §10.3 step 8)");
        }
    }

    @Test
    void refreshWithHigherCseqOnTheSameCallIdReplacesTheLifetime() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.TCP)) {
            assertEquals(Response.OK, bob.register(registrar(bob), 600).getStatusCode());

            Response refreshed = bob.register(registrar(bob), 1200);

            assertBindings(Map.of(bob.contactUri().toString(), 1200), refreshed);
        }
    }

    @Test
    void severalContactsOfOneAddressOfRecordAreAllListed() throws Exception {
        try (TestUa desk = TestUa.start("bob", Transport.UDP);
             TestUa mobile = TestUa.start("bob", Transport.TCP)) {
            Response two = register(desk, desk.contact(desk.contactUri(), 600), desk.contact(spare(desk), 900));
            assertEquals(Response.OK, two.getStatusCode());

            Response ok = mobile.register(registrar(mobile), 300);

            assertBindings(Map.of(desk.contactUri().toString(), 600, spare(desk).toString(), 900,
                    mobile.contactUri().toString(), 300), ok);
        }
    }

    @Test
    void expiresZeroRemovesOnlyThatContact() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            assertEquals(2, bindings(register(bob, bob.contact(bob.contactUri(), 600),
                    bob.contact(spare(bob), 600))).size());

            Response ok = register(bob, bob.contact(spare(bob), 0));

            assertBindings(Map.of(bob.contactUri().toString(), 600), ok);
        }
    }

    @Test
    void wildcardWithExpiresZeroRemovesEveryBinding() throws Exception {
        try (TestUa desk = TestUa.start("bob", Transport.UDP);
             TestUa mobile = TestUa.start("bob", Transport.UDP)) {
            assertEquals(Response.OK, desk.register(registrar(desk), 600).getStatusCode());
            assertEquals(2, bindings(mobile.register(registrar(mobile), 600)).size());

            Response ok = register(desk, desk.headers().createContactHeader(),
                    desk.headers().createExpiresHeader(0));

            assertBindings(Map.of(), ok);
            assertBindings(Map.of(), register(desk));
        }
    }

    @Test
    void wildcardWithoutExpiresZeroOrBesideAnotherContactIsRefusedWith400() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            assertEquals(Response.OK, bob.register(registrar(bob), 600).getStatusCode());

            Response wildcardWithLifetime = register(bob, bob.headers().createContactHeader(),
                    bob.headers().createExpiresHeader(600));
            assertEquals(Response.BAD_REQUEST, wildcardWithLifetime.getStatusCode());

            // by hand: JAIN-SIP would fold both into one "Contact: *,<...>" line, which parses as a display name
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = server.hostPort(Transport.UDP);
                s.send("REGISTER sip:" + hp + " SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP 127.0.0.1:" + s.localPort() + ";branch=z9hG4bK-wild-1;rport\r\n"
                        + "Max-Forwards: 70\r\n"
                        + "From: <sip:bob@127.0.0.1>;tag=w1\r\n"
                        + "To: <sip:bob@127.0.0.1>\r\n"
                        + "Call-ID: wildcard-and-contact\r\n"
                        + "CSeq: 1 REGISTER\r\n"
                        + "Contact: *\r\n"
                        + "Contact: <" + spare(bob) + ">\r\n"
                        + "Expires: 0\r\n"
                        + "Content-Length: 0\r\n\r\n");
                String answer = s.receive(TestUa.TIMEOUT);
                assertNotNull(answer, "no answer to a wildcard beside a contact");
                assertTrue(answer.startsWith("SIP/2.0 400 "), answer);
            }

            assertBindings(Map.of(bob.contactUri().toString(), 600), register(bob));
        }
    }

    @Test
    @ServerPerTest.Settings({"registrar.minExpires", "60s"})
    void tooShortLifetimeIsRefusedWith423AndMinExpires() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Response tooBrief = bob.register(registrar(bob), 30);

            assertEquals(Response.INTERVAL_TOO_BRIEF, tooBrief.getStatusCode());
            MinExpiresHeader min = (MinExpiresHeader) tooBrief.getHeader(MinExpiresHeader.NAME);
            assertNotNull(min, tooBrief.toString());
            assertEquals(60, min.getExpires());
        }
    }

    @Test
    void lowerCseqOnTheSameCallIdIsRefusedWith500() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP)) {
            Request first = bob.newRegister(registrar(bob), 5);
            first.addHeader(bob.contact(bob.contactUri(), 600));
            assertEquals(Response.OK, bob.send(first).awaitFinal(TestUa.TIMEOUT).getStatusCode());

            Request stale = bob.newRegister(registrar(bob), 3);
            stale.addHeader(bob.contact(bob.contactUri(), 1200));
            Response refused = bob.send(stale).awaitFinal(TestUa.TIMEOUT);

            assertEquals(Response.SERVER_INTERNAL_ERROR, refused.getStatusCode());
            assertBindings(Map.of(bob.contactUri().toString(), 600), register(bob));
        }
    }

    @Test
    @ServerPerTest.Settings({"registrar.minExpires", "1s"})
    void bindingLapsesWhenItsLifetimeEnds() throws Exception {
        try (TestUa bob = TestUa.start("bob", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            Response ok = bob.register(registrar(bob), 2);
            assertEquals(Response.OK, ok.getStatusCode());
            assertTrue(bindings(ok).get(bob.contactUri().toString()) <= 2, ok.toString());

            // the binding answers (200 from bob) until it lapses, then the proxy answers 480
            List<Integer> seen = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            int status = 0;
            while (status != Response.TEMPORARILY_UNAVAILABLE && System.nanoTime() < deadline) {
                Request options = alice.newRequest(Request.OPTIONS, bob.aor(), server.address(Transport.UDP));
                status = alice.send(options).awaitFinal(TestUa.TIMEOUT).getStatusCode();
                seen.add(status);
                if (status != Response.TEMPORARILY_UNAVAILABLE) {
                    Thread.sleep(200); // polling interval, not synchronisation: the loop checks the outcome
                }
            }
            assertEquals(Response.TEMPORARILY_UNAVAILABLE, status, "statuses seen: " + seen);
            assertTrue(seen.stream().allMatch(s -> s == Response.OK || s == Response.TEMPORARILY_UNAVAILABLE),
                    "statuses seen: " + seen);
            assertBindings(Map.of(), register(bob));
        }
    }

    private InetSocketAddress registrar(TestUa ua) {
        return server.address(ua.transport());
    }

    /** Sends a REGISTER carrying these headers (none: a query) and returns its final answer. */
    private Response register(TestUa ua, Header... headers) throws Exception {
        Request r = ua.newRegister(registrar(ua));
        for (Header h : headers) {
            r.addHeader(h);
        }
        return ua.send(r).awaitFinal(TestUa.TIMEOUT);
    }

    /** A second contact of the same agent: the port beside its own. */
    private static SipURI spare(TestUa ua) {
        SipURI u = ua.uri("bob", "127.0.0.1");
        u.setPort(ua.port() == 65535 ? 1024 : ua.port() + 1);
        return u;
    }

    /** Contact URI to expires parameter, as listed in a 200 for REGISTER. */
    private static Map<String, Integer> bindings(Response r) {
        assertEquals(Response.OK, r.getStatusCode(), r.toString());
        Map<String, Integer> out = new TreeMap<>();
        for (ContactHeader c : TestUa.contacts(r)) {
            int expires = c.getExpires();
            assertTrue(expires >= 0, "every listed binding carries expires: " + c);
            out.put(c.getAddress().getURI().toString(), expires);
        }
        return out;
    }

    /**
     * Asserts that the answer is a 200 listing these bindings: the same contacts, each with the lifetime asked for, less at
     * most a few seconds that passed since (lifetimes count down while the test runs).
     */
    private static void assertBindings(Map<String, Integer> expected, Response r) {
        Map<String, Integer> actual = bindings(r);
        assertEquals(expected.keySet(), actual.keySet(), r.toString());
        expected.forEach((contact, expires) -> assertTrue(
                actual.get(contact) <= expires && actual.get(contact) > expires - 5,
                contact + " expires " + actual.get(contact) + ", expected about " + expires));
    }
}
