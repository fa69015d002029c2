package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sip.SipFactory;
import javax.sip.address.AddressFactory;
import javax.sip.header.HeaderFactory;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link StrictRouting}: which requests count as sent on by a strict router (our Record-Route URI
 * as the Request-URI, a Route left) and the loose-routed copy made of them (RFC 3261 §16.4), on
 * requests parsed by JAIN-SIP.
 * Threading: JUnit's test thread.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StrictRoutingTest {

    private static final LocalDomains LOCAL = new LocalDomains(Set.of("example.org"), Set.of("127.0.0.1"), Set.of(5060));
    private static final String OURS = "sip:127.0.0.1:5060;transport=udp;lr;sc-dlg=abc";

    @Test
    void ourRecordRouteUriAsRequestUriTakesTheLastRouteAndBecomesTheFirstRoute() throws Exception {
        Request received = request(OURS, "<sip:p3.example.net;lr>", "<sip:bob@192.0.2.7:5062>");

        Request loosened = loosened(received);

        assertNotSame(received, loosened);
        assertEquals("sip:bob@192.0.2.7:5062", loosened.getRequestURI().toString());
        assertEquals(List.of("<" + OURS + ">", "<sip:p3.example.net;lr>"), routes(loosened));
        // the transaction's request stays as it came
        assertEquals(OURS, received.getRequestURI().toString());
        assertEquals(List.of("<sip:p3.example.net;lr>", "<sip:bob@192.0.2.7:5062>"), routes(received));
    }

    @Test
    void aSingleRouteBecomesTheRequestUri() throws Exception {
        Request loosened = loosened(request(OURS, "<sip:bob@192.0.2.7:5062;transport=tcp>"));

        assertEquals("sip:bob@192.0.2.7:5062;transport=tcp", loosened.getRequestURI().toString());
        assertEquals(List.of("<" + OURS + ">"), routes(loosened));
    }

    @Test
    void otherRequestsAreLeftAsTheyCame() throws Exception {
        for (Request r : List.of(
                // loose routing: the target in the Request-URI, our entry on top
                request("sip:bob@192.0.2.7:5062", "<" + OURS + ">"),
                // addressed to us, no Route left
                request(OURS),
                // a user part: not a Record-Route URI of ours
                request("sip:alice@127.0.0.1:5060;lr", "<sip:bob@192.0.2.7>"),
                // no lr: not the form we record-route with
                request("sip:127.0.0.1:5060", "<sip:bob@192.0.2.7>"),
                // another server's URI
                request("sip:192.0.2.9:5060;lr", "<sip:bob@192.0.2.7>"),
                // our address on another port
                request("sip:127.0.0.1:5070;lr", "<sip:bob@192.0.2.7>"))) {
            assertSame(r, loosened(r), r.getRequestURI() + " " + routes(r));
        }
    }

    @Test
    void ourDomainCountsAsUs() throws Exception {
        Request loosened = loosened(request("sip:example.org;lr", "<sip:bob@192.0.2.7>"));

        assertEquals("sip:bob@192.0.2.7", loosened.getRequestURI().toString());
        assertEquals(List.of("<sip:example.org;lr>"), routes(loosened));
    }

    private static Request loosened(Request r) throws Exception {
        SipFactory sip = SipFactory.getInstance();
        HeaderFactory headers = sip.createHeaderFactory();
        AddressFactory addresses = sip.createAddressFactory();
        return StrictRouting.loosened(r, LOCAL, headers, addresses);
    }

    /** A BYE in a dialog, to {@code requestUri}, with one Route line per entry given. */
    private static Request request(String requestUri, String... routes) throws Exception {
        StringBuilder text = new StringBuilder("BYE " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-strict\r\n"
                + "Max-Forwards: 69\r\n"
                + "From: <sip:alice@example.org>;tag=a\r\n"
                + "To: <sip:bob@example.org>;tag=b\r\n"
                + "Call-ID: strict-routing-test\r\n"
                + "CSeq: 2 BYE\r\n");
        for (String route : routes) {
            text.append("Route: ").append(route).append("\r\n");
        }
        text.append("Content-Length: 0\r\n\r\n");
        return SipFactory.getInstance().createMessageFactory().createRequest(text.toString());
    }

    private static List<String> routes(Request r) {
        List<String> values = new ArrayList<>();
        for (ListIterator<?> it = r.getHeaders(RouteHeader.NAME); it.hasNext(); ) {
            values.add(((RouteHeader) it.next()).getAddress().toString());
        }
        return values;
    }
}
