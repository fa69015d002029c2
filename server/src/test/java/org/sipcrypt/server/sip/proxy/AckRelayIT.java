package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The ACK for a 2xx over UDP, relayed from its bytes ({@link AckRelay}): each is sent by hand to the
 * real server and read where the proxy sends it, a sink on 127.0.0.2, so the copy is compared line
 * by line with what RFC 3261 §16 asks of a stateless relay. ACKs in a form the early relay does not
 * read still reach the next hop, by the stack.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AckRelayIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void ackAlongARouteSetIsRelayedFromItsBytesToTheNextEntry() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSink next = SipSink.start();
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String ours = "<sip:" + server.hostPort(Transport.UDP) + ";transport=udp;lr>";
            String theirs = "<sip:" + next.hostPort() + ";lr>";
            String ack = ack(caller, "sip:bob@127.0.0.3:5999", "c1", 70,
                    "Route: " + ours + ", " + theirs + "\r\n", "v=0\r\n");

            caller.send(ack);
            caller.send(ack);

            Await.until(() -> next.requests().size() == 2, WAIT, () -> "relayed: " + next.requestLines());
            String first = next.requests().get(0);
            assertTrue(first.startsWith("ACK sip:bob@127.0.0.3:5999 SIP/2.0\r\n"), first);
            List<String> vias = headers(first, "Via");
            assertEquals(2, vias.size(), first);
            assertTrue(vias.get(0).startsWith("SIP/2.0/UDP " + server.hostPort(Transport.UDP) + ";branch=z9hG4bK"),
                    first);
            assertEquals("SIP/2.0/UDP 127.0.0.1:" + caller.localPort() + ";branch=z9hG4bK-c1;received=127.0.0.1;rport="
                    + caller.localPort(), vias.get(1), "the caller's Via tagged as on receipt");
            assertEquals(List.of(theirs), headers(first, "Route"), "only our own entry taken off");
            assertEquals(List.of("69"), headers(first, "Max-Forwards"));
            assertEquals(List.of("<sip:bob@example.org>;tag=t1"), headers(first, "To"));
            assertTrue(first.endsWith("\r\n\r\nv=0\r\n"), "body as it came: " + first);
            // §16.11: every retransmission of the ACK gets the same branch, so the next hop matches them
            assertEquals(first, next.requests().get(1));
            assertEquals(2.0, relayedEarly(server));
        }
    }

    @Test
    void ackWithoutRouteGoesToTheRequestUriAndAtMaxForwardsZeroNowhere() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSink next = SipSink.start();
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String target = "sip:bob@" + next.hostPort() + ";transport=UDP";
            caller.send(ack(caller, target, "mf0", 0, "", ""));
            // same Call-ID, so the same lane: it is handled after the first
            caller.send(ack(caller, target, "mf1", 1, "", ""));

            Await.until(() -> next.requests().size() == 1, WAIT, () -> "relayed: " + next.requestLines());
            String relayed = next.requests().get(0);
            assertEquals(List.of("0"), headers(relayed, "Max-Forwards"), relayed);
            assertTrue(headers(relayed, "Via").get(1).contains(";branch=z9hG4bK-mf1;"), relayed);
            assertEquals(1.0, relayedEarly(server));
            assertEquals(1, next.requests().size(), "the ACK at Max-Forwards 0 went nowhere");
        }
    }

    @Test
    void ackInAFormNotReadFromBytesIsStillRelayedByTheStack() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSink next = SipSink.start();
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String named = "\"proxy\" <sip:" + server.hostPort(Transport.UDP) + ";lr>";
            caller.send(ack(caller, "sip:bob@" + next.hostPort(), "dn", 70, "Route: " + named + "\r\n", ""));

            String relayed = next.await("ACK", WAIT);
            assertEquals(List.of(), headers(relayed, "Route"), relayed);
            assertEquals(List.of("69"), headers(relayed, "Max-Forwards"), relayed);
            assertEquals(0.0, relayedEarly(server), "the stack relayed it");
        }
    }

    @Test
    void ackForARejectionTheProxyRelayedIsAbsorbedByItsTransaction() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSink busy = SipSink.start();
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String target = "sip:bob@" + busy.hostPort();
            String invite = caller.request("INVITE", target, "alice", "bob@" + busy.hostPort(), CALL_ID, 1,
                    caller.contact("alice"));
            caller.send(invite);
            String rejected = caller.awaitMessage("SIP/2.0 486", WAIT);
            assertTrue(rejected != null, "the callee's 486 came back");
            // RFC 3261 §17.1.1.3: the ACK for a non-2xx has the INVITE's branch and ends the proxy's transaction
            String toTag = headers(rejected, "To").get(0).replaceAll(".*;tag=([^;>\\s]+).*", "$1");
            String absorbed = invite.replaceFirst("INVITE sip", "ACK sip").replace("CSeq: 1 INVITE", "CSeq: 1 ACK")
                    .replace("To: <sip:bob@" + busy.hostPort() + ">", "To: <sip:bob@" + busy.hostPort() + ">;tag=" + toTag);
            caller.send(absorbed);
            // a later ACK for a 2xx on the same Call-ID (the same lane) marks when the first was handled
            caller.send(ack(caller, target, "later", 70, "", ""));

            Await.until(() -> busy.requestLines().stream().filter(l -> l.startsWith("ACK ")).count() == 2, WAIT,
                    () -> "at the callee: " + busy.requestLines());
            assertEquals(1.0, relayedEarly(server), "only the later ACK was relayed");
            assertEquals(List.of("INVITE " + target + " SIP/2.0", "ACK " + target + " SIP/2.0",
                    "ACK " + target + " SIP/2.0"), busy.requestLines(), "the proxy's own ACK for the 486, then the later one");
        }
    }

    /** An ACK for a 2xx from {@code caller}, Call-ID of this test, with the given Via branch suffix. */
    private static String ack(SipSocket caller, String requestUri, String branch, int maxForwards, String extra,
                              String body) {
        return "ACK " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + caller.localPort() + ";branch=z9hG4bK-" + branch + ";rport\r\n"
                + "Max-Forwards: " + maxForwards + "\r\n"
                + "From: <sip:alice@example.org>;tag=f1\r\n"
                + "To: <sip:bob@example.org>;tag=t1\r\n"
                + "Call-ID: " + CALL_ID + "\r\n"
                + "CSeq: 1 ACK\r\n"
                + extra
                + "Content-Length: " + body.length() + "\r\n\r\n"
                + body;
    }

    private static final String CALL_ID = UUID.randomUUID().toString();

    /** The values of the header lines named {@code name}, in order. */
    private static List<String> headers(String message, String name) {
        return message.substring(0, message.indexOf("\r\n\r\n")).lines()
                .filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).toList();
    }

    private static double relayedEarly(TestServer server) {
        return server.server().transportCounters().value("sip.requests.relayed_early");
    }
}
