package org.sipcrypt.server.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;

/**
 * Header lists of received messages, in the forms the proxy tests compare.
 * Threading: stateless.
 */
public final class SipHeaders {

    private SipHeaders() {
    }

    /** The Via headers as {@code host:port}, top first. */
    public static List<String> vias(Message r) {
        List<String> out = new ArrayList<>();
        ListIterator<?> it = r.getHeaders(ViaHeader.NAME);
        while (it.hasNext()) {
            ViaHeader v = (ViaHeader) it.next();
            out.add(v.getHost() + ":" + v.getPort());
        }
        return out;
    }

    /** The Record-Route addresses, top first. */
    public static List<String> recordRoutes(Message r) {
        List<String> out = new ArrayList<>();
        ListIterator<?> it = r.getHeaders(RecordRouteHeader.NAME);
        while (it.hasNext()) {
            out.add(((RecordRouteHeader) it.next()).getAddress().toString());
        }
        return out;
    }

    /** The Route addresses, top first. */
    public static List<String> routes(Message r) {
        List<String> out = new ArrayList<>();
        ListIterator<?> it = r.getHeaders(RouteHeader.NAME);
        while (it.hasNext()) {
            out.add(((RouteHeader) it.next()).getAddress().toString());
        }
        return out;
    }
}
