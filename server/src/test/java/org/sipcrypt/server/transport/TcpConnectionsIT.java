package org.sipcrypt.server.transport;

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

/** TCP connection life cycle: reuse by peer address, idle timeout, the connection cap. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TcpConnectionsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private static double counter(TestServer server, String name, String tag, String value) {
        return server.server().transportCounters().value(name, tag, value);
    }

    @Test
    void requestToARegisteredPeerReusesTheConnectionItOpened() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            String hp = server.hostPort(Transport.TCP);
            try (SipSocket callee = SipSocket.tcp(server.address(Transport.TCP));
                 SipSocket caller = SipSocket.tcp(server.address(Transport.TCP))) {
                callee.exchange(callee.request("REGISTER", "sip:" + hp, "bob", "bob@" + hp, "reg-tcp", 1,
                        callee.contact("bob")), "SIP/2.0 200", WAIT);
                caller.send(caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, "inv-tcp", 1, caller.contact("alice")));
                String invite = callee.awaitMessage("INVITE ", WAIT);
                assertNotNull(invite, "the INVITE did not come over the callee's own connection");
                assertTrue(counter(server, "transport.connections.opened", "direction", "outbound") == 0,
                        "the proxy opened a new connection instead of reusing the callee's");
            }
        }
    }

    @Test
    void idleConnectionIsClosedByItsTimer() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.idleTimeout", "300ms")) {
            try (SipSocket s = SipSocket.tcp(server.address(Transport.TCP))) {
                assertTrue(s.closedByPeer(WAIT));
                Await.until(() -> counter(server, "transport.connections.closed", "reason", "idle") == 1, WAIT,
                        () -> server.server().statsLine());
            }
        }
    }

    @Test
    void connectionsBeyondTheCapAreClosedAndCounted() throws Exception {
        try (TestServer server = TestServer.start(dir, "tcp.maxConnections", "2")) {
            try (SipSocket a = SipSocket.tcp(server.address(Transport.TCP));
                 SipSocket b = SipSocket.tcp(server.address(Transport.TCP))) {
                Await.until(() -> server.server().transportCounters().openConnections().get() == 2, WAIT,
                        () -> server.server().statsLine());
                try (SipSocket c = SipSocket.tcp(server.address(Transport.TCP))) {
                    assertTrue(c.closedByPeer(WAIT), "the third connection must be closed");
                }
                for (SipSocket open : new SipSocket[] {a, b}) {
                    String hp = server.hostPort(Transport.TCP);
                    String callId = "still-open-" + open.localPort();
                    open.send(open.request("OPTIONS", "sip:" + hp, "a", hp, callId, 1, ""));
                    String r = open.receive(WAIT);
                    assertNotNull(r, "the first two connections must stay open and answered");
                    assertTrue(r.startsWith("SIP/2.0 200") && r.contains(callId), r);
                }
                Await.until(() -> counter(server, "transport.connections.closed", "reason", "cap") == 1, WAIT,
                        () -> server.server().statsLine());
            }
        }
    }
}
