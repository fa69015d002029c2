package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;

/**
 * The callee's 2xx retransmissions for a call whose caller has closed its TCP connection: each one
 * goes back by the caller's Via, where nothing listens any more. The first finds the caller's
 * connection closed and is dropped ({@code sip.messages.dropped{reason=flow_closed}}); the stack's
 * own sends on that connection fail without a dial ({@code send_failed}); what the relay from bytes
 * dials afterwards is bounded by {@code tcp.connectFailureHold}: the first refused connect holds
 * the address, and the rest fail at once, undialled. The server goes on serving new calls meanwhile.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DeadCallerIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int RETRANSMISSIONS = 5;

    @TempDir
    Path dir;

    private static double closed(TestServer server, String reason) {
        return server.server().transportCounters().value("transport.connections.closed", "reason", reason);
    }

    /** Retransmissions that went nowhere, however each ended. */
    private static double undelivered(TestServer server) {
        return server.server().transportCounters().value("sip.messages.dropped", "reason", "flow_closed")
                + server.server().transportCounters().value("sip.messages.dropped", "reason", "send_failed")
                + closed(server, "connect_failed") + closed(server, "connect_held");
    }

    @Test
    void withTheHoldTheCallersOldPortIsDialledAtMostOnce() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.connectFailureHold", "30s");
             SipSocket bob = SipSocket.tcp(server.address(Transport.TCP))) {
            String ok = callThenCallerLeaves(server, bob, "held");
            for (int i = 0; i < RETRANSMISSIONS; i++) {
                bob.send(ok);
            }
            Await.until(() -> undelivered(server) >= RETRANSMISSIONS, WAIT, () -> server.server().statsLine());
            assertTrue(closed(server, "connect_failed") <= 1, server.server().statsLine());
            assertNewCallGoesThrough(server, bob);
        }
    }

    @Test
    void withoutTheHoldNothingIsHeld() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.connectFailureHold", "0");
             SipSocket bob = SipSocket.tcp(server.address(Transport.TCP))) {
            String ok = callThenCallerLeaves(server, bob, "unheld");
            for (int i = 0; i < RETRANSMISSIONS; i++) {
                bob.send(ok);
            }
            Await.until(() -> undelivered(server) >= RETRANSMISSIONS, WAIT, () -> server.server().statsLine());
            assertEquals(0.0, closed(server, "connect_held"), server.server().statsLine());
            assertNewCallGoesThrough(server, bob);
        }
    }

    /**
     * An INVITE from a caller's own TCP connection to {@code bob}'s, which then closes; returns
     * bob's 200 for it.
     */
    private static String callThenCallerLeaves(TestServer server, SipSocket bob, String callId) throws Exception {
        String bobUri = "sip:bob@" + bob.localHost() + ":" + bob.localPort() + ";transport=tcp";
        bob.awaitTakenIn(WAIT);
        String invite;
        try (SipSocket alice = SipSocket.tcp(server.address(Transport.TCP))) {
            alice.send(alice.request("INVITE", bobUri, "alice", "bob@" + bob.localHost(), callId, 1,
                    alice.contact("alice")));
            invite = bob.awaitMessage("INVITE ", WAIT);
            assertNotNull(invite, "the INVITE reached bob's connection");
        }
        Await.until(() -> closed(server, "peer_closed") >= 1, WAIT, () -> server.server().statsLine());
        return SipSocket.response(invite, "200 OK").replace("Content-Length: 0\r\n",
                bob.contact("bob") + "Content-Length: 0\r\n");
    }

    /** A new caller's INVITE still reaches bob, and bob's 180 reaches that caller. */
    private static void assertNewCallGoesThrough(TestServer server, SipSocket bob) throws Exception {
        String bobUri = "sip:bob@" + bob.localHost() + ":" + bob.localPort() + ";transport=tcp";
        try (SipSocket carol = SipSocket.tcp(server.address(Transport.TCP))) {
            carol.send(carol.request("INVITE", bobUri, "carol", "bob@" + bob.localHost(), "after", 1,
                    carol.contact("carol")));
            String invite = bob.awaitMessage("INVITE ", WAIT);
            assertNotNull(invite, "a new call still reaches bob");
            assertTrue(invite.contains("Call-ID: after"), invite);
            bob.send(SipSocket.response(invite, "180 Ringing"));
            assertNotNull(carol.awaitMessage("SIP/2.0 180", WAIT), "and bob's answer reaches its caller");
        }
    }
}
