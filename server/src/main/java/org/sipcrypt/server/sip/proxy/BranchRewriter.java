package org.sipcrypt.server.sip.proxy;

import java.text.ParseException;
import java.util.Objects;
import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.auth.FlowTokens;
import org.sipcrypt.server.dns.Destination;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.Transport;

/**
 * Rewrites the copy of a request sent on one branch (RFC 3261 §16.6 steps 2-8): the Request-URI of
 * its target, Max-Forwards, a Route to a configured next hop or the Route set of a binding's Path
 * (RFC 3327 §5.4), this proxy's Record-Route (one entry
 * per interface when the request leaves by another listener than it came in on, RFC 5658; signed for the dialog when
 * authentication is on, see {@link DialogRouteSigner}; carrying the flow token of RFC 5626 §5.3,
 * see {@link FlowTokens}), the Path of a REGISTER relayed as its phone's edge proxy ({@link EdgePath}) and a
 * Via whose branch detects loops.
 * Threading: thread-safe; runs on SIP worker lanes.
 */
final class BranchRewriter {

    static final int DEFAULT_MAX_FORWARDS = 70;

    private final SipContext ctx;
    private final LoopDetector loops;
    private final boolean recordRoute;
    private final DialogRouteSigner signer;
    private final FlowTokens flowTokens;

    /**
     * @param signer     signs the Record-Route URIs inserted; null to insert them unsigned
     * @param flowTokens writes the flow token of the Record-Route URIs inserted; null to write none
     */
    BranchRewriter(SipContext ctx, LoopDetector loops, boolean recordRoute, DialogRouteSigner signer,
                   FlowTokens flowTokens) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.recordRoute = recordRoute;
        this.signer = signer;
        this.flowTokens = flowTokens;
    }

    /**
     * Rewrites {@code out}, a copy of {@code received}, for {@code target} (§16.6 steps 2-8), and
     * returns the listening point it leaves from: a flow's own listener for a target over a flow,
     * else the first of its transport and of the next hop's address family; its Via and Record-Route
     * carry that listener's advertised address. A target over a flow is marked for the stack with
     * that flow (its application data), so the request goes to the flow's peer over the flow.
     *
     * @param in         the flow {@code received} came in on, or null when not known
     * @param inRequired whether a NAT was seen on {@code in}: in-dialog requests must go back over it
     */
    ListeningPoints.Entry rewrite(Request received, Request out, Target target, Flow in, boolean inRequired)
            throws ParseException, InvalidArgumentException, SipException {
        return rewrite(received, out, target, in, inRequired, null);
    }

    /**
     * As {@link #rewrite(Request, Request, Target, Flow, boolean)}, the request sent to {@code located}
     * (a next hop RFC 3263 resolution found for its Route or Request-URI), or where they say when null;
     * its transport and address family choose the listening point, and the request is marked with it
     * for the stack, which then looks up nothing.
     */
    ListeningPoints.Entry rewrite(Request received, Request out, Target target, Flow in, boolean inRequired,
                                  Destination located) throws ParseException, InvalidArgumentException, SipException {
        // step 2: Request-URI
        if (target.requestUri() != null) {
            out.setRequestURI(target.requestUri());
        }
        // step 3: Max-Forwards
        MaxForwardsHeader mf = (MaxForwardsHeader) out.getHeader(MaxForwardsHeader.NAME);
        if (mf == null) {
            out.setHeader(ctx.headers().createMaxForwardsHeader(DEFAULT_MAX_FORWARDS));
        } else {
            mf.decrementMaxForwards();
        }
        // step 6: a next hop of a static route, pushed as a loose Route
        if (target.hop() != null) {
            Address a = ctx.addresses().createAddress(target.hop().routeUri());
            out.addFirst(ctx.headers().createRouteHeader(a));
        }
        // step 7 (RFC 3327 §5.4): a binding's Path is the pre-loaded Route set, its first entry on top
        for (int i = target.path().size() - 1; i >= 0; i--) {
            out.addFirst(ctx.headers().createHeader(RouteHeader.NAME, target.path().get(i)));
        }
        Destination to = target.flow() != null ? null : located;
        Transport outTransport = target.flow() != null ? target.flow().transport()
                : to != null ? to.transport() : outgoingTransport(out);
        StackInternals.attach(out, target.flow() != null ? target.flow() : to);
        ListeningPoints.Entry outgoing = target.flow() != null
                ? ctx.listeningPoints().at(outTransport, target.flow().local()) : null;
        if (outgoing == null) {
            outgoing = ctx.listeningPoints().toward(outTransport, target.flow() != null
                    ? target.flow().remote().getAddress().getHostAddress()
                    : to != null ? to.address().getAddress().getHostAddress() : nextHopHost(out));
        }
        if (outgoing == null) {
            throw new SipException("no " + outTransport.configName() + " listener to send on");
        }
        // step 4: Record-Route
        if (recordRoute && isDialogCreating(out)) {
            // RFC 5626 §5.3: the flows of both sides, for the in-dialog requests to come; only when the
            // target is reached over a flow (else no request can arrive over a flow of the token, and
            // the ACK and BYE stay on the byte path, RequestRelay)
            String token = flowTokens == null || in == null || target.flow() == null ? null
                    : flowTokens.write(new FlowTokens.Token(in, inRequired, target.flow(), target.flowRequired()));
            Transport inTransport = incomingTransport(received);
            ListeningPoints.Entry incoming = ctx.listeningPoints().receivedOn(received, inTransport);
            if (incoming == null) {
                incoming = ctx.listeningPoints().first(inTransport);
            }
            if (incoming != null && incoming.listener() != outgoing.listener()) {
                // RFC 5658: one entry per interface when the request leaves by another listener
                out.addFirst(recordRoute(incoming.listener(), received, token));
            }
            out.addFirst(recordRoute(outgoing.listener(), received, token));
        }
        // RFC 3327 §5.2, RFC 5626 §5.1: a REGISTER relayed as the phone's edge proxy carries our Path,
        // with the flow it came in on, so the registrar's requests for the binding come back over it
        if (flowTokens != null && in != null && Request.REGISTER.equals(out.getMethod())
                && EdgePath.firstHop(received) && EdgePath.supported(received, EdgePath.TAG)) {
            boolean outbound = EdgePath.outbound(received);
            out.addFirst(EdgePath.header(ctx, flowTokens, outgoing.listener(), in, inRequired || outbound, outbound));
            ctx.counters().edgePath("added");
        }
        // step 8: Via, with a branch that lets a looping copy be recognised (§16.3 step 4)
        ViaHeader via = ctx.via(outgoing.listener(), loops.branch(received));
        out.addFirst(via);
        return outgoing;
    }

    /**
     * Our Record-Route entry on a listener; signed for the dialog {@code received} creates when auth
     * is on; with the flow token {@code token} when not null.
     */
    private RecordRouteHeader recordRoute(Listener listener, Request received, String token) throws ParseException {
        SipURI self = ctx.selfUri(listener);
        if (signer != null) {
            self.setParameter(DialogRouteSigner.PARAM, signer.sign(received));
        }
        if (token != null) {
            self.setParameter(FlowTokens.PARAM, token);
        }
        return ctx.headers().createRecordRouteHeader(ctx.addresses().createAddress(self));
    }

    private static boolean isDialogCreating(Request r) {
        String m = r.getMethod();
        ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
        boolean initial = to == null || to.getTag() == null;
        return initial && (Request.INVITE.equals(m) || Request.SUBSCRIBE.equals(m) || Request.REFER.equals(m)
                || Request.NOTIFY.equals(m));
    }

    /**
     * The transport the next hop will be reached on: from the top Route, else the Request-URI; a
     * {@code sips:} URI means TLS (RFC 3261 §26.2.2).
     */
    static Transport outgoingTransport(Request r) {
        RouteHeader route = (RouteHeader) r.getHeader(RouteHeader.NAME);
        URI uri = route != null ? route.getAddress().getURI() : r.getRequestURI();
        if (uri instanceof SipURI sip && sip.isSecure()) {
            return Transport.TLS;
        }
        if (uri instanceof SipURI sip && sip.getTransportParam() != null) {
            try {
                return Transport.parse(sip.getTransportParam());
            } catch (IllegalArgumentException e) {
                return Transport.UDP;
            }
        }
        return Transport.UDP;
    }

    /** The host the next hop is named by: that of the top Route, else of the Request-URI; null when it is no SIP URI. */
    static String nextHopHost(Request r) {
        RouteHeader route = (RouteHeader) r.getHeader(RouteHeader.NAME);
        URI uri = route != null ? route.getAddress().getURI() : r.getRequestURI();
        return uri instanceof SipURI sip ? sip.getHost() : null;
    }

    private static Transport incomingTransport(Request r) {
        ViaHeader via = (ViaHeader) r.getHeader(ViaHeader.NAME);
        try {
            return Transport.parse(via.getTransport());
        } catch (IllegalArgumentException e) {
            return Transport.UDP;
        }
    }
}
