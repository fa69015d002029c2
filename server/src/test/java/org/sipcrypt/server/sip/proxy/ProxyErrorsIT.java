package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.address.SipURI;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.BobAndAlice;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** Requests the proxy answers itself (RFC 3261 §16.3, §16.5) and a call cancelled while ringing (§16.10). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProxyErrorsIT {

    @TempDir
    Path dir;

    @Test
    void inviteForUnknownUserIsAnswered404() throws Exception {
        try (TestServer server = TestServer.start(dir);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            TestUa.Call call = alice.invite(alice.uri("nobody", "127.0.0.1"), server.address(Transport.UDP));

            assertEquals(Response.NOT_FOUND, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
        }
    }

    @Test
    void inviteForUserWhoseBindingsWereRemovedIsAnswered480() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.TCP, Transport.TCP)) {
            Request removeAll = u.bob().newRegister(u.server().address(Transport.TCP));
            removeAll.addHeader(u.bob().headers().createContactHeader());
            removeAll.addHeader(u.bob().headers().createExpiresHeader(0));
            assertEquals(Response.OK, u.bob().send(removeAll).awaitFinal(TestUa.TIMEOUT).getStatusCode());

            TestUa.Call call = u.alice().invite(u.bob().aor(), u.server().address(Transport.TCP));

            assertEquals(Response.TEMPORARILY_UNAVAILABLE, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(List.of(), u.bob().received(Request.INVITE));
        }
    }

    @Test
    void busyCalleesAnswerReachesTheCaller() throws Exception {
        try (TestServer server = TestServer.start(dir);
             TestUa bob = TestUa.start("bob", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.TCP)) {
            bob.answer(Request.INVITE, TestUa.Answer.status(Response.BUSY_HERE));
            bob.registerAt(server.address(Transport.UDP));

            TestUa.Call call = alice.invite(bob.aor(), server.address(Transport.TCP));

            assertEquals(Response.BUSY_HERE, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(1, bob.received(Request.INVITE).size());
        }
    }

    @Test
    void contactThatRefusesTcpConnectionsEndsTheCallPromptly() throws Exception {
        // bob registers over UDP, with no NAT between, a Contact over TCP: the proxy dials it (a
        // binding registered over TCP would be reached on its registration connection instead)
        try (TestServer server = TestServer.start(dir);
             TestUa bob = TestUa.start("bob", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            SipURI dead = bob.uri("bob", "127.0.0.1");
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                dead.setPort(probe.getLocalPort());
            }
            dead.setTransportParam("tcp");
            assertEquals(Response.OK, bob.register(server.address(Transport.UDP), 600, dead).getStatusCode());

            TestUa.Call call = alice.invite(bob.aor(), server.address(Transport.UDP));

            Response r = call.invite().awaitFinal(TestUa.TIMEOUT);
            assertEquals(5, r.getStatusCode() / 100, "a refused connection is a server error upstream: " + r);
        }
    }

    @Test
    void requestWithMaxForwardsZeroIsAnswered483AndNotForwarded() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.UDP, Transport.UDP)) {
            Request invite = u.alice().newRequest(Request.INVITE, u.bob().aor(), u.server().address(Transport.UDP));
            ((MaxForwardsHeader) invite.getHeader(MaxForwardsHeader.NAME)).setMaxForwards(0);

            Response r = u.alice().send(invite).awaitFinal(TestUa.TIMEOUT);

            assertEquals(Response.TOO_MANY_HOPS, r.getStatusCode());
            assertEquals(List.of(), u.bob().received(Request.INVITE));
        }
    }

    @Test
    void requestRoutedBackToTheProxyIsAnswered482() throws Exception {
        try (TestServer server = startRoutedToItself();
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            Request message = alice.newRequest(Request.MESSAGE, alice.uri("carol", "elsewhere.invalid"),
                    server.address(Transport.UDP));

            Response r = alice.send(message).awaitFinal(TestUa.TIMEOUT);

            assertEquals(Response.LOOP_DETECTED, r.getStatusCode());
        }
    }

    /** A server whose default route is its own UDP listener: anything not ours comes straight back. */
    private TestServer startRoutedToItself() throws Exception {
        for (int attempt = 1; ; attempt++) {
            int port = freeUdpPort();
            try {
                return TestServer.start(dir, "listen", "udp:127.0.0.1:" + port, "listen", "tcp:127.0.0.1:0",
                        "defaultRoute", "127.0.0.1:" + port + ";transport=udp");
            } catch (IOException e) {
                // the port was taken between probing and binding
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void cancelOfRingingCallEndsItWith487OnBothSides() throws Exception {
        try (TestServer server = TestServer.start(dir);
             TestUa bob = TestUa.start("bob", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            bob.answer(Request.INVITE, TestUa.Answer.ringForever());
            bob.registerAt(server.address(Transport.UDP));
            TestUa.Call call = alice.invite(bob.aor(), server.address(Transport.UDP));
            call.invite().await(Response.RINGING, TestUa.TIMEOUT);

            SipExchange cancel = call.cancel();

            assertEquals(Response.OK, cancel.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(Response.REQUEST_TERMINATED, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
            bob.awaitRequest(Request.CANCEL, TestUa.TIMEOUT);
            assertEquals(List.of(), bob.errors());
        }
    }
}
