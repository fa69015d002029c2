package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.TransportCounters;

/**
 * {@code sip.fastPath}: a call through the real proxy with digest authentication (INVITE, 407, ACK,
 * INVITE with credentials, 180, 200, ACK, BYE, 200) between two JAIN-SIP user agents, over UDP and
 * over TCP, after a first INVITE sent by hand in the form the early challenge takes (407, ACK). Off,
 * all of it completes with none of the byte paths used: the counters the early challenge and the
 * early relays bump stay at 0. On, the same messages are challenged (over UDP) and relayed (ACK, BYE
 * and responses) from their bytes, so the counters prove which path carried them.
 * Threading: JUnit's test thread.
 */
@Timeout(60)
class FastPathSwitchIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "sip.fastPath={0} over {1}")
    @CsvSource({"off, UDP", "off, TCP", "on, UDP", "on, TCP"})
    void aChallengedCallCompletesAndTheCountersShowWhichPathCarriedIt(String fastPath, Transport transport)
            throws Exception {
        try (TestServer server = TestServer.start(dir, "auth", "true", "auth.algorithms", "md5",
                "sip.fastPath", fastPath);
             TestUa alice = TestUa.start("alice", transport);
             TestUa bob = TestUa.start("bob", transport)) {
            assertEquals("on".equals(fastPath), server.config().fastPath());
            String realm = server.config().effectiveRealm();
            server.server().subscribers().putAll(List.of(subscriber("alice", realm, "secret"),
                    subscriber("bob", realm, "b0b")));
            InetSocketAddress proxy = server.address(transport);
            // a first INVITE in the plain form the early challenge takes over UDP (no Route, no credentials)
            try (SipSocket raw = server.socket(transport)) {
                String invite = raw.request("INVITE", "sip:bob@" + realm, "alice", "bob@" + realm,
                        "raw-" + fastPath + "-" + transport, 1, raw.contact("alice"));
                raw.send(invite);
                String challenge = raw.awaitMessage("SIP/2.0 407 ", WAIT);
                assertNotNull(challenge, "no 407 to the INVITE sent by hand");
                raw.send(SipSocket.ackFor(invite, challenge));
            }
            Request register = bob.newRegister(proxy);
            register.addHeader(bob.contact(bob.contactUri(), 600));
            SipExchange challenged = bob.send(register);
            assertEquals(Response.UNAUTHORIZED, challenged.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(Response.OK, bob.authenticate(challenged, "b0b").awaitFinal(TestUa.TIMEOUT).getStatusCode());

            TestUa.Call first = alice.invite(bob.aor(), proxy);
            assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, first.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            TestUa.Call call = alice.authenticate(first, "secret");
            call.awaitAnswered(TestUa.TIMEOUT);
            assertTrue(call.invite().statuses().contains(Response.RINGING), "180 relayed: " + call.invite().statuses());
            bob.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertEquals(1, bob.received(Request.BYE).size());
            assertTrue(alice.errors().isEmpty(), alice.errors().toString());

            TransportCounters counters = server.server().transportCounters();
            double answered = counters.value("sip.requests.answered_early");
            double relayed = counters.value("sip.requests.relayed_early");
            double responses = counters.value("sip.responses.relayed_early");
            String seen = "answered_early=" + answered + " relayed_early=" + relayed
                    + " responses.relayed_early=" + responses;
            if ("off".equals(fastPath)) {
                assertEquals(0.0, answered + relayed + responses, "byte paths used with sip.fastPath off: " + seen);
            } else if (transport == Transport.UDP) {
                // the raw INVITE is challenged from its bytes (the agent's, with a preloaded Route, by
                // the stack); the ACK for the 2xx and the BYE go on from their bytes, and so do the
                // 180, the 200 to the INVITE and the 200 to the BYE
                assertEquals(1.0, answered, seen);
                assertTrue(relayed >= 2.0, seen);
                assertTrue(responses >= 2.0, seen);
            } else {
                // over TCP the stack challenges (the early challenge answers datagrams only) and this
                // agent's ACK and BYE are in a form the early relays leave to the stack; the 180 and
                // the 200s still go upstream from their bytes
                assertEquals(0.0, answered, seen);
                assertTrue(responses >= 2.0, seen);
            }
        }
    }

    private static Subscriber subscriber(String user, String realm, String password) {
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, password),
                DigestAlgorithm.SHA_256.ha1(user, realm, password), true);
    }
}
