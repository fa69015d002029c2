package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.RetryAfterHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.server.testing.BobAndAlice;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * Shutdown with calls in progress: while the server drains, new requests get 503 with Retry-After
 * (from new TCP clients too),
 * the BYEs of the calls established through it are still forwarded and answered, and shutdown ends
 * when the last call has, well before its long grace.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShutdownDrainIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration GRACE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "calls over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void drainRefusesNewCallsAndKeepsEstablishedOnesUntilTheirBye(Transport t) throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, t, t, "shutdown.grace", "120s");
             SipSocket probe = u.server().socket(t)) {
            TestUa.Call first = u.alice().call(u.bob().aor(), u.server().address(t));
            u.alice().call(u.bob().aor(), u.server().address(t));
            u.bob().awaitRequests(Request.ACK, 2, WAIT);

            long closeStarted = System.nanoTime();
            Thread closer = new Thread(u.server().server()::close, "test-closer");
            closer.start();
            try {
                String refusal = firstRefusal(probe, u.server().hostPort(t));
                assertTrue(refusal.startsWith("SIP/2.0 503 Shutting Down\r\n"), refusal);
                assertTrue(refusal.contains("\r\nRetry-After: "), refusal);

                // a new TCP client is still accepted, and answered 503
                try (SipSocket fresh = SipSocket.tcp(u.server().address(Transport.TCP))) {
                    String hp = u.server().hostPort(Transport.TCP);
                    fresh.send(fresh.request("OPTIONS", "sip:" + hp, "late", hp, "drain-late", 1, ""));
                    String answer = fresh.awaitMessage("SIP/2.0 ", WAIT);
                    assertNotNull(answer, "no answer to a new TCP client during the drain");
                    assertTrue(answer.startsWith("SIP/2.0 503 Shutting Down\r\n"), answer);
                }
                // a new call and a new registration are refused, with Retry-After
                Response refused = u.alice().invite(u.bob().aor(), u.server().address(t)).invite().awaitFinal(WAIT);
                assertEquals(Response.SERVICE_UNAVAILABLE, refused.getStatusCode());
                assertNotNull(refused.getHeader(RetryAfterHeader.NAME), refused.toString());
                assertEquals(Response.SERVICE_UNAVAILABLE, u.bob().register(u.server().address(t), 600).getStatusCode());
                assertEquals(2, u.bob().received(Request.INVITE).size(), "a refused INVITE was forwarded");

                assertTrue(closer.isAlive(), "shutdown ended with two calls established");
                // the caller hangs up the first call, the callee the second: both BYEs go through
                assertEquals(Response.OK, first.hangUp().getStatusCode());
                u.bob().awaitRequest(Request.BYE, WAIT);
                assertTrue(closer.isAlive(), "shutdown ended with a call established");
                assertEquals(Response.OK, u.bob().hangUpAnswered().awaitFinal(WAIT).getStatusCode());
                u.alice().awaitRequest(Request.BYE, WAIT);

                closer.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(closer.isAlive(), "shutdown still waiting after the last BYE");
                long took = System.nanoTime() - closeStarted;
                assertTrue(took < GRACE.toNanos() / 2, "shutdown took " + took / 1_000_000 + " ms of its "
                        + GRACE + " grace: it waited for the grace instead of the calls");
                assertEquals(List.of(), u.bob().errors());
                assertEquals(List.of(), u.alice().errors());
            } finally {
                closer.join(GRACE.toMillis() + 30_000);
            }
        }
    }

    /** Sends OPTIONS to the server until one is answered 503 (the drain has begun), and returns that answer. */
    private static String firstRefusal(SipSocket probe, String hp) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (int i = 1; System.nanoTime() < deadline; i++) {
            probe.send(probe.request("OPTIONS", "sip:" + hp, "probe", hp, "drain-probe-" + i, 1, ""));
            String answer = probe.awaitMessage("SIP/2.0 ", WAIT);
            assertNotNull(answer, "OPTIONS unanswered");
            if (answer.startsWith("SIP/2.0 503")) {
                return answer;
            }
            assertTrue(answer.startsWith("SIP/2.0 200"), answer);
            Thread.sleep(20);
        }
        throw new AssertionError("no 503 within " + WAIT + " of the start of shutdown");
    }
}
