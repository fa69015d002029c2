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
 * goes back by the caller's Via, where nothing listens any more. Plays what kept a one-lane server
 * over its overload threshold in the lab's per-call-connection presets: without
 * {@code tcp.connectFailureHold} every retransmission costs a connect to the caller's old port; with
 * it, the first refused connect holds that address and the rest fail at once, undialled, until the
 * hold lapses. The server goes on serving new calls meanwhile.
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

    @Test
    void aRefusedCallerIsDialledOnceForAllTheRetransmissionsWithinTheHoldAndAgainAfterIt() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.connectFailureHold", "2s");
             SipSocket bob = SipSocket.tcp(server.address(Transport.TCP))) {
            String ok = callThenCallerLeaves(server, bob, "held");
            // the first retransmission's dial fails before the others come (sent while it is being
            // dialled, they would wait for that one dial and fail with it)
            bob.send(ok);
            Await.until(() -> closed(server, "connect_failed") == 1, WAIT, () -> server.server().statsLine());
            for (int i = 0; i < RETRANSMISSIONS; i++) {
                bob.send(ok);
            }
            Await.until(() -> closed(server, "connect_failed") + closed(server, "connect_held") == RETRANSMISSIONS + 1,
                    WAIT, () -> server.server().statsLine());
            assertEquals(1.0, closed(server, "connect_failed"), server.server().statsLine());
            assertEquals(RETRANSMISSIONS, closed(server, "connect_held"), server.server().statsLine());

            Thread.sleep(2_500);
            bob.send(ok);
            Await.until(() -> closed(server, "connect_failed") == 2, WAIT, () -> server.server().statsLine());
            assertEquals(RETRANSMISSIONS, closed(server, "connect_held"), "the hold had lapsed");

            assertNewCallGoesThrough(server, bob);
        }
    }

    @Test
    void withoutTheHoldEveryRetransmissionDialsTheCallersOldPort() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.connectFailureHold", "0");
             SipSocket bob = SipSocket.tcp(server.address(Transport.TCP))) {
            String ok = callThenCallerLeaves(server, bob, "unheld");
            for (int i = 0; i <= RETRANSMISSIONS; i++) {
                bob.send(ok);
                // each one dials again (the relay from its bytes and the stack's answer may both dial)
                int dials = i + 1;
                Await.until(() -> closed(server, "connect_failed") >= dials, WAIT, () -> server.server().statsLine());
            }
            assertEquals(0.0, closed(server, "connect_held"));
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
