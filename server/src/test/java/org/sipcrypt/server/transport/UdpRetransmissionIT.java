package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;

/**
 * Retransmitted requests over UDP after their transaction completed (RFC 3261 §17.2.2, RFC 6026
 * §7.1): the server ends its transactions once answered and answers retransmissions from the
 * response bytes it kept, or absorbs a retransmitted INVITE after its 2xx, without handling the
 * request again.
 */
@Timeout(60)
class UdpRetransmissionIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private static double received(TestServer server, String method) {
        return server.server().registry().find("sip.requests.received").tag("method", method).counter() == null ? 0
                : server.server().registry().find("sip.requests.received").tag("method", method).counter().count();
    }

    /** Alice's REGISTER to the server at {@code hp}, for 600 s. */
    private static String aliceRegister(SipSocket ua, String hp, String callId) {
        return ua.request("REGISTER", "sip:" + hp, "alice", "alice@" + hp, callId, 1, ua.contact("alice") + "Expires: 600\r\n");
    }

    /** Sends {@code register} twice: the copy gets the very same response, and the registrar sees it once. */
    private static void registerTwiceAnsweredOnce(TestServer server, SipSocket ua, String register) throws Exception {
        ua.send(register);
        String first = ua.awaitMessage("SIP/2.0 200", WAIT);
        assertNotNull(first, "REGISTER answered");
        ua.send(register);
        assertEquals(first, ua.awaitMessage("SIP/2.0 ", WAIT), "the retransmission gets the very same response");
        assertEquals(1.0, server.server().transportCounters().value("sip.retransmissions.absorbed"));
        assertEquals(1.0, received(server, "register"), "the registrar saw the REGISTER once");
    }

    @Test
    void retransmittedRegisterGetsTheSameFinalResponseWithoutReachingTheRegistrar() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket ua = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            String register = aliceRegister(ua, hp, "retx-reg");
            registerTwiceAnsweredOnce(server, ua, register);

            // the same branch from another sent-by is another transaction (RFC 3261 §17.2.3)
            String otherSentBy = register.replace("Via: SIP/2.0/UDP " + ua.localHost() + ":" + ua.localPort(),
                    "Via: SIP/2.0/UDP " + ua.localHost() + ":" + (ua.localPort() == 1 ? 2 : 1));
            ua.send(otherSentBy.replace("CSeq: 1 REGISTER", "CSeq: 2 REGISTER"));
            assertNotNull(ua.awaitMessage("SIP/2.0 200", WAIT), "answered as a new request");
            Await.until(() -> received(server, "register") == 2.0, WAIT, () -> "second REGISTER handled");
        }
    }

    @Test
    void aRetransmissionWhoseViaTheByteReaderLeavesToTheParseIsAnsweredAllTheSame() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket ua = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            // LWS inside the sent-protocol (RFC 3261 §25.1 allows it): only the parsed Via gives the key
            String register = aliceRegister(ua, hp, "retx-lws").replace("Via: SIP/2.0/UDP ", "Via: SIP / 2.0 / UDP ");
            registerTwiceAnsweredOnce(server, ua, register);
        }
    }

    @Test
    void retransmittedInviteAfterItsTwoHundredIsAbsorbedAndRetransmittedByeAnsweredFromMemory() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket callee = SipSocket.udp(server.address(Transport.UDP));
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            callee.send(callee.request("REGISTER", "sip:" + hp, "bob", "bob@" + hp, "retx-bob", 1,
                    callee.contact("bob") + "Expires: 600\r\n"));
            assertNotNull(callee.awaitMessage("SIP/2.0 200", WAIT), "bob registered");

            String invite = caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@" + hp, "retx-call", 1,
                    caller.contact("alice"));
            caller.send(invite);
            String atBob = callee.awaitMessage("INVITE ", WAIT);
            assertNotNull(atBob, "INVITE forwarded");
            String ok = SipSocket.response(atBob, "200 OK").replace("Content-Length: 0\r\n",
                    callee.contact("bob") + "Content-Length: 0\r\n");
            callee.send(ok);
            String answered = caller.awaitMessage("SIP/2.0 200", WAIT);
            assertNotNull(answered, "the 200 reaches the caller");
            assertEquals(server.fastPath() ? 1.0 : 0.0, server.server().transportCounters().value("sip.responses.relayed_early"),
                    "the 200 went upstream from its bytes (with the fast path on)");

            caller.send(invite);
            // same Call-ID, so handled in order after the retransmission: the next thing bob sees
            // tells whether the INVITE was forwarded again
            String to = "To: " + answered.lines().filter(l -> l.startsWith("To:")).findFirst().orElseThrow().substring(3).trim();
            String bye = caller.request("BYE", "sip:bob@" + callee.localHost() + ":" + callee.localPort(), "alice",
                    "bob@" + hp, "retx-call", 2, "Route: <sip:" + hp + ";lr>\r\n")
                    .replace("To: <sip:bob@" + hp + ">", to);
            caller.send(bye);
            String next = callee.awaitMessage("", WAIT);
            assertNotNull(next);
            assertTrue(next.startsWith("BYE "), "the retransmitted INVITE was absorbed, not forwarded: " + next);
            callee.send(SipSocket.response(next, "200 OK"));
            String byeOk = caller.awaitMessage("SIP/2.0 200", WAIT);
            assertNotNull(byeOk);

            caller.send(bye);
            String again = caller.awaitMessage("SIP/2.0 ", WAIT);
            assertEquals(byeOk, again, "the retransmitted BYE gets the kept 200");
            assertEquals(2.0, server.server().transportCounters().value("sip.retransmissions.absorbed"));
            assertEquals(1.0, received(server, "bye"), "the proxy saw the BYE once");
        }
    }
}
