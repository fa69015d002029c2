package org.sipcrypt.server.sip.proxy;

import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sip.ClientTransaction;
import javax.sip.InvalidArgumentException;
import javax.sip.ServerTransaction;
import javax.sip.SipException;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ProxyRequireHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import javax.sip.header.ContactHeader;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.cdr.CallRecords;
import org.sipcrypt.server.dns.Destination;
import org.sipcrypt.server.dns.SipServerLocator;
import org.sipcrypt.server.auth.FlowTokens;
import org.sipcrypt.server.sip.registrar.NatTest;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.ProxyFunction;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.transport.ConnectionScope;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stateful proxy (RFC 3261 §16): validates a request (§16.3: Max-Forwards 483, loops 482,
 * Proxy-Require 420), removes its own Route entries (§16.4), has {@link TargetSelector} find the
 * targets (§16.5), forwards one branch per target, each rewritten by {@link BranchRewriter}
 * (§16.6 steps 2-8), runs Timer C (§16.6 step 11, §16.8) and sends the best response upstream
 * (§16.7). CANCEL (§16.10), ACK for 2xx (forwarded statelessly, §16.11) and stray 2xx
 * retransmissions are handled here too. An in-dialog request that carries back the flow token of our
 * Record-Route (RFC 5626 §5.3, {@link FlowTokens}) and arrived over one of its two flows goes out
 * over the other (on its open connection only); a token this server did not write is refused with
 * 403 (an ACK dropped), and a required flow that has closed answers 430; both counted in
 * {@code sip.flows.failed}. A next hop named by a host name is located by RFC 3263
 * ({@link SipServerLocator}) off the lane before its branch is sent, and a branch to it that fails to
 * connect, times out or gets 503 is sent again to the next address found (§4.3). A target with a
 * {@link Failover} (a destination set's) is tried hop by hop: a branch ending in 408 or 503 (a
 * timeout, a failed connect), once the addresses DNS found for its hop are used up, is followed by a
 * branch to the next hop, until one answers otherwise, the hops run out, or a CANCEL comes
 * ({@link ProxyCall#failover}); the responses to OPTIONS probes ({@link DestinationProber}) are
 * handed to the prober.
 * Threading: thread-safe; runs on SIP worker lanes (timeouts on the stack's timer thread), never
 * waits for the database or DNS.
 */
public final class StatefulProxy implements ProxyFunction {

    private static final Logger log = LoggerFactory.getLogger(StatefulProxy.class);

    private final SipContext ctx;
    private final LoopDetector loops;
    private final TargetSelector targets;
    private final BranchRewriter rewriter;
    private final ScheduledExecutorService timers;
    private final Duration timerC;
    private final EstablishedDialogs dialogs;
    private final FlowTokens flowTokens;
    private final CallRouting routing;
    private final CallRecords records;
    private final ProxyBye byes;
    private volatile SipServerLocator locator;
    private volatile BiPredicate<String, Integer> aliased;

    /**
     * @param timers     where Timer C runs (its task only hands the branch back to the call's lane)
     * @param timerC     RFC 3261 §16.6 step 11: how long an INVITE branch may stay without a response
     * @param signer     signs the Record-Route URIs this proxy inserts, so in-dialog requests can prove
     *                   their dialog; null to insert them unsigned (authentication off)
     * @param dialogs    notes the calls established through this proxy while it record-routes, for the
     *                   shutdown drain and for the signed routes that must match a live call
     *                   ({@code AccessPolicy}); null to note none
     * @param flowTokens writes the flow tokens of its Record-Route and reads them back (RFC 5626 §5.3)
     * @param routing    the operator's routers, offered each new out-of-dialog request before the
     *                   default target selection; null for none
     * @param records    the calls in progress, told of each INVITE call's start, answer, failure and BYE;
     *                   null when no records are kept ({@code cdr.sink=none}), which costs one null check per event
     */
    public StatefulProxy(SipContext ctx, LocationService location, LiveRoutes routes, boolean recordRoute,
                         ScheduledExecutorService timers, Duration timerC, DialogRouteSigner signer,
                         EstablishedDialogs dialogs, FlowTokens flowTokens, CallRouting routing, CallRecords records) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.loops = new LoopDetector(ctx.local());
        this.records = records;
        this.targets = new TargetSelector(ctx, location, routes, records);
        this.flowTokens = Objects.requireNonNull(flowTokens, "flowTokens");
        this.rewriter = new BranchRewriter(ctx, loops, recordRoute, signer, flowTokens);
        this.timers = Objects.requireNonNull(timers, "timers");
        this.timerC = Objects.requireNonNull(timerC, "timerC");
        this.dialogs = recordRoute ? dialogs : null;
        this.routing = routing;
        this.byes = this.dialogs == null ? null : new ProxyBye(ctx, this.dialogs, records);
    }

    /** The established calls, to list and to end with the proxy's own BYEs; null when none are kept (no Record-Route). */
    public ProxyBye byes() {
        return byes;
    }

    /** The branches of this proxy's Vias, which the relay from bytes writes and checks too. */
    LoopDetector loops() {
        return loops;
    }

    /** The calls in progress whose records the relay from bytes ends with a BYE; null when none are kept. */
    CallRecords records() {
        return records;
    }

    /** Proxies a request that is neither ACK nor CANCEL, on its server transaction, unauthenticated. */
    @Override
    public void onRequest(Request request, ServerTransaction st) {
        onRequest(request, st, null);
    }

    /** Proxies a request that is neither ACK nor CANCEL, on its server transaction, as {@code identity} (or null). */
    @Override
    public void onRequest(Request request, ServerTransaction st, String identity) {
        String callId = callId(request);
        // §16.3 step 3: Max-Forwards
        MaxForwardsHeader mf = (MaxForwardsHeader) request.getHeader(MaxForwardsHeader.NAME);
        if (mf != null && mf.getMaxForwards() <= 0) {
            ctx.respond(st, request, Response.TOO_MANY_HOPS);
            return;
        }
        // §16.3 step 4: loop detection
        if (loops.isLoop(request)) {
            ctx.respond(st, request, Response.LOOP_DETECTED);
            return;
        }
        // §16.3 step 5: this proxy supports no extensions a request can demand of it
        ListIterator<?> proxyRequire = request.getHeaders(ProxyRequireHeader.NAME);
        if (proxyRequire.hasNext()) {
            List<javax.sip.header.Header> unsupported = new ArrayList<>();
            while (proxyRequire.hasNext()) {
                try {
                    unsupported.add(ctx.headers().createUnsupportedHeader(
                            ((ProxyRequireHeader) proxyRequire.next()).getOptionTag()));
                } catch (ParseException e) {
                    ctx.respond(st, request, Response.BAD_REQUEST, "Bad Proxy-Require header");
                    return;
                }
            }
            ctx.respond(st, request, Response.BAD_EXTENSION, unsupported.toArray(new javax.sip.header.Header[0]));
            return;
        }
        // RFC 5626 §5.3: a flow token in our own Route must be one we wrote
        FlowTokens.Token token = null;
        String tokenText = ownFlowToken(request);
        if (tokenText != null) {
            token = flowTokens.read(tokenText);
            if (token == null) {
                ctx.counters().flowFailed("bad_token");
                ctx.respond(st, request, Response.FORBIDDEN, "Invalid Flow Token");
                return;
            }
        }
        if (Request.REGISTER.equals(request.getMethod()) && needsPathSupport(request)) {
            // RFC 3327 §5.2: its phone can only be reached over this flow, which needs our Path
            ctx.counters().edgePath("refused_extension_required");
            try {
                ctx.respond(st, request, Response.EXTENSION_REQUIRED, ctx.headers().createRequireHeader(EdgePath.TAG));
            } catch (ParseException e) {
                throw new IllegalStateException("Require: path", e);
            }
            return;
        }
        if (Request.INVITE.equals(request.getMethod())) {
            ctx.respond(st, request, Response.TRYING);
        }
        ProxyCall call = new ProxyCall(st, request, callId,
                records == null ? null : startRecord(request, st, callId, identity),
                dialogs != null && dialogs.keepsCalls() && Request.INVITE.equals(request.getMethod())
                        && toTagOf(request) == null
                        ? ctx.clock().instant() : null);
        st.setApplicationData(call);
        Request fwd = (Request) request.clone();
        popOwnRoutes(fwd);
        FlowTokens.Token.Leg leg = token == null ? null : token.otherThan(SipContext.flowOf(request));
        if (leg != null) {
            if (ctx.calls().flowOpen(leg.flow())) {
                // an in-dialog request that came over one side's flow goes over the other side's
                forward(call, fwd, List.of(Target.over(null, leg.flow(), leg.required())));
                return;
            }
            if (leg.required()) {
                ctx.counters().flowFailed("closed_in_dialog");
                ctx.respond(st, request, TargetSelector.FLOW_FAILED, "Flow Failed");
                return;
            }
        }
        // §16.5: determine the targets (the operator's routers first); §16.6: forward to them
        if (routing != null && CallRouting.offered(fwd)) {
            routing.route(call, fwd, identity, found -> forward(call, fwd, found),
                    () -> targets.select(call, fwd, found -> forward(call, fwd, found)),
                    (sets, set) -> targets.toSet(call, fwd, sets, set, found -> forward(call, fwd, found)));
            return;
        }
        targets.select(call, fwd, found -> forward(call, fwd, found));
    }

    /**
     * The record of a call this INVITE outside a dialog starts (its start, parties, user and the
     * caller's leg), or null for any other request or a spiral of a call already recorded.
     */
    private CallRecords.Call startRecord(Request request, ServerTransaction st, String callId, String user) {
        ToHeader to = (ToHeader) request.getHeader(ToHeader.NAME);
        if (!Request.INVITE.equals(request.getMethod()) || to == null || to.getTag() != null) {
            return null;
        }
        FromHeader from = (FromHeader) request.getHeader(FromHeader.NAME);
        Flow in = SipContext.flowOf(request);
        String transport = in != null ? in.transport().sipName().toLowerCase(Locale.ROOT)
                : StackInternals.transport(st).toLowerCase(Locale.ROOT);
        return records.started(callId, from == null ? null : from.getTag(),
                from == null ? null : from.getAddress().getURI().toString(), to.getAddress().getURI().toString(),
                user, transport, SipContext.cipherSuiteOf(request));
    }

    /**
     * The flow token ({@value FlowTokens#PARAM}) of the leading Route entries that name this
     * server (those §16.4 removes), or null when none carries one.
     */
    private String ownFlowToken(Request r) {
        ListIterator<?> it = r.getHeaders(RouteHeader.NAME);
        while (it.hasNext()) {
            URI uri = ((RouteHeader) it.next()).getAddress().getURI();
            if (!ctx.local().isLocal(uri)) {
                return null;
            }
            if (uri instanceof SipURI sip && sip.getParameter(FlowTokens.PARAM) != null) {
                return sip.getParameter(FlowTokens.PARAM);
            }
        }
        return null;
    }

    /**
     * Whether a REGISTER this proxy relays as its phone's first hop must carry our Path (its flow is
     * required: an outbound registration, or a NAT was seen) but the phone did not list
     * {@code Supported: path}, so none may be added ({@link EdgePath}).
     */
    private boolean needsPathSupport(Request register) {
        Flow in = SipContext.flowOf(register);
        return in != null && EdgePath.firstHop(register) && !EdgePath.supported(register, EdgePath.TAG)
                && (EdgePath.outbound(register) || behindNat(register, in));
    }

    /** Whether a NAT lies between this server and the sender of a dialog-creating request (its Contact and Via). */
    private static boolean behindNat(Request request, Flow in) {
        ContactHeader contact = (ContactHeader) request.getHeader(ContactHeader.NAME);
        return in != null && NatTest.behindNat(request, contact == null ? null : contact.getAddress().getURI(),
                in.remote(), in.transport());
    }

    /**
     * Locates the next hop of each target whose Route or Request-URI names a host by name (RFC 3263),
     * off the lane, and forwards on the call's lane once all are known; forwards at once when none
     * needs DNS (IP addresses, flows, this server's own names) or no locator is set.
     */
    private void forward(ProxyCall call, Request fwd, List<Target> chosen) {
        SipServerLocator dns = locator;
        List<CompletableFuture<List<Destination>>> lookups = dns == null ? null : new ArrayList<>(chosen.size());
        boolean any = false;
        for (int i = 0; dns != null && i < chosen.size(); i++) {
            SipURI named = namedNextHop(fwd, chosen.get(i));
            lookups.add(named == null ? null : locate(dns, named));
            any |= named != null;
        }
        if (!any) {
            forward(call, fwd, chosen, null);
            return;
        }
        CompletableFuture.allOf(lookups.stream().filter(Objects::nonNull).map(f -> f.exceptionally(e -> null))
                .toArray(CompletableFuture[]::new)).whenCompleteAsync((done, failure) -> {
                    if (call.cancelled()) {
                        // RFC 3261 §16.10: cancelled while its next hops were looked up
                        ctx.respond(call.st, call.request, Response.REQUEST_TERMINATED);
                    } else {
                        forward(call, fwd, chosen, lookups);
                    }
                }, ctx.lane(call.callId));
    }

    /**
     * The next hop's URI of {@code target} when its host is a name DNS must locate: its static
     * route, else the first entry of its Path, else the top Route, else its Request-URI (RFC 3261
     * §16.6 step 7, §16.12); its {@code maddr} counts as its host. Null for a flow, an IP address, a
     * name of this server's, or a name a TLS peer aliased to its connection (RFC 5923).
     */
    private SipURI namedNextHop(Request fwd, Target target) {
        if (target.flow() != null) {
            return null;
        }
        URI next;
        try {
            if (target.hop() != null) {
                next = ctx.addresses().createURI(target.hop().routeUri());
            } else if (!target.path().isEmpty()) {
                next = ((RouteHeader) ctx.headers().createHeader(RouteHeader.NAME, target.path().get(0)))
                        .getAddress().getURI();
            } else if (fwd.getHeader(RouteHeader.NAME) != null) {
                next = ((RouteHeader) fwd.getHeader(RouteHeader.NAME)).getAddress().getURI();
            } else {
                next = target.requestUri() != null ? target.requestUri() : fwd.getRequestURI();
            }
        } catch (ParseException e) {
            // left to the rewrite, which fails on the same text and ends the branch
            return null;
        }
        if (!(next instanceof SipURI sip) || ctx.local().isLocal(sip)) {
            return null;
        }
        String host = sip.getMAddrParam() != null ? sip.getMAddrParam() : sip.getHost();
        if (host == null || SipServerLocator.isAddress(host)) {
            return null;
        }
        BiPredicate<String, Integer> byAlias = aliased;
        return byAlias != null && byAlias.test(host, sip.getPort()) ? null : sip;
    }

    private static CompletableFuture<List<Destination>> locate(SipServerLocator dns, SipURI uri) {
        Transport transport = null;
        if (uri.getTransportParam() != null) {
            try {
                transport = Transport.parse(uri.getTransportParam());
            } catch (IllegalArgumentException e) {
                transport = null;
            }
        }
        String host = uri.getMAddrParam() != null ? uri.getMAddrParam() : uri.getHost();
        return dns.locate(host, uri.getPort(), transport, uri.isSecure());
    }

    /**
     * §16.6: one branch per target, each a copy of {@code fwd}; the last branch takes {@code fwd}
     * itself, which nothing reads after this (targets are chosen once per request), so a request with
     * one target is not copied a second time. A target whose next hop DNS located (its entry of
     * {@code located}, null when none was looked up) goes to the first of them and keeps the rest to
     * fail over to; one whose lookup failed ends as 503.
     */
    private void forward(ProxyCall call, Request fwd, List<Target> chosen,
                         List<CompletableFuture<List<Destination>>> located) {
        Flow in = SipContext.flowOf(call.request);
        boolean inRequired = behindNat(call.request, in);
        for (int i = 0; i < chosen.size(); i++) {
            Target target = chosen.get(i);
            Request out = i == chosen.size() - 1 ? fwd : (Request) fwd.clone();
            CompletableFuture<List<Destination>> lookup = located == null ? null : located.get(i);
            ProxyCall.Branch branch = call.addBranch(out);
            branch.target = target;
            if (target.failover() != null) {
                branch.original = (Request) out.clone();
            }
            if (lookup != null && lookup.isCompletedExceptionally()) {
                ctx.counters().error("next_hop_unresolved");
                log.debug("{}: next hop of {} not located: {}", call.callId, out.getRequestURI(),
                        lookup.handle((ok, e) -> e).join().getMessage());
                branchFinal(branch, Response.SERVICE_UNAVAILABLE, null);
                continue;
            }
            List<Destination> hops = lookup == null ? List.of() : lookup.join();
            if (hops.size() > 1) {
                synchronized (call) {
                    branch.failover = new NextHopFailover((Request) out.clone(), target, hops.subList(1, hops.size()));
                }
            }
            send(branch, target, hops.isEmpty() ? null : hops.get(0), in, inRequired);
        }
    }

    /**
     * Sends a branch of a destination set's next hop: located first by RFC 3263 when the hop is a
     * host name (off the lane, the branch sent on the call's lane when it is known; 503 when it
     * cannot be, and 487 when the call was cancelled meanwhile), else at once.
     */
    private void sendLocated(ProxyCall.Branch branch, Target target, Flow in, boolean inRequired) {
        ProxyCall call = branch.call;
        SipServerLocator dns = locator;
        SipURI named = dns == null ? null : namedNextHop(branch.request, target);
        if (named == null) {
            send(branch, target, null, in, inRequired);
            return;
        }
        locate(dns, named).whenCompleteAsync((hops, failure) -> {
            if (call.cancelled()) {
                branchFinal(branch, Response.REQUEST_TERMINATED, null);
            } else if (failure != null || hops.isEmpty()) {
                ctx.counters().error("next_hop_unresolved");
                log.debug("{}: next hop of {} not located: {}", call.callId, target.hop(),
                        failure == null ? "no address" : failure.getMessage());
                branchFinal(branch, Response.SERVICE_UNAVAILABLE, null);
            } else {
                if (hops.size() > 1) {
                    synchronized (call) {
                        branch.failover = new NextHopFailover((Request) branch.request.clone(), target,
                                hops.subList(1, hops.size()));
                    }
                }
                send(branch, target, hops.get(0), in, inRequired);
            }
        }, ctx.lane(call.callId));
    }

    /**
     * Rewrites a branch's request for {@code target} and sends it on a new client transaction, to
     * {@code to} when DNS located its next hop.
     */
    private void send(ProxyCall.Branch branch, Target target, Destination to, Flow in, boolean inRequired) {
        ProxyCall call = branch.call;
        Request out = branch.request;
        ListeningPoints.Entry from;
        try {
            from = rewriter.rewrite(call.request, out, target, in, inRequired, to);
        } catch (ParseException | InvalidArgumentException | SipException e) {
            ctx.counters().error("prepare_branch");
            log.debug("{}: cannot prepare branch to {}: {}", call.callId, target, e.toString());
            branchFinal(branch, Response.SERVER_INTERNAL_ERROR, null);
            return;
        }
        try (ConnectionScope scope = target.flow() != null ? ConnectionScope.flow(call.callId)
                : ConnectionScope.call(call.callId)) {
            // the provider holding the listening point chosen for the next hop sends from its socket
            ClientTransaction ct = from.provider().getNewClientTransaction(out);
            if (!call.invite) {
                shortTimerK(ct);
            }
            ct.setApplicationData(branch);
            branch.tx = ct;
            if (target.failover() != null) {
                target.failover().outcomes().sent(branch.attempt);
            }
            ct.sendRequest();
            ctx.counters().forwarded(out.getMethod());
            if (call.invite) {
                startTimerC(branch);
            }
        } catch (SipException | RuntimeException e) {
            ctx.counters().error("next_hop_unreachable");
            log.debug("{}: cannot send {} to {}: {}", call.callId, out.getMethod(), out.getRequestURI(), e.toString());
            branchFinal(branch, Response.SERVICE_UNAVAILABLE, null);
        }
    }

    /**
     * RFC 3263 §4.3: a branch to a next hop DNS located that failed to connect, timed out (408) or was
     * answered 503 is sent again, as a new branch (a new transaction), to the next address located
     * after it, unless the call was cancelled or answered; returns whether it was. The new branch is
     * added in the same step as the old one ends ({@link ProxyCall#failoverInPlace}), so the call does
     * not end in between; a destination set's next hop comes only once these addresses are used up.
     */
    private boolean failOver(ProxyCall.Branch branch, int status, Response upstream) {
        ProxyCall call = branch.call;
        NextHopFailover f;
        ProxyCall.Branch next;
        List<Destination> rest;
        synchronized (call) {
            // a timeout (the stack's timer thread) and a response (the lane) may race: one fails over
            f = branch.failover;
            if (f == null || !Failover.failsOver(status)) {
                return false;
            }
            next = call.failoverInPlace(branch, status, upstream, (Request) f.unrewritten().clone());
            if (next == null) {
                return false;
            }
            branch.failover = null;
            rest = f.rest();
            next.failover = rest.size() > 1
                    ? new NextHopFailover(f.unrewritten(), f.target(), rest.subList(1, rest.size())) : null;
        }
        ctx.counters().error("next_hop_failover");
        log.debug("{}: branch ended {}, trying next hop {}", call.callId, status, rest.get(0));
        Flow in = SipContext.flowOf(call.request);
        send(next, f.target(), rest.get(0), in, behindNat(call.request, in));
        return true;
    }

    /**
     * The locator of next hops named by a host name (RFC 3263); none set: the stack resolves names itself.
     *
     * @param aliased whether a TLS peer's open connection carries a host and port as its RFC 5923 alias:
     *                such a name is not looked up, the transport finds the connection by it; null for none
     */
    public void locateNextHopsWith(SipServerLocator locator, BiPredicate<String, Integer> aliased) {
        this.aliased = aliased;
        this.locator = locator;
    }

    /** §16.4: removes the Route entries that name this server. */
    private void popOwnRoutes(Request r) {
        ListIterator<?> it = r.getHeaders(RouteHeader.NAME);
        List<RouteHeader> kept = new ArrayList<>();
        boolean leading = true;
        while (it.hasNext()) {
            RouteHeader h = (RouteHeader) it.next();
            if (leading && ctx.local().isLocal(h.getAddress().getURI())) {
                continue;
            }
            leading = false;
            kept.add(h);
        }
        r.removeHeader(RouteHeader.NAME);
        for (RouteHeader h : kept) {
            r.addHeader(h);
        }
    }

    /** A response on a branch (§16.7). */
    @Override
    public void onResponse(Response response, ClientTransaction ct) {
        Object data = ct == null ? null : ct.getApplicationData();
        if (data instanceof DestinationProber.Probe probe) {
            probe.prober.answered(probe, response, ct);
            return;
        }
        if (data instanceof ProxyBye.Sent sent) {
            if (response.getStatusCode() >= 200) {
                byes.answered(sent, response.getStatusCode());
            }
            return;
        }
        ProxyCall.Branch branch = (ProxyCall.Branch) data;
        if (branch == null) {
            forwardStateless(response);
            return;
        }
        int status = response.getStatusCode();
        ProxyCall call = branch.call;
        if (status < 200) {
            if (call.invite && status > 100) {
                startTimerC(branch);
            }
            if (call.provisional(branch)) {
                sendCancel(branch);
            }
            if (status > 100 && !call.finalSent()) {
                ctx.send(call.st, upstreamCopy(response));
            }
            return;
        }
        branchFinal(branch, status, upstreamCopy(response));
        if (!call.invite || status / 100 == 2) {
            endAnsweredClientTransaction(ct);
        }
    }

    /**
     * A 2xx to a forwarded INVITE over UDP, TCP or TLS that {@link ResponseRelay} sends upstream from its bytes
     * (§16.7 step 9: only the top Via comes off): settles the call as {@link #onResponse} settles a
     * parsed one: Timer C stops, the other branches are cancelled, the client transaction ends, the
     * server transaction counts as answered and ends (the transport absorbs retransmitted INVITEs,
     * over UDP, RFC 6026 §7.1), and the dialog is noted for the shutdown drain. Returns the server
     * transaction whose channel the copy goes out on. Nothing changes, and null leaves the response
     * to the stack, unless it is the first final response upstream and {@link #branchFromBytes}
     * takes it.
     *
     * @param cseqNumber the sequence number of the response's CSeq (its method INVITE), or null
     * @param upstream   where the next Via sends the copy (its received and rport)
     * @param local      the listening point's socket the response came in on
     * @param over       the transport it came in on
     */
    ServerTransaction okRelayedFromBytes(ClientTransaction ct, int status, String callId, String fromTag,
                                         String toTag, String cseqNumber, InetSocketAddress upstream,
                                         InetSocketAddress local, Transport over, String to, String contact,
                                         List<String> recordRoute) {
        ProxyCall.Branch branch = branchFromBytes(ct, callId, fromTag, cseqNumber, upstream, local, over);
        if (branch == null) {
            return null;
        }
        ProxyCall call = branch.call;
        ServerTransaction st = call.st;
        List<ProxyCall.Branch> cancel = call.okFromBytes(branch, status);
        if (cancel == null) {
            return null;
        }
        stopTimerC(branch);
        endAnsweredClientTransaction(ct);
        for (ProxyCall.Branch b : cancel) {
            sendCancel(b);
        }
        ctx.relayedUpstream(st, status, call.request);
        if (call.record != null) {
            records.answered(call.record, status, over.sipName().toLowerCase(Locale.ROOT), cipherSuiteOf(ct));
        }
        if (dialogs != null) {
            dialogs.established(callId, fromTag, toTag, call.started == null || !dialogs.keepsCalls() ? null
                    : ProxyBye.describe(call.request, call.started, ctx.clock().instant(), to, contact, recordRoute,
                            over.sipName().toLowerCase(Locale.ROOT)));
            noteReInvite(call, callId, fromTag, toTag);
        }
        if (call.allDone()) {
            releaseIfCallEnded(call);
        }
        return st;
    }

    /**
     * A provisional response (101–199) to a forwarded INVITE over UDP, TCP or TLS that {@link ResponseRelay}
     * sends upstream from its bytes: settles the branch as {@link #onResponse} settles a parsed one,
     * and as the stack's INVITE client transaction does (RFC 3261 §17.1.1.2: from "Calling" to
     * "Proceeding", Timers A and B stopped): Timer C restarts (§16.7 step 2), and a CANCEL waiting
     * for this branch's first provisional response goes (§16.10). The transport keeps the copy for
     * the INVITE's retransmissions over UDP, as the server transaction would have. Returns the server
     * transaction whose channel the copy goes out on. Nothing changes, and null leaves the response
     * to the stack, under the conditions of {@link #okRelayedFromBytes}, and when a final response
     * has gone upstream already or the client transaction is neither calling nor proceeding.
     */
    ServerTransaction provisionalRelayedFromBytes(ClientTransaction ct, int status, String callId, String fromTag,
                                                  String cseqNumber, InetSocketAddress upstream,
                                                  InetSocketAddress local, Transport over) {
        ProxyCall.Branch branch = status <= Response.TRYING || status >= Response.OK ? null
                : branchFromBytes(ct, callId, fromTag, cseqNumber, upstream, local, over);
        if (branch == null || branch.call.finalSent()) {
            return null;
        }
        if (!StackInternals.proceed(ct)) {
            return null;
        }
        startTimerC(branch);
        if (branch.call.provisional(branch)) {
            sendCancel(branch);
        }
        ctx.counters().responseSent(status);
        return branch.call.st;
    }

    /**
     * The branch of {@code ct} when a response read from bytes may settle it: an INVITE client
     * transaction over {@code over} of a call whose server transaction is over the same
     * transport on the listening point the response came in on, the response matching the branch's
     * request (Call-ID, From tag, CSeq number); over UDP, the address the next Via names must be the
     * server transaction's peer (over TCP and TLS the copy goes on its connection, whatever the Via names);
     * else null.
     */
    private static ProxyCall.Branch branchFromBytes(ClientTransaction ct, String callId, String fromTag,
                                                    String cseqNumber, InetSocketAddress upstream,
                                                    InetSocketAddress local, Transport over) {
        if (!StackInternals.inviteClient(ct)
                || !(ct.getApplicationData() instanceof ProxyCall.Branch branch) || cseqNumber == null
                || !over.sipName().equalsIgnoreCase(StackInternals.transport(ct))) {
            return null;
        }
        Request sent = StackInternals.sentRequest(ct);
        ProxyCall call = branch.call;
        ServerTransaction st = call.st;
        if (sent == null || !call.invite || !callId.equals(((CallIdHeader) sent.getHeader(CallIdHeader.NAME)).getCallId())
                || !fromTag.equals(((FromHeader) sent.getHeader(FromHeader.NAME)).getTag())
                || !cseqNumber.equals(Long.toString(((CSeqHeader) sent.getHeader(CSeqHeader.NAME)).getSeqNumber()))
                || st == null || !over.sipName().equalsIgnoreCase(StackInternals.transport(st))
                || !StackInternals.receivedOn(st, local)
                || !over.reliable() && !StackInternals.peerIs(st, upstream)) {
            return null;
        }
        return branch;
    }

    /**
     * RFC 3261 §17.1.2.2: a non-INVITE client transaction over UDP waits Timer K (T4, 5 s) after
     * its final response only to absorb retransmissions of it. This proxy sends no request again
     * once a final response has arrived, so the next hop has no cause to retransmit it, and a stray
     * copy is forwarded statelessly by its Via (§16.7) to the upstream client transaction, which
     * absorbs it. Timer K of one timer tick (500 ms; zero would race the response to the proxy's
     * own handling of it) ends the transaction, with both parsed messages, that much sooner.
     */
    private static void shortTimerK(ClientTransaction ct) {
        if (StackInternals.overUdp(ct)) {
            StackInternals.shortenT4(ct);
        }
    }

    /**
     * RFC 3261 §17.1.1.2: an INVITE client transaction ends when a 2xx arrives; retransmissions of
     * the 2xx are forwarded statelessly by their Via (§16.7), as RFC 6026 §8.4 asks of a proxy. The
     * stack would keep the transaction, with both parsed messages, for 32 s more. A non-INVITE
     * client transaction ends once its final response has been relayed: Timer K only absorbs
     * retransmissions of that response ({@link #shortTimerK}), which, should one come, is
     * forwarded statelessly by its Via to the upstream client, whose transaction absorbs it.
     */
    private void endAnsweredClientTransaction(ClientTransaction ct) {
        ctx.endTransaction(ct);
    }

    /** A client transaction timed out: the branch ends with 408 (§16.7 step 2). */
    @Override
    public void onTimeout(ClientTransaction ct) {
        if (ct.getApplicationData() instanceof DestinationProber.Probe probe) {
            probe.prober.failed(probe, "timed out");
            return;
        }
        if (ct.getApplicationData() instanceof ProxyBye.Sent sent) {
            byes.answered(sent, Response.REQUEST_TIMEOUT);
            return;
        }
        ProxyCall.Branch branch = (ProxyCall.Branch) ct.getApplicationData();
        if (branch != null) {
            branchFinal(branch, Response.REQUEST_TIMEOUT, null);
        }
    }

    /**
     * A branch's request never left: the connection it waited for could not be set up (the connect
     * or the TLS handshake failed after the send returned). As if it had been answered 503 (§16.9);
     * its transaction ends. On the call's lane.
     */
    public void onNotSent(ClientTransaction ct) {
        if (ct.getApplicationData() instanceof DestinationProber.Probe probe) {
            probe.prober.failed(probe, "connection not set up");
            return;
        }
        if (ct.getApplicationData() instanceof ProxyBye.Sent sent) {
            byes.answered(sent, Response.SERVICE_UNAVAILABLE);
            return;
        }
        ProxyCall.Branch branch = (ProxyCall.Branch) ct.getApplicationData();
        if (branch == null || !branch.pending()) {
            return;
        }
        ctx.counters().error("next_hop_unreachable");
        log.debug("{}: {} not sent: its connection was not set up", branch.call.callId,
                ct.getRequest().getMethod());
        try {
            ct.terminate();
        } catch (javax.sip.ObjectInUseException e) {
            log.debug("{}: {}", branch.call.callId, e.toString());
        }
        branchFinal(branch, Response.SERVICE_UNAVAILABLE, null);
    }

    /** Starts or restarts Timer C of an INVITE branch (§16.6 step 11: reset on every provisional). */
    private void startTimerC(ProxyCall.Branch branch) {
        synchronized (branch.call) {
            if (branch.timerC != null) {
                branch.timerC.cancel(false);
            }
            if (branch.pending()) {
                try {
                    branch.timerC = timers.schedule(
                            () -> ctx.lane(branch.call.callId).execute(() -> timerCFired(branch)),
                            timerC.toMillis(), TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    // the server is stopping and its timers with it: the call ends with the process
                    branch.timerC = null;
                }
            }
        }
    }

    /** §16.8: a branch with a provisional response is cancelled; one without behaves as if it got 408. */
    private void timerCFired(ProxyCall.Branch branch) {
        ctx.counters().error("timer_c");
        if (branch.call.provisionalReceived(branch)) {
            if (branch.call.markCancelled(branch)) {
                sendCancel(branch);
            }
        } else {
            branchFinal(branch, Response.REQUEST_TIMEOUT, null);
        }
    }

    /** Stops Timer C of a branch that has its final response. */
    private static void stopTimerC(ProxyCall.Branch branch) {
        synchronized (branch.call) {
            if (branch.timerC != null) {
                branch.timerC.cancel(false);
                branch.timerC = null;
            }
        }
    }

    private void branchFinal(ProxyCall.Branch branch, int status, Response upstream) {
        ProxyCall call = branch.call;
        stopTimerC(branch);
        if (failOver(branch, status, upstream)) {
            return;
        }
        ProxyCall.Branch next = call.failover(branch, status, upstream);
        if (next != null) {
            // sequential failover: the next hop of this branch's target, a new branch (§16.6)
            Target target = branch.target;
            target.failover().outcomes().failed(branch.attempt, status);
            log.debug("{}: {} from {}, failing over to {}", call.callId, status, target.attempt(branch.attempt).hop(),
                    target.attempt(next.attempt).hop());
            Flow in = SipContext.flowOf(call.request);
            sendLocated(next, target.attempt(next.attempt), in, behindNat(call.request, in));
            return;
        }
        ProxyCall.Verdict v = call.finalResponse(branch, status, upstream);
        if (v.done()) {
            // the call's record ends with the BYE's final answer, stamped before that answer leaves, so
            // the caller's side never sees the call end before its record says it did
            recordByeAnswered(call);
        }
        for (ProxyCall.Branch b : v.cancel()) {
            sendCancel(b);
        }
        if (call.record != null && (v.forward() != null || v.synthesize() != 0)) {
            record(call, branch, v);
        }
        if (v.forward() != null) {
            // noted before it leaves, so the ACK it brings finds its dialog
            if (dialogs != null && call.invite && v.forward().getStatusCode() / 100 == 2) {
                Response ok = v.forward();
                dialogs.established(ok, call.started == null || !dialogs.keepsCalls() ? null
                        : ProxyBye.describe(call.request, call.started, ctx.clock().instant(), ProxyBye.to(ok),
                                ProxyBye.contact(ok), ProxyBye.recordRoute(ok), transportOf(branch)));
                if (toTagOf(call.request) != null) {
                    FromHeader from = (FromHeader) ok.getHeader(FromHeader.NAME);
                    noteReInvite(call, call.callId, from == null ? null : from.getTag(), toTagOf(ok));
                }
            }
            if (v.forward().getStatusCode() / 100 == 2 && call.finalSentStatus() != 0 && call.st.getState() != null
                    && call.st.getState().getValue() >= javax.sip.TransactionState._COMPLETED) {
                ctx.send(null, v.forward());
            } else {
                ctx.send(call.st, v.forward());
            }
        } else if (v.synthesize() != 0) {
            int s = v.synthesize();
            ctx.respond(call.st, call.request, s, s == Response.SERVER_INTERNAL_ERROR ? "Next Hop Unavailable" : null);
        }
        if (v.done()) {
            releaseIfCallEnded(call);
        }
    }

    /** The To tag of a message, or null. */
    private static String toTagOf(javax.sip.message.Message r) {
        ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
        return to == null ? null : to.getTag();
    }

    /** A 2xx to a re-INVITE went through: its sender's CSeq is the highest seen from it in the dialog. */
    private void noteReInvite(ProxyCall call, String callId, String fromTag, String toTag) {
        ToHeader to = (ToHeader) call.request.getHeader(ToHeader.NAME);
        CSeqHeader cseq = (CSeqHeader) call.request.getHeader(CSeqHeader.NAME);
        if (to != null && to.getTag() != null && cseq != null) {
            dialogs.seen(callId, fromTag, toTag, cseq.getSeqNumber());
        }
    }

    /** The transport of a branch's client transaction, lower case, or null. */
    private static String transportOf(ProxyCall.Branch branch) {
        String t = branch.tx == null ? null : StackInternals.transport(branch.tx);
        return t == null ? null : t.toLowerCase(Locale.ROOT);
    }

    /**
     * Tells the call's record of the final response {@code v} sends upstream: a 2xx answers the call
     * (the branch's transport and TLS suite are the callee's leg), any other ends it.
     */
    private void record(ProxyCall call, ProxyCall.Branch branch, ProxyCall.Verdict v) {
        if (v.forward() == null) {
            records.failed(call.record, v.synthesize(), false);
        } else if (v.forward().getStatusCode() / 100 == 2) {
            String transport = branch.tx != null && StackInternals.transport(branch.tx) != null
                    ? StackInternals.transport(branch.tx).toLowerCase(Locale.ROOT) : null;
            records.answered(call.record, v.forward().getStatusCode(), transport, cipherSuiteOf(branch.tx));
        } else if (v.forward().getStatusCode() >= 300) {
            records.failed(call.record, v.forward().getStatusCode(), true);
        }
    }

    /** The TLS suite of the connection a client transaction's request went over, or null (not TLS, or not known). */
    private static String cipherSuiteOf(ClientTransaction ct) {
        Flow.Carrier c = ct == null ? null : StackInternals.carrierOf(ct);
        return c == null ? null : c.cipherSuite();
    }

    /** Ends the call's record when {@code call} is a BYE (the one through the stack; the transport's relays end theirs). */
    private void recordByeAnswered(ProxyCall call) {
        if (records != null && Request.BYE.equals(call.request.getMethod())) {
            FromHeader from = (FromHeader) call.request.getHeader(FromHeader.NAME);
            records.byeRelayed(call.callId, from == null ? null : from.getTag());
        }
    }

    /** Closes per-call connections when the dialog ends: BYE answered, INVITE failed, or a non-dialog request done. */
    private void releaseIfCallEnded(ProxyCall call) {
        String method = call.request.getMethod();
        ToHeader to = (ToHeader) call.request.getHeader(ToHeader.NAME);
        boolean inDialog = to != null && to.getTag() != null;
        boolean ended = Request.BYE.equals(method)
                || call.invite && !inDialog && call.finalSentStatus() >= 300
                || !call.invite && !inDialog && !Request.SUBSCRIBE.equals(method);
        if (dialogs != null && Request.BYE.equals(method)) {
            dialogs.ended(call.request);
        }
        if (ended) {
            ctx.calls().releaseCall(call.callId);
        }
    }

    private Response upstreamCopy(Response response) {
        Response up = (Response) response.clone();
        up.removeFirst(ViaHeader.NAME);
        return up;
    }

    private void sendCancel(ProxyCall.Branch branch) {
        if (branch.tx == null) {
            return;
        }
        try (ConnectionScope scope = ConnectionScope.call(branch.call.callId)) {
            Request cancel = branch.tx.createCancel();
            // §9.1: the CANCEL goes where its INVITE went, from the same listening point
            ClientTransaction ct = StackInternals.providerOf(branch.tx).getNewClientTransaction(cancel);
            shortTimerK(ct);
            ct.sendRequest();
            ctx.counters().forwarded(Request.CANCEL);
        } catch (SipException | RuntimeException e) {
            ctx.counters().error("cancel_failed");
            log.debug("{}: cannot send CANCEL: {}", branch.call.callId, e.toString());
        }
    }

    /**
     * A response without a client transaction (a 2xx retransmission): forwarded by its Via, when
     * its top Via is ours with a branch this server wrote for a request whose response goes where
     * the next Via says ({@link LoopDetector#vouchesFor}); any other is dropped and counted, so a
     * forged response is never reflected to an address the request did not come from.
     */
    private void forwardStateless(Response response) {
        ViaHeader top = (ViaHeader) response.getHeader(ViaHeader.NAME);
        if (top == null || !ctx.local().isLocal(top.getHost(), top.getPort())) {
            ctx.counters().error("stray_response");
            return;
        }
        ListIterator<?> vias = response.getHeaders(ViaHeader.NAME);
        vias.next();
        ViaHeader next = vias.hasNext() ? (ViaHeader) vias.next() : null;
        if (next == null || !loops.vouchesFor(top.getBranch(), LoopDetector.returnPath(next))) {
            ctx.counters().error("unvouched_response");
            return;
        }
        Response up = upstreamCopy(response);
        if (up.getHeader(ViaHeader.NAME) == null) {
            return;
        }
        ctx.send(null, up);
    }

    /** CANCEL (§16.10): answered here with 200, then sent on every branch of the INVITE. */
    @Override
    public void onCancel(Request cancel, ServerTransaction st) {
        ServerTransaction invite = ctx.answerCancel(cancel, st);
        if (invite == null) {
            return;
        }
        Object data = invite.getApplicationData();
        if (data instanceof ProxyCall call) {
            if (call.record != null) {
                records.cancelled(call.record);
            }
            for (ProxyCall.Branch b : call.cancel()) {
                sendCancel(b);
            }
        }
    }

    /**
     * ACK for a 2xx: forwarded statelessly (§16.11) along its Route set or to its Request-URI, with
     * Max-Forwards (added when missing, §16.6 step 3) and a loop check (§16.3 step 4) as any request,
     * so an ACK addressed back to this server cannot go round. A next hop named by a host name is
     * located first (RFC 3263), off the lane; one that cannot be located drops the ACK, counted in
     * {@code sip.requests.dropped{reason=ack_unresolved}}.
     */
    @Override
    public void onAck(Request ack) {
        if (loops.isLoop(ack)) {
            ctx.counters().error("ack_loop");
            return;
        }
        FlowTokens.Token token = null;
        String tokenText = ownFlowToken(ack);
        if (tokenText != null) {
            token = flowTokens.read(tokenText);
            if (token == null) {
                ctx.counters().flowFailed("bad_token");
                ctx.counters().dropped("ack_bad_flow_token");
                return;
            }
        }
        Request out = (Request) ack.clone();
        popOwnRoutes(out);
        FlowTokens.Token.Leg leg = token == null ? null : token.otherThan(SipContext.flowOf(ack));
        Flow flow = null;
        if (leg != null && ctx.calls().flowOpen(leg.flow())) {
            flow = leg.flow();
        } else if (leg != null && leg.required()) {
            ctx.counters().flowFailed("closed_in_dialog");
            ctx.counters().dropped("ack_flow_closed");
            return;
        }
        if (flow == null && out.getHeader(RouteHeader.NAME) == null && ctx.local().isLocal(out.getRequestURI())) {
            return;
        }
        if (flow == null && !reachable(out)) {
            // RFC 3261 §16.5, §25.1: no SIP URI with a host of the grammar (a dotted quad out of range,
            // say) to send to: dropped here, counted, before the stack looks it up (by DNS) or fails on it
            ctx.counters().dropped("ack_bad_target");
            return;
        }
        SipServerLocator dns = locator;
        SipURI named = flow != null || dns == null ? null : namedNextHop(out, Target.AS_ADDRESSED);
        if (named != null) {
            // RFC 3263: its next hop is a name, located off the lane (each retransmission finds it cached)
            locate(dns, named).whenCompleteAsync((hops, failure) -> {
                if (failure != null) {
                    ctx.counters().dropped("ack_unresolved");
                    log.debug("{}: ACK not forwarded, next hop not located: {}", callId(ack), failure.getMessage());
                } else {
                    forwardAck(ack, out, null, hops.get(0));
                }
            }, ctx.lane(callId(ack)));
            return;
        }
        forwardAck(ack, out, flow, null);
    }

    /**
     * Sends the ACK {@code out} (a copy of {@code ack}, our Route entries off) over {@code flow}, to
     * {@code to} when DNS located its next hop, or where its Route or Request-URI say.
     */
    private void forwardAck(Request ack, Request out, Flow flow, Destination to) {
        try {
            MaxForwardsHeader mf = (MaxForwardsHeader) out.getHeader(MaxForwardsHeader.NAME);
            if (mf == null) {
                out.setHeader(ctx.headers().createMaxForwardsHeader(BranchRewriter.DEFAULT_MAX_FORWARDS));
            } else {
                if (mf.getMaxForwards() <= 0) {
                    return;
                }
                mf.decrementMaxForwards();
            }
            Transport t = flow != null ? flow.transport() : to != null ? to.transport()
                    : BranchRewriter.outgoingTransport(out);
            ListeningPoints.Entry from = flow != null ? ctx.listeningPoints().at(t, flow.local()) : null;
            if (from == null) {
                from = ctx.listeningPoints().toward(t, flow != null ? flow.remote().getAddress().getHostAddress()
                        : to != null ? to.address().getAddress().getHostAddress() : BranchRewriter.nextHopHost(out));
            }
            if (from == null) {
                ctx.counters().error("no_listener_for_ack");
                return;
            }
            out.addFirst(ctx.via(from.listener(), loops.statelessBranch(ack)));
            // RFC 5626 §5.3: over the other side's flow, or to the located next hop, marked for the stack's router
            StackInternals.attach(out, flow != null ? flow : to);
            try (ConnectionScope scope = flow != null ? ConnectionScope.flow(callId(ack))
                    : ConnectionScope.call(callId(ack))) {
                from.provider().sendRequest(out);
            }
            ctx.counters().forwarded(Request.ACK);
        } catch (ParseException | InvalidArgumentException | SipException | RuntimeException e) {
            ctx.counters().error("ack_forward");
            log.debug("{}: cannot forward ACK: {}", callId(ack), e.toString());
        }
    }

    /**
     * Whether the next hop of an ACK whose own Route entries are off, its first Route entry or
     * else its Request-URI, is a sip or sips URI whose host (and {@code maddr}, if any) is a host of
     * RFC 3261 §25.1: a host name whose last label starts with a letter, an IPv4 address of four
     * numbers up to 255, or an IPv6 reference.
     */
    static boolean reachable(Request ack) {
        RouteHeader route = (RouteHeader) ack.getHeader(RouteHeader.NAME);
        URI next = route != null ? route.getAddress().getURI() : ack.getRequestURI();
        if (!(next instanceof SipURI sip) || !host(sip.getHost())) {
            return false;
        }
        String maddr = sip.getMAddrParam();
        return maddr == null || host(maddr);
    }

    /** Whether {@code h} is a host of RFC 3261 §25.1 (hostname / IPv4address / IPv6reference). */
    static boolean host(String h) {
        if (h == null || h.isEmpty()) {
            return false;
        }
        if (h.charAt(0) == '[') {
            return h.endsWith("]") && h.length() > 2 && h.substring(1, h.length() - 1).chars()
                    .allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0);
        }
        String name = h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
        String[] labels = name.split("\\.", -1);
        boolean dottedQuad = labels.length == 4;
        for (String label : labels) {
            if (label.isEmpty() || label.startsWith("-") || label.endsWith("-")
                    || !label.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '-'))) {
                return false;
            }
            dottedQuad &= label.length() <= 3 && label.chars().allMatch(Character::isDigit)
                    && Integer.parseInt(label) <= 255;
        }
        // a host name's last label starts with a letter; anything else must be an IPv4 address
        return dottedQuad || Character.isLetter(labels[labels.length - 1].charAt(0));
    }

    private static String callId(Request r) {
        return ((CallIdHeader) r.getHeader(CallIdHeader.NAME)).getCallId();
    }
}
