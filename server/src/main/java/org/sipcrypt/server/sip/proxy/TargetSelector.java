package org.sipcrypt.server.sip.proxy;

import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.cdr.CallRecords;
import org.sipcrypt.server.location.Binding;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.registrar.PathVector;
import org.sipcrypt.server.sip.registrar.RegisteredFlows;
import org.sipcrypt.server.sip.registrar.Registrar;
import org.sipcrypt.server.transport.Flow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Determines the targets of a proxied request (RFC 3261 §16.5): a Route left after this proxy's own
 * entries were removed, a static route for the Request-URI's domain, the location service for an
 * address of our own domain (404 for an address that never registered, 480 for one with no live
 * binding, 503 when the database fails; a binding is reached through its Path when it has one, over
 * its flow where it must be, and 430 or 480 answer a binding whose flow has failed, see
 * {@link #target}), the default route for a request outside a dialog, or else
 * the Request-URI itself; a route or the default route may name a destination set instead of a host
 * ({@link #toSet}). Answers the request itself when there is no target.
 * Threading: thread-safe; runs on SIP worker lanes, location lookups complete on the call's lane;
 * never waits for the database.
 */
final class TargetSelector {

    private static final Logger log = LoggerFactory.getLogger(TargetSelector.class);

    private final SipContext ctx;
    private final LocationService location;
    private final LiveRoutes routes;
    private final CallRecords records;

    /**
     * @param routes  the routes and the destination sets they name, in force now
     * @param records the calls in progress, whose records a refusal here ends; null when none are recorded
     */
    TargetSelector(SipContext ctx, LocationService location, LiveRoutes routes, CallRecords records) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.location = Objects.requireNonNull(location, "location");
        this.routes = Objects.requireNonNull(routes, "routes");
        this.records = records;
    }

    /**
     * Hands {@code forward} the one target through the destination set {@code name} of {@code sets} (the
     * sets in force when the routes or a router named it): its live destinations, tried one after another
     * ({@link Failover}); answers 503 with Retry-After when none is up, 500 when there is no such set.
     */
    void toSet(ProxyCall call, Request fwd, DestinationSets sets, String name, Consumer<List<Target>> forward) {
        if (sets.set(name).isEmpty()) {
            ctx.counters().error("no_such_destination_set");
            log.debug("{}: no destination set {}", call.callId, name);
            refuse(call, Response.SERVER_INTERNAL_ERROR, "No Such Destination Set");
            return;
        }
        FromHeader from = (FromHeader) fwd.getHeader(FromHeader.NAME);
        Failover failover = sets.failover(name, call.callId, from == null ? "" : from.getAddress().getURI().toString());
        if (failover == null) {
            ctx.counters().error("no_live_destination");
            refuse(call, Response.SERVICE_UNAVAILABLE, "No Destination Available", ctx.retryAfter());
            return;
        }
        forward.accept(List.of(Target.through(failover)));
    }

    /** Answers the call's request itself, with no target to forward it to; its call record, if any, ends. */
    private void refuse(ProxyCall call, int status, Header... extra) {
        refuse(call, status, null, extra);
    }

    private void refuse(ProxyCall call, int status, String reason, Header... extra) {
        if (records != null && call.record != null) {
            records.failed(call.record, status, false);
        }
        ctx.respond(call.st, call.request, status, reason, extra);
    }

    /**
     * Hands the targets of {@code fwd} (the request with this proxy's Route entries removed) to
     * {@code forward}, on the call's lane, or answers {@code call}'s request when there are none.
     */
    void select(ProxyCall call, Request fwd, Consumer<List<Target>> forward) {
        if (fwd.getHeader(RouteHeader.NAME) != null) {
            forward.accept(List.of(Target.AS_ADDRESSED));
            return;
        }
        URI ruri = fwd.getRequestURI();
        if (!(ruri instanceof SipURI sip)) {
            refuse(call, Response.UNSUPPORTED_URI_SCHEME);
            return;
        }
        // one read: the route and the set it names come from the same reload
        LiveRoutes.InForce now = routes.current();
        RouteTable table = now.table();
        var routed = table.forDomain(sip.getHost());
        var routedToSet = table.setForDomain(sip.getHost());
        if (routed.isPresent()) {
            forward.accept(List.of(Target.via(routed.get())));
        } else if (routedToSet.isPresent()) {
            toSet(call, fwd, now.sets(), routedToSet.get(), forward);
        } else if (ctx.local().isLocal(sip) || ctx.local().isLocalDomain(sip.getHost()) && sip.getUser() != null
                && isOurPortOrNone(sip)) {
            lookup(call, sip, forward);
        } else if (table.defaultRoute().isPresent() && !inDialog(fwd)) {
            // RFC 3261 §12.2.1.1: a mid-dialog request whose route set ends here goes to the
            // dialog's remote target, not through the default route (a detour, or a loop back)
            forward.accept(List.of(Target.via(table.defaultRoute().get())));
        } else if (table.defaultSet().isPresent() && !inDialog(fwd)) {
            toSet(call, fwd, now.sets(), table.defaultSet().get(), forward);
        } else {
            forward.accept(List.of(Target.AS_ADDRESSED));
        }
    }

    /** RFC 5626 §11.4: the flow a request had to take has failed. */
    static final int FLOW_FAILED = 430;

    /**
     * How a binding is reached. One with a Path (RFC 3327 §5.4) through it: the Path is the Route
     * set, so the request goes to its first hop (the edge proxy the phone registered through),
     * whatever the binding's flow. Else (RFC 5626 §5.3; Kamailio's {@code fix_nated_register} and TCP
     * connection reuse): over TCP and TLS on the connection it registered over while that is open;
     * over UDP from behind a NAT (or as an outbound binding) to the address its REGISTER came from;
     * else at its Contact. Null when it cannot be reached: its connection has closed and it is an
     * outbound binding or one behind a NAT, whose Contact nothing outside can reach (counted in
     * {@code sip.flows.failed{reason=closed}}). The Request-URI is the Contact either way.
     */
    private Target target(Binding b, URI contact) {
        if (b.path() != null) {
            List<String> path = PathVector.split(b.path());
            if (!path.isEmpty()) {
                return Target.through(contact, path);
            }
        }
        Flow flow = Flow.parse(b.flow());
        boolean required = RegisteredFlows.flowRequired(b);
        if (RegisteredFlows.usable(flow, required, ctx.calls())) {
            return Target.over(contact, flow, required);
        }
        if (flow == null || !required) {
            return Target.to(contact);
        }
        ctx.counters().flowFailed("closed");
        log.debug("{}: the flow of {} has closed ({})", b.aor(), b.contact(), flow);
        return null;
    }

    private static boolean inDialog(Request r) {
        ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
        return to != null && to.getTag() != null;
    }

    private boolean isOurPortOrNone(SipURI sip) {
        return sip.getPort() <= 0 || ctx.local().isLocal(sip.getHost(), sip.getPort());
    }

    /** The contacts bound to the address-of-record, most preferred first (RFC 3261 §16.5, §10). */
    private void lookup(ProxyCall call, SipURI ruri, Consumer<List<Target>> forward) {
        String aor = Registrar.aor(ruri);
        if (aor == null) {
            refuse(call, Response.NOT_FOUND);
            return;
        }
        location.lookup(aor, ctx.clock().instant()).whenCompleteAsync((result, failure) -> {
            if (failure != null) {
                ctx.counters().dbError();
                log.debug("{}: location lookup failed: {}", aor, failure.toString());
                refuse(call, Response.SERVICE_UNAVAILABLE, "Location Service Unavailable",
                        ctx.retryAfter());
            } else if (call.cancelled()) {
                refuse(call, Response.REQUEST_TERMINATED);
            } else if (!result.known()) {
                refuse(call, Response.NOT_FOUND);
            } else if (result.bindings().isEmpty()) {
                refuse(call, Response.TEMPORARILY_UNAVAILABLE);
            } else {
                List<Target> targets = new ArrayList<>(result.bindings().size());
                boolean onlyOutboundFailed = true;
                for (Binding b : result.bindings()) {
                    URI contact;
                    try {
                        contact = ctx.addresses().createURI(b.contact());
                    } catch (ParseException e) {
                        ctx.counters().error("bad_binding");
                        log.warn("{}: stored contact {} does not parse: {}", aor, b.contact(), e.getMessage());
                        onlyOutboundFailed = false;
                        continue;
                    }
                    Target t = target(b, contact);
                    if (t != null) {
                        targets.add(t);
                    } else {
                        onlyOutboundFailed &= b.outbound();
                    }
                }
                if (targets.isEmpty()) {
                    // RFC 5626 §5.3: an outbound binding whose flow has failed is answered 430
                    refuse(call, onlyOutboundFailed ? FLOW_FAILED : Response.TEMPORARILY_UNAVAILABLE,
                            onlyOutboundFailed ? "Flow Failed" : null);
                } else {
                    forward.accept(targets);
                }
            }
        }, ctx.lane(call.callId));
    }
}
