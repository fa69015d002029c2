package org.sipcrypt.server.sip.proxy;

import java.text.ParseException;
import java.util.ListIterator;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.Header;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.FlowTokens;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.registrar.Registrar;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Listener;

/**
 * This proxy as the edge proxy of a REGISTER it relays towards another domain's registrar (RFC 3327
 * §5.2, RFC 5626 §5.1): when it is the phone's first hop (one Via) and the phone lists
 * {@code Supported: path}, the REGISTER gets a Path entry naming this proxy, with {@code lr}, with
 * {@code ob} when the Contact has a reg-id (an outbound registration), and with the flow token of
 * the flow it came in on ({@link FlowTokens}, one flow). A request the registrar then sends to the
 * phone carries that entry as its Route, and comes out here over the phone's flow: required (430
 * when it has closed) for an outbound registration or when a NAT was seen, else while it is open.
 * A first-hop REGISTER whose flow is required but whose phone does not support Path is answered 421
 * with {@code Require: path} (§5.2); any other is relayed unchanged.
 * Threading: stateless; runs on SIP worker lanes.
 */
final class EdgePath {

    /** The option tag of RFC 3327. */
    static final String TAG = "path";

    private EdgePath() {
    }

    /** Whether this proxy is the first hop of {@code request}: it carries one Via. */
    static boolean firstHop(Request request) {
        return Registrar.viaCount(request) == 1;
    }

    /** Whether {@code request} lists {@code tag} in a Supported header. */
    static boolean supported(Request request, String tag) {
        return Registrar.supported(request, tag);
    }

    /** Whether a Contact of the REGISTER has a {@code reg-id}: an RFC 5626 outbound registration. */
    static boolean outbound(Request register) {
        ListIterator<?> it = register.getHeaders(ContactHeader.NAME);
        while (it != null && it.hasNext()) {
            if (((ContactHeader) it.next()).getParameter("reg-id") != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Path header this proxy adds to a REGISTER it relays from {@code in} and sends out of
     * {@code outgoing}: its advertised address on that listener, {@code lr}, {@code ob} when
     * {@code outbound}, and the flow token of {@code in}, required when {@code required}.
     */
    static Header header(SipContext ctx, FlowTokens tokens, Listener outgoing, Flow in, boolean required,
                         boolean outbound) throws ParseException {
        SipURI self = ctx.selfUri(outgoing);
        if (outbound) {
            self.setParameter("ob", null);
        }
        self.setParameter(FlowTokens.PARAM, tokens.write(new FlowTokens.Token(in, required, null, false)));
        return ctx.headers().createHeader("Path", "<" + self + ">");
    }
}
