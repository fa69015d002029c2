package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
    private TestServer server;
    private SipSocket callee;
    private SipSocket caller;
    private String hp;

    /** The server with a Timer C of one second, bob registered at the callee socket. */
    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(dir, "proxy.timerC", "1s");
        callee = SipSocket.udp(server.address(Transport.UDP));
        caller = SipSocket.udp(server.address(Transport.UDP));
        hp = server.hostPort(Transport.UDP);
        callee.send(callee.request("REGISTER", "sip:" + hp, "bob", "bob@" + hp, "reg-c", 1,
                callee.contact("bob") + "Expires: 600\r\n"));
        String ok = callee.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(ok);
        assertTrue(ok.startsWith("SIP/2.0 200"), ok);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {caller, callee, server}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** alice's INVITE to bob; returns it as it reached the callee. */
    private String callBob(String callId) throws Exception {
        caller.send(caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, callId, 1, caller.contact("alice")));
        String invite = callee.awaitMessage("INVITE ", WAIT);
        assertNotNull(invite);
        return invite;
    }

    @Test
    void ringingBranchThatNeverAnswersIsCancelled() throws Exception {
        String invite = callBob("ring-forever");
        callee.send(SipSocket.response(invite, "180 Ringing"));

        String cancel = callee.awaitMessage("CANCEL ", WAIT);
        assertNotNull(cancel, "Timer C did not cancel the ringing branch");
        callee.send(SipSocket.response(cancel, "200 OK"));
        callee.send(SipSocket.response(invite, "487 Request Terminated"));
        String terminated = caller.awaitMessage("SIP/2.0 487", WAIT);
        assertNotNull(terminated, "the caller did not get the branch's 487");
    }

    @Test
    void silentBranchEndsAsIfItAnswered408() throws Exception {
        callBob("silent");
        String timeout = caller.awaitMessage("SIP/2.0 408", WAIT);
        assertNotNull(timeout, "the caller did not get 408 after Timer C");
    }
}
