package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sip.SipFactory;
import javax.sip.message.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The dialogs a shutdown drain waits for: added by a 2xx, ended by a BYE from either side, bounded, expired. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EstablishedDialogsTest {

    private final AtomicLong now = new AtomicLong();
    private final MeterRegistry registry = new SimpleMeterRegistry();

    private EstablishedDialogs dialogs(int max, Duration lifetime) {
        return new EstablishedDialogs(max, lifetime, now::get, registry);
    }

    @Test
    void aByeFromEitherSideEndsTheDialog() throws Exception {
        EstablishedDialogs d = dialogs(10, Duration.ofHours(1));
        establish(d, "c1", "c2");
        assertEquals(2, d.size());
        assertEquals(2, registry.find("sip.dialogs.established").gauge().value());

        d.ended(bye("c1", "a", "b"));
        d.ended(bye("c2", "b", "a"));

        assertEquals(0, d.size());
    }

    @Test
    void theCallIdsOfDialogsForgottenWithoutTheirByeAreTold() throws Exception {
        java.util.List<String> told = new java.util.ArrayList<>();
        EstablishedDialogs d = new EstablishedDialogs(2, Duration.ofSeconds(10), now::get, registry, told::add);
        establish(d, "c1", "c2");
        d.ended(bye("c1", "a", "b"));
        establish(d, "c3", "c4");
        assertEquals(java.util.List.of("c2"), told, "c1 ended by its BYE; c2 forgotten for the bound");
        now.addAndGet(TimeUnit.SECONDS.toNanos(11));
        assertEquals(0, d.size());
        assertEquals(java.util.List.of("c2", "c3", "c4"), told);
    }

    @Test
    void keptCallsAreListedByFilterWithinTheLimitAndEndedHere() {
        EstablishedDialogs d = new EstablishedDialogs(10, Duration.ofHours(1), now::get, registry, null, true);
        for (String id : new String[] {"c1", "c2", "c3"}) {
            d.established(id, "a", "b", call(id));
        }
        d.established("c4", "a", "b");
        EstablishedDialogs.Listing all = d.calls(c -> true, 10);
        assertEquals(java.util.List.of("c1", "c2", "c3"), all.calls().stream().map(EstablishedCall::callId).toList(),
                "c4 was established without its details");
        assertFalse(all.truncated());
        EstablishedDialogs.Listing two = d.calls(c -> true, 2);
        assertEquals(2, two.calls().size());
        assertTrue(two.truncated());
        assertEquals(1, d.calls(c -> c.callId().equals("c2"), 10).calls().size());

        assertTrue(d.endedHere(call("c2")));
        assertFalse(d.endedHere(call("c2")), "ended once only");
        assertEquals(3, d.size());
        assertFalse(d.live("c2", "a", "b", null), "a dialog the proxy ended lets nothing through");
    }

    @Test
    void aReInvitesCSeqRaisesThatOfItsSenderOnly() {
        EstablishedDialogs d = new EstablishedDialogs(10, Duration.ofHours(1), now::get, registry, null, true);
        d.established("c1", "a", "b", call("c1"));
        d.seen("c1", "b", "a", 7);
        d.seen("c1", "a", "b", 3);
        EstablishedCall c = d.calls(x -> true, 1).calls().get(0);
        assertEquals(7, c.calleeCSeq());
        assertEquals(5, c.callerCSeq(), "a lower CSeq than the one seen changes nothing");
    }

    @Test
    void withoutKeepingCallsNoneIsListed() {
        EstablishedDialogs d = dialogs(10, Duration.ofHours(1));
        d.established("c1", "a", "b", call("c1"));
        assertEquals(1, d.size());
        assertEquals(0, d.calls(c -> true, 10).calls().size());
        assertFalse(d.keepsCalls());
    }

    private static EstablishedCall call(String callId) {
        return new EstablishedCall(callId, "<sip:alice@example.com>;tag=a", "<sip:bob@example.com>;tag=b", "a", "b",
                "sip:alice@example.com", "sip:bob@example.com", "<sip:alice@192.0.2.1>", "<sip:bob@192.0.2.2>",
                java.util.List.of(), 5, 0, java.time.Instant.EPOCH, java.time.Instant.EPOCH, "udp", "udp", null);
    }

    @Test
    void aByeOfAnotherDialogEndsNothing() throws Exception {
        EstablishedDialogs d = dialogs(10, Duration.ofHours(1));
        establish(d, "c1");
        d.ended(bye("c1", "a", "c"));
        assertEquals(1, d.size());
    }

    @Test
    void beyondTheBoundTheOldestIsForgotten() throws Exception {
        EstablishedDialogs d = dialogs(2, Duration.ofHours(1));
        establish(d, "c1", "c2", "c1", "c3");

        assertEquals(2, d.size());
        assertEquals(1, registry.find("sip.dialogs.forgotten").tag("reason", "full").counter().count());
        d.ended(bye("c1", "a", "b"));
        d.ended(bye("c3", "a", "b"));
        assertEquals(0, d.size(), "c2, the least recently refreshed, was the one forgotten");
    }

    @Test
    void aDialogWithoutRefreshIsForgottenAfterItsLifetime() throws Exception {
        EstablishedDialogs d = dialogs(10, Duration.ofMinutes(10));
        establish(d, "c1");
        now.addAndGet(Duration.ofMinutes(5).toNanos());
        establish(d, "c2");
        now.addAndGet(Duration.ofMinutes(5).toNanos());

        assertEquals(1, d.size());
        assertEquals(1, registry.find("sip.dialogs.forgotten").tag("reason", "expired").counter().count());
        establish(d, "c2");
        now.addAndGet(Duration.ofMinutes(9).toNanos());
        assertEquals(1, d.size(), "a re-INVITE's 2xx refreshed it");
    }

    @Test
    void aDialogIsLiveOnlyWithItsCallerAndCalleeInTheirPlaces() throws Exception {
        EstablishedDialogs d = dialogs(10, Duration.ofHours(1));
        establish(d, "c1");

        assertTrue(d.live("c1", "a", "b", null), "a's tag is the caller's");
        assertFalse(d.live("c1", "b", "a", null), "b is the callee, not the caller");
        assertFalse(d.live("c1", "a", "x", null), "another callee");
        assertFalse(d.live("c2", "a", "b", null), "another Call-ID");
        assertTrue(d.tracks("c1", "b", "a"));
        assertFalse(d.tracks("c1", "a", "x"));
    }

    @Test
    void trafficKeepsADialogLiveAndItsLifetimeWithoutTrafficEndsIt() throws Exception {
        EstablishedDialogs d = dialogs(10, Duration.ofMinutes(10));
        establish(d, "c1");
        now.addAndGet(Duration.ofMinutes(9).toNanos());
        assertTrue(d.live("c1", "a", "b", null));
        now.addAndGet(Duration.ofMinutes(9).toNanos());
        assertTrue(d.live("c1", "a", "b", null), "the request before refreshed it");

        now.addAndGet(Duration.ofMinutes(10).toNanos());
        assertFalse(d.live("c1", "a", "b", null));
        assertFalse(d.tracks("c1", "a", "b"));
    }

    @Test
    void afterItsByeADialogIsLiveOnlyToThatByesRetransmissionsAndAcksForTheirTime() throws Exception {
        EstablishedDialogs d = dialogs(10, Duration.ofHours(1));
        establish(d, "c1");
        assertTrue(d.live("c1", "a", "b", "z9hG4bK-bye 2 sip:b@127.0.0.1"));
        d.ended("c1", "a", "b");

        assertTrue(d.live("c1", "a", "b", "z9hG4bK-bye 2 sip:b@127.0.0.1"), "a retransmission of the BYE");
        assertFalse(d.live("c1", "a", "b", "z9hG4bK-bye 2 sip:victim@127.0.0.2"), "the same BYE to another target");
        assertFalse(d.live("c1", "a", "b", "z9hG4bK-other 3 sip:b@127.0.0.1"), "another BYE");
        assertFalse(d.live("c1", "a", "b", null), "anything but a BYE");
        assertTrue(d.liveForAck("c1", "a", "b"), "the ACK of the 2xx may come late");
        assertFalse(d.liveForAck("c1", "b", "a"), "but not with the tags swapped");
        assertEquals(0, d.size());
        now.addAndGet(EstablishedDialogs.BYE_RETRANSMISSIONS.toNanos());
        assertFalse(d.liveForAck("c1", "a", "b"));
        assertFalse(d.live("c1", "a", "b", "z9hG4bK-bye 2 sip:b@127.0.0.1"), "past Timer F");
        assertFalse(d.tracks("c1", "a", "b"));
    }

    /** Gives each call, in order, the 2xx of its INVITE from tag a to tag b. */
    private static void establish(EstablishedDialogs d, String... callIds) throws Exception {
        for (String callId : callIds) {
            d.established(SipFactory.getInstance().createMessageFactory().createResponse("SIP/2.0 200 OK\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-" + callId + "\r\n"
                    + dialogHeaders(callId, "a", "b", "1 INVITE")));
        }
    }

    private static Message bye(String callId, String fromTag, String toTag) throws Exception {
        return SipFactory.getInstance().createMessageFactory().createRequest("BYE sip:b@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-bye-" + callId + "\r\n"
                + "Max-Forwards: 70\r\n"
                + dialogHeaders(callId, fromTag, toTag, "2 BYE"));
    }

    private static String dialogHeaders(String callId, String fromTag, String toTag, String cseq) {
        return "From: <sip:a@127.0.0.1>;tag=" + fromTag + "\r\n"
                + "To: <sip:b@127.0.0.1>;tag=" + toTag + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }
}
