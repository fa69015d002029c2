package org.sipcrypt.server.sip;

import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Objects;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.HeaderFactory;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;

/**
 * Requests a strict router (RFC 2543 routing) sent on to this proxy: the router put the Route
 * entry naming us, the URI of our Record-Route, in the Request-URI, and the user agent had put the
 * dialog's remote target last in Route (RFC 3261 §12.2.1.1). RFC 3261 §16.4: such a Request-URI is
 * replaced with the last Route value, which is removed, and the request is then proxied as if it
 * had come so. The request recognised as one is a request whose Request-URI is a SIP URI naming
 * this server with no user part and the {@code lr} parameter (the form of every Record-Route URI we
 * write, {@link SipContext#selfUri}) and which has a Route header field. The other direction, a
 * next hop that is a strict router (its Route entry without {@code lr}, §16.6 step 6), is done by
 * the stack's router as the request leaves (JAIN-SIP's {@code DefaultRouter}); the byte path leaves
 * both to the stack ({@code RequestRelay}).
 * Threading: stateless; called on SIP worker lanes.
 */
public final class StrictRouting {

    private StrictRouting() {
    }

    /**
     * {@code request} itself when it did not come from a strict router to this server ({@code
     * local}), else a copy with the §16.4 change made: the last Route value as its Request-URI and
     * out of Route. The copy carries the
     * Request-URI the strict router wrote as its first Route entry, so that it reads as the request a
     * loose router would have sent on along the same route set: the proxy removes that entry with
     * its other own entries (§16.4), and the dialog's signature ({@code DialogRouteSigner}) and flow
     * token ({@code FlowTokens}) in it are read there as from any Route of ours. The request the
     * transaction holds is not changed (an RFC 2543 retransmission is matched by its Request-URI,
     * RFC 3261 §17.2.3).
     */
    public static Request loosened(Request request, LocalDomains local, HeaderFactory headers,
                                   AddressFactory addresses) {
        Objects.requireNonNull(local, "local");
        if (!(request.getRequestURI() instanceof SipURI ours) || ours.getUser() != null || !ours.hasLrParam()
                || !local.isLocal(ours) || request.getHeader(RouteHeader.NAME) == null) {
            return request;
        }
        Request copy = (Request) request.clone();
        List<RouteHeader> routes = new ArrayList<>(2);
        for (ListIterator<?> it = copy.getHeaders(RouteHeader.NAME); it.hasNext(); ) {
            routes.add((RouteHeader) it.next());
        }
        RouteHeader last = routes.remove(routes.size() - 1);
        copy.removeHeader(RouteHeader.NAME);
        copy.addHeader(headers.createRouteHeader(addresses.createAddress(copy.getRequestURI())));
        for (RouteHeader r : routes) {
            copy.addHeader(r);
        }
        copy.setRequestURI(last.getAddress().getURI());
        return copy;
    }
}
