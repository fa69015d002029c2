package org.sipcrypt.server.sip;

import java.net.InetAddress;
import java.util.ListIterator;
import java.util.Objects;
import javax.sip.address.SipURI;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.config.AuthConfig;

/**
 * Decides, with digest authentication on, which requests must carry credentials before anything
 * is done for them, and which ACKs may be relayed. The rule: nothing unauthenticated leaves the
 * proxy, for a local user or a foreign target. The exceptions are requests from a trusted peer
 * ({@code auth.trustedPeers}), requests inside a dialog this proxy record-routed (proved by the
 * signed Record-Route they carry back, {@link DialogRouteSigner}; a To tag alone proves nothing),
 * OPTIONS to the server itself (answered here, they leave nothing) and ACK and CANCEL, which are
 * never challenged (RFC 3261 §22.1): a CANCEL only reaches branches of a transaction that passed,
 * an ACK for a 2xx is relayed only along a signed route of ours. When {@code auth.methods} is
 * narrowed, the other methods still need credentials to leave our domain: that keeps the proxy
 * from being an open relay.
 * Threading: immutable.
 */
public final class AccessPolicy {

    private final AuthConfig config;
    private final DialogRouteSigner routes;
    private final LocalDomains local;

    public AccessPolicy(AuthConfig config, DialogRouteSigner routes, LocalDomains local) {
        this.config = Objects.requireNonNull(config, "config");
        this.routes = Objects.requireNonNull(routes, "routes");
        this.local = Objects.requireNonNull(local, "local");
    }

    /** Whether {@code request} (neither ACK nor CANCEL) must carry valid credentials to go on. */
    public boolean mustAuthenticate(Request request) {
        if (config.trusted(SipContext.sourceAddress(request))) {
            return false;
        }
        if (!config.inDialog() && routes.provesDialog(request, local::isLocal)) {
            return false;
        }
        if (Request.OPTIONS.equals(request.getMethod()) && isServerItself(request)) {
            return false;
        }
        return config.challenges(request.getMethod()) || leavesOurDomain(request);
    }

    /**
     * Whether an ACK that no transaction absorbed (one for a 2xx, RFC 3261 §13.2.2.4) may be relayed:
     * it comes from a trusted peer or carries back a signed Record-Route of ours. Anything else would
     * let anyone send a body to any target through us.
     */
    public boolean mayRelayAck(Request ack) {
        return config.trusted(SipContext.sourceAddress(ack)) || routes.provesDialog(ack, local::isLocal);
    }

    /**
     * {@link #mayRelayAck(Request)} for an ACK read from its bytes: from {@code source}, with these
     * Call-ID and tags, carrying {@code signature} in the {@value DialogRouteSigner#PARAM} parameter
     * of its first Route entry when that entry names this server (of its Request-URI when it has no
     * Route and the URI names this server), else null.
     */
    public boolean mayRelayAck(InetAddress source, String callId, String fromTag, String toTag, String signature) {
        return config.trusted(source) || routes.proves(callId, fromTag, toTag, signature);
    }

    /**
     * Whether a request inside a dialog (neither ACK nor CANCEL), read from its bytes as {@link
     * #mayRelayAck(InetAddress, String, String, String, String)} reads an ACK, may go on without
     * credentials: it comes from a trusted peer or, unless {@code auth.inDialog} asks for credentials
     * within dialogs too, proves the dialog by its signed route. When false, {@link #mustAuthenticate}
     * decides on the parsed request.
     */
    public boolean mayRelayInDialog(InetAddress source, String callId, String fromTag, String toTag,
                                    String signature) {
        return config.trusted(source) || !config.inDialog() && routes.proves(callId, fromTag, toTag, signature);
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
