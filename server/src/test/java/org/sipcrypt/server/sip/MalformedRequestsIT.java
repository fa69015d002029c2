package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.ServerPerTest;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.transport.Transport;

/**
 * Requests RFC 4475 asks a server to refuse, and values that used to poison state or look like
 * outages: each is answered 400 with a reason (or dropped and counted when it is a response), and
 * nothing reaches the user agent behind the proxy: a valid request sent after the bad one along
 * the same path is the first to arrive there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MalformedRequestsIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();
    SipSocket sink;
    SipSocket caller;
    String hp;

    @BeforeEach
    void start() throws Exception {
        hp = server.hostPort(Transport.UDP);
        sink = SipSocket.udp(server.address(Transport.UDP));
        caller = SipSocket.udp(server.address(Transport.UDP));
        // bob is registered at the sink socket
        String ok = register(sink, "bob", "sink-reg", 1, sink.contact("bob"));
        assertTrue(ok.startsWith("SIP/2.0 200"), ok);
    }

    @AfterEach
    void stop() throws Exception {
        caller.close();
        sink.close();
    }

    private String register(SipSocket s, String user, String callId, int cseq, String extra) throws Exception {
        s.send(s.request("REGISTER", "sip:" + hp, user, user + "@127.0.0.1", callId, cseq,
                extra + "Expires: 600\r\n"));
        String r = s.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(r, "no answer to REGISTER " + callId);
        return r;
    }

    private String inviteBob(String callId) {
        return caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@127.0.0.1", callId, 1, caller.contact("alice"));
    }

    /**
     * Sends a valid INVITE to bob with {@code callId} and CSeq 2, marked by a Subject, and expects it to be the
     * first INVITE reaching the sink. The server hands the messages of one Call-ID to one worker lane
     * in arrival order and relays to bob through its one UDP socket, and the bad request was answered
     * before the marker left: had the bad request been relayed, it would have arrived first.
     */
    private void assertNothingReachedTheSink(String callId) throws Exception {
        caller.send(caller.request("INVITE", "sip:bob@" + hp, "alice", "bob@127.0.0.1", callId, 2,
                caller.contact("alice") + "Subject: marker\r\n"));
        String first = sink.awaitMessage("INVITE", WAIT);
        assertNotNull(first, "the marker INVITE did not reach bob");
        assertTrue(first.contains("Subject: marker"), "the request reached bob before the marker: " + first);
    }

    /**
     * Sends {@code request} (an INVITE to bob with {@code callId}), expects a 400 whose reason phrase
     * starts with {@code reason}, and then that nothing reached bob.
     */
    private void assertAnswered400AndNotProxied(String callId, String request, String reason) throws Exception {
        caller.send(request);
        String r = caller.awaitMessage("SIP/2.0 4", WAIT);
        assertNotNull(r);
        assertTrue(r.startsWith("SIP/2.0 400 " + reason), r);
        assertNothingReachedTheSink(callId);
    }

    private double counter(String name, String tag, String value) {
        return server.server().transportCounters().value(name, tag, value);
    }

    @ParameterizedTest(name = "second {0}")
    @CsvSource(delimiter = '|', value = {
        "Call-ID      | Call-ID: other-call-id",
        "CSeq         | CSeq: 2 INVITE",
        "From         | From: <sip:mallory@127.0.0.1>;tag=m",
        "To           | To: <sip:carol@127.0.0.1>",
        "Max-Forwards | Max-Forwards: 69",
        "Call-ID      | i: compact-form-call-id",
    })
    void requestWithADuplicatedSingleInstanceHeaderGets400AndIsNotProxied(String header, String line)
            throws Exception {
        String callId = "dup-" + header.hashCode();
        assertAnswered400AndNotProxied(callId,
                inviteBob(callId).replace("Content-Length: 0\r\n", line + "\r\nContent-Length: 0\r\n"),
                "Duplicate " + header + " header");
    }

    @Test
    void twoDifferentContentLengthsGet400AndAreNotProxied() throws Exception {
        assertAnswered400AndNotProxied("two-lengths", inviteBob("two-lengths").replace("Content-Length: 0\r\n\r\n",
                "Content-Type: text/plain\r\nContent-Length: 4\r\nl: 0\r\n\r\nabcd"),
                "Duplicate Content-Length header");
    }

    @Test
    void datagramShorterThanItsContentLengthGets400AndIsNotProxied() throws Exception {
        assertAnswered400AndNotProxied("short",
                inviteBob("short").replace("Content-Length: 0\r\n\r\n", "Content-Length: 120\r\n\r\n"),
                "Content-Length exceeds datagram");
    }

    @Test
    void contactWithQAboveOneGets400AndTheAddressOfRecordKeepsWorking() throws Exception {
        String r = register(caller, "carol", "q-five", 1, "Contact: <sip:carol@127.0.0.1:5999>;q=5\r\n");
        assertTrue(r.startsWith("SIP/2.0 400 Contact q value 5 not between 0 and 1"), r);
        assertEquals(1.0, counter("sip.requests.rejected", "reason", "bad_q"));

        String next = register(caller, "carol", "q-five", 2, "Contact: <sip:carol@127.0.0.1:5999>;q=0.5\r\n");
        assertTrue(next.startsWith("SIP/2.0 200"), next);
        assertTrue(next.contains("q=0.5"), next);
    }

    @Test
    void longLegalCallIdIsStoredAndOneBeyondTheBoundGets400() throws Exception {
        String longId = "c".repeat(300) + ".example.org";
        String r = register(caller, "dave", longId, 1, "Contact: <sip:dave@127.0.0.1:5999>\r\n");
        assertTrue(r.startsWith("SIP/2.0 200"), r);

        String tooLong = register(caller, "dave", "d".repeat(1100), 1, "Contact: <sip:dave@127.0.0.1:5998>\r\n");
        assertTrue(tooLong.startsWith("SIP/2.0 400 Call-ID longer than 1024 characters"), tooLong);
    }

    @Test
    void contactBeyondTheBoundGets400NotServiceUnavailable() throws Exception {
        String contact = "Contact: <sip:erin@127.0.0.1:5999;x=" + "p".repeat(2100) + ">\r\n";
        String r = register(caller, "erin", "long-contact", 1, contact);
        assertTrue(r.startsWith("SIP/2.0 400 Contact URI longer than 1024 characters"), r);
    }

    @Test
    void registerWithUnknownToSchemeGets400() throws Exception {
        caller.send(caller.request("REGISTER", "sip:" + hp, "frank", "x", "unknown-scheme", 1,
                caller.contact("frank")).replace("To: <sip:x>", "To: <nosuchscheme:frank@127.0.0.1>"));
        String r = caller.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(r);
        assertTrue(r.startsWith("SIP/2.0 400"), r);
    }

    @Test
    void responseWithStatusBelow100IsDroppedAndCounted() throws Exception {
        caller.send(inviteBob("low-status"));
        String invite = sink.awaitMessage("INVITE", WAIT);
        assertNotNull(invite);
        sink.send(SipSocket.response(invite, "099 Too Low"));
        Await.until(() -> counter("sip.datagrams.dropped", "reason", "bad_status") == 1.0, WAIT,
                () -> "sip.datagrams.dropped{reason=bad_status} = " + counter("sip.datagrams.dropped", "reason", "bad_status"));

        // the 486 takes the 099's path (the same transaction, lane and socket): whatever came before it was relayed first
        sink.send(SipSocket.response(invite, "486 Busy Here"));
        List<String> statusLines = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (statusLines.stream().noneMatch(l -> l.startsWith("SIP/2.0 486")) && System.nanoTime() < deadline) {
            String m = caller.receive(Duration.ofMillis(300));
            if (m != null && m.startsWith("SIP/2.0 ")) {
                statusLines.add(m.substring(0, m.indexOf("\r\n")));
            }
        }
        assertTrue(statusLines.stream().anyMatch(l -> l.startsWith("SIP/2.0 486")),
                "the call goes on after the bad response: " + statusLines);
        assertTrue(statusLines.stream().noneMatch(l -> l.startsWith("SIP/2.0 099")), "the 099 was forwarded: "
                + statusLines);
    }
}
