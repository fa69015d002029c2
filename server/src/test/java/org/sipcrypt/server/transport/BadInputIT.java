package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.ServerPerTest;
import org.sipcrypt.server.testing.SipSocket;

/** Malformed input over UDP and TCP: answered with 400/505 when possible, else dropped and counted. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadInputIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final ServerPerTest server = new ServerPerTest("sip.maxMessageBytes", "4096");

    /** An OPTIONS to the server from this socket, with extra header lines. */
    private String options(SipSocket s, String callId, String extra) {
        String hp = server.hostPort(s.transport().equals("UDP") ? Transport.UDP : Transport.TCP);
        return s.request("OPTIONS", "sip:" + hp, "a", hp, callId, 1, extra);
    }

    private double counter(String name, String tag, String value) {
        return server.server().transportCounters().value(name, tag, value);
    }

    /** Counters are bumped on the server's threads: wait for the expected value rather than racing it. */
    private void assertCounter(double expected, String name, String tag, String value) {
        Await.until(() -> counter(name, tag, value) == expected, WAIT,
                () -> name + "{" + tag + "=" + value + "} = " + counter(name, tag, value) + ", expected " + expected);
    }

    private double dropped() {
        return counter("sip.datagrams.dropped", "reason", "unparsable")
                + counter("sip.datagrams.dropped", "reason", "missing_header")
                + counter("sip.datagrams.dropped", "reason", "bad_header");
    }

    /**
     * The next message on {@code s} is the 200 to the request with {@code callId}: whatever was sent before it got
     * no answer (an answer to it would have come first), without waiting out a window to prove an absence.
     */
    private static void assertNextAnswerIs200To(SipSocket s, String callId) throws Exception {
        String r = s.receive(WAIT);
        assertNotNull(r, "no answer to " + callId);
        assertTrue(r.startsWith("SIP/2.0 200") && r.contains(callId), r);
    }

    @Test
    void requestWithUnparsableCseqGets400NamingTheHeader() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String r = s.exchange(options(s, "bad-cseq", "").replace("CSeq: 1 OPTIONS", "CSeq: abc OPTIONS"),
                    "SIP/2.0 400 Bad CSeq header", WAIT);
            assertTrue(r.contains("Call-ID: bad-cseq"), r);
            assertCounter(1.0, "sip.requests.rejected", "reason", "bad_header");
        }
    }

    @Test
    void cseqMethodMismatchGets400() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            s.exchange(options(s, "mismatch", "").replace("CSeq: 1 OPTIONS", "CSeq: 1 INVITE"),
                    "SIP/2.0 400 CSeq method does not match request method", WAIT);
        }
    }

    @Test
    void otherSipVersionGets505() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            s.exchange(options(s, "v3", "").replace(" SIP/2.0\r\n", " SIP/3.0\r\n"), "SIP/2.0 505", WAIT);
        }
    }

    @Test
    void garbageDatagramIsDroppedAndCountedAndTheServerStillAnswers() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            s.send("hello, this is not SIP\r\n\r\n");
            s.send("OPTIONS sip:x SIP/2.0\r\nFrom: nothing else\r\n\r\n");
            // a first byte of 0x00-0x03 is STUN's (RFC 7983), never SIP's: dropped before the SIP layer
            s.send("\u0001\u0002 hello, this is not SIP either\r\n\r\n");
            Await.until(() -> dropped() == 2.0, WAIT, () -> "dropped unanswerable datagrams: " + dropped());
            assertCounter(1.0, "transport.keepalives.dropped", "reason", "stun_no_cookie");
            s.send(options(s, "after-garbage", ""));
            assertNextAnswerIs200To(s, "after-garbage");
            assertEquals(2.0, dropped());
        }
    }

    @Test
    void badContentLengthClosesOnlyThatConnection() throws Exception {
        try (SipSocket bad = SipSocket.tcp(server.address(Transport.TCP));
             SipSocket good = SipSocket.tcp(server.address(Transport.TCP))) {
            bad.send("OPTIONS sip:x SIP/2.0\r\nContent-Length: twelve\r\n\r\n");
            assertTrue(bad.closedByPeer(WAIT), "the bad connection must be closed");
            good.exchange(options(good, "still-open", ""), "SIP/2.0 200", WAIT);
            assertCounter(1.0, "transport.connections.closed", "reason", "bad_content_length");
        }
    }

    @Test
    void missingContentLengthOnAStreamClosesTheConnection() throws Exception {
        try (SipSocket s = SipSocket.tcp(server.address(Transport.TCP))) {
            s.send("OPTIONS sip:x SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:1\r\n\r\n");
            assertTrue(s.closedByPeer(WAIT));
            assertCounter(1.0, "transport.connections.closed", "reason", "missing_content_length");
        }
    }

    @Test
    void completeRequestFollowedByBrokenFramingIsAnsweredBeforeTheConnectionCloses() throws Exception {
        try (SipSocket s = SipSocket.tcp(server.address(Transport.TCP))) {
            // one write, so one read on the server: a whole OPTIONS, then bytes that do not frame
            s.exchange(options(s, "then-garbage", "") + "NOT SIP AT ALL\r\nX: y\r\n\r\n", "SIP/2.0 200", WAIT);
            assertTrue(s.closedByPeer(WAIT), "closed for the broken framing after answering");
            assertCounter(1.0, "transport.connections.closed", "reason", "missing_content_length");
        }
    }

    @Test
    void registerFollowedByBrokenFramingIsAnsweredAfterTheDatabaseBeforeTheConnectionCloses() throws Exception {
        try (SipSocket s = SipSocket.tcp(server.address(Transport.TCP))) {
            String hp = server.hostPort(Transport.TCP);
            s.exchange(s.request("REGISTER", "sip:" + hp, "gina", "gina@127.0.0.1", "reg-then-garbage", 1,
                    s.contact("gina") + "Expires: 600\r\n") + "GARBAGE\r\n\r\n", "SIP/2.0 200", WAIT);
            assertTrue(s.closedByPeer(WAIT));
        }
    }

    @Test
    void oversizeMessageClosesOnlyThatConnection() throws Exception {
        try (SipSocket big = SipSocket.tcp(server.address(Transport.TCP))) {
            big.send(options(big, "big", "X-Pad: " + "x".repeat(5000) + "\r\n"));
            assertTrue(big.closedByPeer(WAIT));
            assertCounter(1.0, "transport.connections.closed", "reason", "oversize");
        }
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            s.send(options(s, "big-udp", "X-Pad: " + "x".repeat(5000) + "\r\n"));
            assertCounter(1.0, "sip.datagrams.dropped", "reason", "oversize");
            s.send(options(s, "after-big-udp", ""));
            assertNextAnswerIs200To(s, "after-big-udp");
        }
    }

    @Test
    void crlfPingOnAStreamIsAnsweredWithAPong() throws Exception {
        try (SipSocket s = SipSocket.tcp(server.address(Transport.TCP))) {
            s.send("\r\n\r\n");
            assertEquals("\r\n", s.receiveBytes(2, WAIT));
            s.exchange(options(s, "after-ping", ""), "SIP/2.0 200", WAIT);
            s.send(options(s, "after-pong", ""));
            assertNextAnswerIs200To(s, "after-pong");
        }
    }

    @Test
    void malformedRequestOverTcpGets400AndTheConnectionStays() throws Exception {
        try (SipSocket s = SipSocket.tcp(server.address(Transport.TCP))) {
            s.exchange(options(s, "bad-from", "").replace("From: <sip:a@127.0.0.1>;tag=a-tag", "From: <<<>>"),
                    "SIP/2.0 400 Bad From header", WAIT);
            s.exchange(options(s, "after-400", ""), "SIP/2.0 200", WAIT);
        }
    }

    @Test
    void datagramShorterThanItsContentLengthGets400() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            s.exchange(options(s, "short-body", "Content-Type: text/plain\r\n")
                    .replace("Content-Length: 0\r\n\r\n", "Content-Length: 50\r\n\r\nonly ten b"),
                    "SIP/2.0 400 Content-Length exceeds datagram", WAIT);
        }
    }
}
