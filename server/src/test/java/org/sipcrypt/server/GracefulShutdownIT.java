package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/** Shutdown refuses new calls with 503 but lets a call in progress get its final response. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GracefulShutdownIT {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @Test
    void drainingRefusesNewCallsButFinishesTheCallInProgress() throws Exception {
        TestServer server = TestServer.start(dir, "shutdown.grace", "90s");
        String hp = server.hostPort(Transport.UDP);
        try (SipSocket callee = SipSocket.udp(server.address(Transport.UDP));
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            callee.send(callee.request("REGISTER", "sip:" + hp, "bob", "bob@" + hp, "reg", 1, callee.contact("bob")));
            String reg = callee.receive(WAIT);
            assertNotNull(reg);
            assertTrue(reg.startsWith("SIP/2.0 200"), reg);

            caller.send(caller.request("INVITE", "sip:bob@" + hp, "caller", "bob@" + hp, "call-1", 1, caller.contact("caller")));
            String trying = caller.receive(WAIT);
            assertNotNull(trying);
            assertTrue(trying.startsWith("SIP/2.0 100"), trying);
            String invite = callee.receive(WAIT);
            assertNotNull(invite);
            assertTrue(invite.startsWith("INVITE "), invite);

            Thread closer = new Thread(server::close, "test-closer");
            closer.start();
            // a new call during the drain is refused
            String refused = null;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (refused == null && System.nanoTime() < deadline) {
                caller.send(caller.request("INVITE", "sip:bob@" + hp, "caller", "bob@" + hp, "call-2-" + System.nanoTime(), 1,
                        caller.contact("caller")));
                String r = caller.receive(Duration.ofMillis(300));
                if (r != null && r.startsWith("SIP/2.0 503")) {
                    refused = r;
                }
            }
            assertNotNull(refused, "no 503 during the drain");
            assertTrue(closer.isAlive(), "the server waits for the call in progress");

            // the call in progress still gets its final response through the proxy
            callee.send(SipSocket.response(invite, "486 Busy Here"));
            String busy = caller.awaitMessage("SIP/2.0 486", WAIT);
            assertNotNull(busy, "the call in progress was not finished");
            // well under the 90 s grace: the drain ended because the last call did, not because time ran out
            closer.join(Duration.ofSeconds(45).toMillis());
            assertFalse(closer.isAlive(), "shutdown did not finish after the last call ended");
        }
    }
}
