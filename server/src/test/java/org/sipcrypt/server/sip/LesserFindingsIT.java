package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.sipcrypt.server.testing.ServerPerTest;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.transport.Transport;

/**
 * Malformed or unroutable input against the real server: each once made the server drop a message
 * with an exception ({@code stack_error}) or leave it unanswered.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LesserFindingsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();

    private double count(String name, String reason) {
        Counter c = server.server().registry().find(name).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    private double stackErrors() {
        return server.server().transportCounters().value("sip.messages.dropped", "reason", "stack_error");
    }

    /** The next message on {@code s} is the 200 to an OPTIONS sent now: whatever came before got no answer first. */
    private void assertNextAnswerIsTheMarkers(SipSocket s, String callId, int cseq) throws Exception {
        String hp = server.hostPort(Transport.UDP);
        s.send(s.request("OPTIONS", "sip:" + hp, "a", hp, callId, cseq, ""));
        String r = s.receive(WAIT);
        assertNotNull(r, "no answer to the marker " + callId);
        assertTrue(r.startsWith("SIP/2.0 200") && r.contains(callId), r);
    }

    @Test
    void inDialogAckToAnOutOfRangeAddressIsDroppedWithoutAnException() throws Exception {
        // auth off, the default: an in-dialog ACK goes on without proving its dialog (with auth on, it
        // must prove a live call first, so these would be dropped as outside any dialog)
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            // one Call-ID for all: one worker lane, in order, so the marker's answer comes after them
            int cseq = 1;
            for (String host : new String[] {"4294967295.0.0.2", "256.0.0.1", "127.0.0.01.5"}) {
                String ack = s.request("ACK", "sip:victim@" + host, "a", "victim@" + host, "bad-ack", cseq++, "")
                        .replace("To: <sip:victim@" + host + ">", "To: <sip:victim@" + host + ">;tag=callee");
                s.send(ack);
            }
            String[][] more = {
                {"tel:+15551234", ""},
                {"urn:service:sos", ""},
                {"sip:victim@127.0.0.2", "Route: <sip:4294967295.0.0.2;lr>\r\n"},
                {"sip:victim@127.0.0.2", "Route: <tel:+1555>\r\n"},
                {"sip:victim@127.0.0.2;maddr=4294967295.0.0.2", ""},
            };
            for (String[] m : more) {
                String ack = s.request("ACK", m[0], "a", "victim@127.0.0.2", "bad-ack", cseq++, m[1])
                        .replace("To: <sip:victim@127.0.0.2>", "To: <sip:victim@127.0.0.2>;tag=callee");
                s.send(ack);
            }
            assertNextAnswerIsTheMarkers(s, "bad-ack", cseq);
            assertEquals(0.0, stackErrors());
            // each dropped before the stack tried to send it (by DNS, or failing on a non-SIP URI)
            assertEquals(8.0, count("sip.requests.dropped", "ack_bad_target"));
            assertEquals(0.0, count("sip.app.errors", "ack_forward"));
        }
    }


    @Test
    void inviteWhoseViaNamesATransportWithoutListenerGets400() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            for (String transport : new String[] {"SCTP", "TLS"}) {
                String invite = s.request("INVITE", "sip:bob@127.0.0.2", "a", "bob@127.0.0.2", "via-" + transport, 1,
                        "Contact: <sip:a@" + s.localHost() + ":" + s.localPort() + ">\r\n")
                        .replace("SIP/2.0/UDP", "SIP/2.0/" + transport);
                String r = s.exchange(invite, "SIP/2.0 400", WAIT);
                assertTrue(r.startsWith("SIP/2.0 400 Unsupported Transport In Via\r\n"), r);
            }
            assertNextAnswerIsTheMarkers(s, "via-marker", 1);
            assertEquals(0.0, stackErrors());
        }
    }

    @Test
    void notifyOutsideADialogToTheServerGets481() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            String notify = s.request("NOTIFY", "sip:" + hp, "a", hp, "unsolicited-notify", 1,
                    "Event: presence\r\nSubscription-State: active\r\n");
            String r = s.exchange(notify, "SIP/2.0 481", WAIT);
            assertTrue(r.contains("Call-ID: unsolicited-notify"), r);
        }
    }

    @Test
    @ServerPerTest.Settings({"auth", "true"})
    void notifyOutsideADialogToAnotherTargetIsChallengedLikeAnyRequest() throws Exception {
        try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String notify = s.request("NOTIFY", "sip:victim@127.0.0.2", "a", "victim@127.0.0.2", "foreign-notify", 1,
                    "Event: presence\r\nSubscription-State: active\r\n");
            s.exchange(notify, "SIP/2.0 407", WAIT);
        }
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void bareLfRequestWithABodyIsFramedAndAnswered(Transport transport) throws Exception {
        try (SipSocket s = transport == Transport.UDP ? SipSocket.udp(server.address(Transport.UDP))
                : SipSocket.tcp(server.address(Transport.TCP))) {
            String hp = server.hostPort(transport);
            String sdp = "v=0\no=a 1 1 IN IP4 127.0.0.1\ns=-\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 4000 RTP/AVP 0\n";
            // RFC 3261 §7.5: LF alone ends a line; the body is what follows the empty line
            String options = s.request("OPTIONS", "sip:" + hp, "a", hp, "bare-lf", 1,
                    "Content-Type: application/sdp\r\n").replace("Content-Length: 0\r\n\r\n",
                    "Content-Length: " + sdp.length() + "\r\n\r\n").replace("\r\n", "\n") + sdp;
            String r = s.exchange(options, "SIP/2.0 ", WAIT);
            assertTrue(r.startsWith("SIP/2.0 200"), r);
            assertEquals(0.0, server.server().transportCounters().value("sip.requests.rejected", "reason",
                    "content_length"));
            assertEquals(0.0, server.server().transportCounters().value("transport.connections.closed", "reason",
                    "oversize"));
        }
    }
}
