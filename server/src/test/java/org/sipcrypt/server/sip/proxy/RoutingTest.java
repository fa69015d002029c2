package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.parser.StringMsgParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.RouteConfig;
import org.sipcrypt.server.sip.LocalDomains;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/** Routing decisions: static routes, which URIs are ours, loop versus spiral. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RoutingTest {

    private static final LocalDomains LOCAL = new LocalDomains(List.of("example.com"), List.of("127.0.0.1"), Set.of(5060));

    private static Request request(String ruri, String vias) throws Exception {
        String text = "INVITE " + ruri + " SIP/2.0\r\n" + vias
                + "Max-Forwards: 70\r\nFrom: <sip:a@example.com>;tag=f1\r\nTo: <sip:b@example.com>\r\n"
                + "Call-ID: loop-1\r\nCSeq: 1 INVITE\r\nContact: <sip:a@10.0.0.9>\r\nContent-Length: 0\r\n\r\n";
        return (Request) new StringMsgParser().parseSIPMessage(text.getBytes(StandardCharsets.UTF_8), true, false, null);
    }

    @Test
    void domainRouteWinsAndDefaultRouteCoversTheRest() {
        RouteTable t = new RouteTable(
                List.of(RouteConfig.parseDomainRoute("Other.org=10.0.0.2:5080;transport=tcp;connection=per-call",
                        ConnectionPattern.PERSISTENT)),
                RouteConfig.parseDefaultRoute("10.0.0.3", ConnectionPattern.PERSISTENT));
        NextHop hop = t.forDomain("other.ORG").orElseThrow();
        assertEquals(new NextHop("10.0.0.2", 5080, Transport.TCP, ConnectionPattern.PER_CALL), hop);
        assertEquals("sip:10.0.0.2:5080;transport=tcp;lr", hop.routeUri());
        assertTrue(t.forDomain("example.net").isEmpty());
        assertEquals("sip:10.0.0.3:5060;transport=udp;lr", t.defaultRoute().orElseThrow().routeUri());
        assertEquals(2, t.all().size());
    }

    @Test
    void ourAddressCountsOnlyWithOurPortButOurDomainWithAnyPort() {
        assertTrue(LOCAL.isLocal("127.0.0.1", 5060));
        assertTrue(LOCAL.isLocal("127.0.0.1", -1));
        assertFalse(LOCAL.isLocal("127.0.0.1", 5070), "a user agent on our host is not us");
        assertTrue(LOCAL.isLocal("EXAMPLE.com", 5999));
        assertFalse(LOCAL.isLocal("example.org", 5060));
    }

    @Test
    void requestCarryingOurBranchHashHasLooped() throws Exception {
        LoopDetector loops = new LoopDetector(LOCAL);
        Request first = request("sip:b@example.com", "Via: SIP/2.0/UDP 10.0.0.9;branch=z9hG4bKabc\r\n");
        String ours = loops.branch(first);
        assertTrue(ours.startsWith("z9hG4bK"), ours);
        Request looped = request("sip:b@example.com",
                "Via: SIP/2.0/UDP 10.0.0.5;branch=z9hG4bKxyz\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=" + ours + "\r\n"
                        + "Via: SIP/2.0/UDP 10.0.0.9;branch=z9hG4bKabc\r\n");
        assertTrue(loops.isLoop(looped));
    }

    @Test
    void requestBackWithAnotherRequestUriIsASpiralNotALoop() throws Exception {
        LoopDetector loops = new LoopDetector(LOCAL);
        Request first = request("sip:b@example.com", "Via: SIP/2.0/UDP 10.0.0.9;branch=z9hG4bKabc\r\n");
        String ours = loops.branch(first);
        Request spiral = request("sip:b@10.0.0.7",
                "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=" + ours + "\r\nVia: SIP/2.0/UDP 10.0.0.9;branch=z9hG4bKabc\r\n");
        assertFalse(loops.isLoop(spiral));
        assertNotEquals(loops.branch(first), ours, "each branch is unique");
    }
}
