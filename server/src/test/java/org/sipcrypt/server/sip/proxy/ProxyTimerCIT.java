package org.sipcrypt.server.sip.proxy;

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

/**
 * Timer C (RFC 3261 §16.6 step 11, §16.8): a ringing branch that never answers is cancelled; a
 * branch that never responds at all ends as if it had answered 408.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProxyTimerCIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private static void register(SipSocket callee, String hp) throws Exception {
        callee.send(callee.request("REGISTER", "sip:" + hp, "bob", "bob@" + hp, "reg-c", 1,
                callee.contact("bob") + "Expires: 600\r\n"));
        String ok = callee.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(ok);
        assertTrue(ok.startsWith("SIP/2.0 200"), ok);
    }

    @Test
    void ringingBranchThatNeverAnswersIsCancelled() throws Exception {
        try (TestServer server = TestServer.start(dir, "proxy.timerC", "1s");
             SipSocket callee = SipSocket.udp(server.address(Transport.UDP));
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            register(callee, hp);
            caller.send(caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, "ring-forever", 1,
                    caller.contact("alice")));
            String invite = callee.awaitMessage("INVITE ", WAIT);
            assertNotNull(invite);
            callee.send(SipSocket.response(invite, "180 Ringing"));

            String cancel = callee.awaitMessage("CANCEL ", WAIT);
            assertNotNull(cancel, "Timer C did not cancel the ringing branch");
            callee.send(SipSocket.response(cancel, "200 OK"));
            callee.send(SipSocket.response(invite, "487 Request Terminated"));
            String terminated = caller.awaitMessage("SIP/2.0 487", WAIT);
            assertNotNull(terminated, "the caller did not get the branch's 487");
        }
    }

    @Test
    void silentBranchEndsAsIfItAnswered408() throws Exception {
        try (TestServer server = TestServer.start(dir, "proxy.timerC", "1s");
             SipSocket callee = SipSocket.udp(server.address(Transport.UDP));
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            register(callee, hp);
            caller.send(caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, "silent", 1,
                    caller.contact("alice")));
            assertNotNull(callee.awaitMessage("INVITE ", WAIT));
            String timeout = caller.awaitMessage("SIP/2.0 408", WAIT);
            assertNotNull(timeout, "the caller did not get 408 after Timer C");
        }
    }
}
