package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.SipFactory;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/** When a branch fails over to the next hop of its target, and when it does not (RFC 3261 §16.7, §16.10). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ProxyCallFailoverTest {

    private static final Failover THREE = Failover.of(List.of(hop(5061), hop(5062), hop(5063)));

    private static NextHop hop(int port) {
        return new NextHop("127.0.0.1", port, Transport.UDP, ConnectionPattern.PERSISTENT);
    }

    private static Request invite() throws Exception {
        return SipFactory.getInstance().createMessageFactory().createRequest(
                "INVITE sip:bob@example.org SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-test\r\n"
                        + "From: <sip:alice@example.com>;tag=a\r\nTo: <sip:bob@example.org>\r\n"
                        + "Call-ID: failover-test\r\nCSeq: 1 INVITE\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n");
    }

    /** A call with one branch to the first hop of {@code failover}, as {@code StatefulProxy.forward} makes it. */
    private static ProxyCall.Branch firstBranch(Failover failover) throws Exception {
        Request r = invite();
        ProxyCall call = new ProxyCall(null, r, "failover-test");
        ProxyCall.Branch b = call.addBranch((Request) r.clone());
        b.target = Target.through(failover);
        b.original = (Request) r.clone();
        return b;
    }

    @Test
    void a503Or408GoesOnToTheNextHopWithAFreshCopyUntilTheHopsRunOut() throws Exception {
        ProxyCall.Branch first = firstBranch(THREE);
        ProxyCall.Branch second = first.call.failover(first, 503, null);
        assertNotNull(second);
        assertEquals(1, second.attempt);
        assertEquals(503, first.finalStatus);
        assertNotSame(first.original, second.request);
        assertTrue(!first.call.allDone(), "the call is not over while the next hop is tried");
        ProxyCall.Branch third = second.call.failover(second, 408, null);
        assertEquals(2, third.attempt);
        assertEquals(hop(5063), third.target.attempt(third.attempt).hop());
        assertNull(third.call.failover(third, 503, null), "no hop after the last");
    }

    @Test
    void anyOtherAnswerEndsTheSearch() throws Exception {
        ProxyCall.Branch first = firstBranch(THREE);
        assertNull(first.call.failover(first, 486, null));
        assertNull(first.call.failover(first, 200, null));
        assertNull(first.call.failover(first, 500, null));
    }

    @Test
    void aCancelStopsTheSearch() throws Exception {
        ProxyCall.Branch first = firstBranch(THREE);
        first.call.cancel();
        assertNull(first.call.failover(first, 503, null));
    }

    @Test
    void aTargetWithoutFailoverNeverFailsOver() throws Exception {
        Request r = invite();
        ProxyCall call = new ProxyCall(null, r, "failover-test");
        ProxyCall.Branch b = call.addBranch(r);
        b.target = Target.via(hop(5061));
        assertNull(call.failover(b, 503, null));
    }

    @Test
    void theAnswerOfTheHopThatAnsweredGoesUpstreamNotTheFailureBeforeIt() throws Exception {
        ProxyCall.Branch first = firstBranch(THREE);
        ProxyCall.Branch second = first.call.failover(first, 408, null);
        ProxyCall.Verdict v = second.call.finalResponse(second, 486, null);
        assertEquals(486, v.synthesize());
    }

    @Test
    void whenEveryHopFailedTheBestOfTheirFailuresGoesUpstream() throws Exception {
        ProxyCall.Branch first = firstBranch(Failover.of(List.of(hop(5061), hop(5062))));
        ProxyCall.Branch second = first.call.failover(first, 408, null);
        ProxyCall.Verdict v = second.call.finalResponse(second, 503, null);
        assertEquals(408, v.synthesize(), "a 4xx before a 5xx (RFC 3261 §16.7 step 6)");
    }
}
