package org.sipcrypt.server.sip;

import java.net.InetAddress;
import java.util.ListIterator;
import java.util.Objects;
import javax.sip.address.SipURI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.config.AuthConfig;
import org.sipcrypt.server.sip.proxy.EstablishedDialogs;

/**
 * Decides, with digest authentication on, which requests must carry credentials before anything
 * is done for them, and which ACKs may be relayed. The rule: nothing unauthenticated leaves the
 * proxy, for a local user or a foreign target. The exceptions are requests from a trusted peer
 * ({@code auth.trustedPeers}), requests inside a live dialog this proxy record-routed, OPTIONS to
 * the server itself (answered here, they leave nothing) and ACK and CANCEL, which are never
 * challenged (RFC 3261 §22.1): a CANCEL only reaches branches of a transaction that passed, an ACK
 * for a 2xx is relayed only within such a dialog. When {@code auth.methods} is narrowed, the other
 * methods still need credentials to leave our domain: that keeps the proxy from being an open relay.
 *
 * <p>"Inside a live dialog" means both: the request carries back the signed Record-Route of its
 * Call-ID and caller ({@link DialogRouteSigner}), and {@link EstablishedDialogs} holds that dialog,
 * established by a 2xx this proxy forwarded and neither ended by its BYE (but for that BYE's
 * retransmissions and the ACK of the 2xx, for 32 s) nor idle for
 * {@code shutdown.dialogLifetime}, with the request's tags in the direction the signature names:
 * the caller's request has the signed tag in From and the callee's tag in To, the callee's the other
 * way round. A To tag alone, a signature of another Call-ID or caller, the right signature with
 * another peer tag, or a dialog whose BYE has gone, prove nothing. Not bound: the request's source
 * and its target; a party to a live dialog (or whoever saw its route and tags) can, until the BYE,
 * send requests in it to any Request-URI, as the dialog's own target may change (§12.2). Early
 * dialogs (before the 2xx) and dialogs other than INVITE's are not tracked, so their requests are
 * challenged. Without dialog tracking ({@code recordRoute} off or {@code shutdown.maxDialogs} 0)
 * every in-dialog request is challenged.
 * Threading: immutable.
 */
public final class AccessPolicy {

    private final AuthConfig config;
    private final DialogRouteSigner routes;
    private final LocalDomains local;
    private final EstablishedDialogs dialogs;

    /** @param dialogs the dialogs established through this proxy; null when none are tracked */
    public AccessPolicy(AuthConfig config, DialogRouteSigner routes, LocalDomains local, EstablishedDialogs dialogs) {
        this.config = Objects.requireNonNull(config, "config");
        this.routes = Objects.requireNonNull(routes, "routes");
        this.local = Objects.requireNonNull(local, "local");
        this.dialogs = dialogs;
    }

    /** Whether {@code request} (neither ACK nor CANCEL) must carry valid credentials to go on. */
    public boolean mustAuthenticate(Request request) {
        if (config.trusted(SipContext.sourceAddress(request))) {
            return false;
        }
        if (!config.inDialog() && provesLiveDialog(request, false)) {
            return false;
        }
        if (Request.OPTIONS.equals(request.getMethod()) && isServerItself(request)) {
            return false;
        }
        return config.challenges(request.getMethod()) || leavesOurDomain(request);
    }

    /**
     * Whether an ACK that no transaction absorbed (one for a 2xx, RFC 3261 §13.2.2.4) may be relayed:
     * it comes from a trusted peer or proves a live dialog. Anything else would let anyone send a
     * body to any target through us.
     */
    public boolean mayRelayAck(Request ack) {
        return config.trusted(SipContext.sourceAddress(ack)) || provesLiveDialog(ack, true);
    }

    /**
     * {@link #mayRelayAck(Request)} for an ACK read from its bytes: from {@code source}, with these
     * Call-ID and tags, carrying {@code signature} in the {@value DialogRouteSigner#PARAM} parameter
     * of its first Route entry when that entry names this server, else null (the byte path leaves a
     * Request-URI naming this server to the stack).
     */
    public boolean mayRelayAck(InetAddress source, String callId, String fromTag, String toTag, String signature) {
        return config.trusted(source) || provesLiveDialog(callId, fromTag, toTag, signature, null, true);
    }

    /**
     * Whether a request inside a dialog (neither ACK nor CANCEL), read from its bytes as {@link
     * #mayRelayAck(InetAddress, String, String, String, String)} reads an ACK, may go on without
     * credentials: it comes from a trusted peer or, unless {@code auth.inDialog} asks for credentials
     * within dialogs too, proves a live dialog. When false, {@link #mustAuthenticate} decides on the
     * parsed request.
     *
     * @param bye for a BYE, its top Via branch, CSeq number and Request-URI as one string: the BYE
     *            that ends the dialog is remembered, so that its retransmissions, and only they,
     *            still pass once the dialog has ended; null for other methods
     */
    public boolean mayRelayInDialog(InetAddress source, String callId, String fromTag, String toTag,
                                    String signature, String bye) {
        return config.trusted(source)
                || !config.inDialog() && provesLiveDialog(callId, fromTag, toTag, signature, bye, false);
    }

    private boolean provesLiveDialog(Request request, boolean ack) {
        CallIdHeader callId = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        FromHeader from = (FromHeader) request.getHeader(FromHeader.NAME);
        ToHeader to = (ToHeader) request.getHeader(ToHeader.NAME);
        return callId != null && from != null && to != null && provesLiveDialog(callId.getCallId(), from.getTag(),
                to.getTag(), DialogRouteSigner.signature(request, local::isLocal), null, ack);
    }

    /**
     * Whether the signature names one of the request's tags as the caller's, and the dialog of that
     * caller with the other tag as callee is live ({@link EstablishedDialogs#live}; for an ACK,
     * {@link EstablishedDialogs#liveForAck}).
     */
    private boolean provesLiveDialog(String callId, String fromTag, String toTag, String signature, String bye,
                                     boolean ack) {
        String caller = routes.signedTag(callId, fromTag, toTag, signature);
        if (caller == null || dialogs == null) {
            return false;
        }
        // the signed tag says the direction: From for the caller's requests, To for the callee's
        String callee = caller.equals(fromTag) ? toTag : fromTag;
        return ack ? dialogs.liveForAck(callId, caller, callee) : dialogs.live(callId, caller, callee, bye);
    }

    /** The OPTIONS ping of RFC 3261 §11 addressed to this server (no user part), which we answer. */
    private boolean isServerItself(Request request) {
        return local.isLocal(request.getRequestURI()) && ((SipURI) request.getRequestURI()).getUser() == null;
    }

    /**
     * Whether the proxy would send the request out of our domain: a Route left after our own
     * entries (§16.4), or a Request-URI that is neither this server nor a user of our domain (our
     * address with another port is someone else, as the proxy sees it).
     */
    private boolean leavesOurDomain(Request request) {
        ListIterator<?> it = request.getHeaders(RouteHeader.NAME);
        while (it != null && it.hasNext()) {
            if (!local.isLocal(((RouteHeader) it.next()).getAddress().getURI())) {
                return true;
            }
        }
        if (!(request.getRequestURI() instanceof SipURI sip)) {
            return true;
        }
        return !local.isLocal(sip) && !(local.isLocalDomain(sip.getHost())
                && (sip.getPort() <= 0 || local.isLocal(sip.getHost(), sip.getPort())));
    }
}
