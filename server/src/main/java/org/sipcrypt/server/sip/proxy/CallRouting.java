package org.sipcrypt.server.sip.proxy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.routing.CallRouter;
import org.sipcrypt.server.routing.CallRouters;
import org.sipcrypt.server.routing.RouteDecision;
import org.sipcrypt.server.routing.RouteRequest;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.transport.Flow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offers each new out-of-dialog request the proxy routes (no To tag, not REGISTER, no Route left after
 * this proxy's own entries came off) to the operator's {@link CallRouter}s, in order, and carries out the
 * first decision other than continue: forward to its targets (RFC 3261 §16.5) or a destination set, redirect (§21.3), reject,
 * or route as without routers. The routers run on the {@code sipcrypt-router} pool; the call's lane never
 * waits: the decision comes back on the lane, as location lookups do. A router that throws, fails its
 * stage, returns null or a target that does not parse gets the request a 500; routers undecided after
 * {@code routing.timeout} a 504; a full router queue a 503 with Retry-After. Every outcome is counted in
 * {@code routing.decisions{router,decision}} (decision: proxy, redirect, reject, continue, error, timeout,
 * overloaded).
 * Threading: thread-safe; {@link #route} on SIP worker lanes, routers on the {@code sipcrypt-router}
 * threads, decisions carried out on the call's lane; never blocks.
 */
public final class CallRouting {

    private static final Logger log = LoggerFactory.getLogger(CallRouting.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final SipContext ctx;
    private final List<CallRouter> routers;
    private final Duration timeout;
    private final Executor executor;
    private final ScheduledExecutorService timers;
    private final MeterRegistry registry;
    private final LiveRoutes sets;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final AtomicLong lastWarn = new AtomicLong(System.nanoTime() - WARN_INTERVAL_NANOS);

    /**
     * @param executor the {@code sipcrypt-router} pool the routers run on (bounded; a full queue is a 503)
     * @param timers   where the {@code routing.timeout} runs (its task only completes a future)
     */
    public CallRouting(SipContext ctx, CallRouters routers, Duration timeout, Executor executor,
                       ScheduledExecutorService timers, MeterRegistry registry) {
        this(ctx, routers, timeout, executor, timers, registry,
                new LiveRoutes(new RouteTable(List.of(), null), DestinationSets.NONE));
    }

    /** @param sets the routes in force, whose destination sets a router may name ({@link RouteDecision#proxyToSet}) */
    public CallRouting(SipContext ctx, CallRouters routers, Duration timeout, Executor executor,
                       ScheduledExecutorService timers, MeterRegistry registry, LiveRoutes sets) {
        this.sets = Objects.requireNonNull(sets, "sets");
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.routers = Objects.requireNonNull(routers, "routers").routers();
        if (this.routers.isEmpty()) {
            throw new IllegalArgumentException("routers: none");
        }
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.timers = Objects.requireNonNull(timers, "timers");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Whether routers see {@code fwd} (the request with this proxy's Route entries off): see the class comment. */
    static boolean offered(Request fwd) {
        ToHeader to = (ToHeader) fwd.getHeader(ToHeader.NAME);
        return !Request.REGISTER.equals(fwd.getMethod()) && fwd.getHeader(RouteHeader.NAME) == null
                && to != null && to.getTag() == null;
    }

    /**
     * Has the routers decide {@code fwd}'s targets; on the call's lane, hands them to {@code forward},
     * runs {@code byDefault} for continue, hands {@code toSet} the destination sets in force and the name
     * of one of them (checked present in those very sets, whatever a reload does meanwhile), or answers
     * the request.
     *
     * @param identity the user the request authenticated as, or null
     */
    void route(ProxyCall call, Request fwd, String identity, Consumer<List<Target>> forward, Runnable byDefault,
               BiConsumer<DestinationSets, String> toSet) {
        RouteRequest request = view(call.request, fwd, identity);
        Attempt attempt = new Attempt(request);
        ScheduledFuture<?> timer = null;
        try {
            timer = timers.schedule(() -> attempt.result.completeExceptionally(new RouterTimeout()),
                    timeout.toMillis(), TimeUnit.MILLISECONDS);
            executor.execute(() -> attempt.ask(0));
        } catch (RejectedExecutionException e) {
            // a full router queue, or the server stopping and its timers with it
            if (timer != null) {
                timer.cancel(false);
            }
            count(routers.get(0).name(), "overloaded");
            ctx.respond(call.st, call.request, Response.SERVICE_UNAVAILABLE, "Router Overloaded", ctx.retryAfter());
            return;
        }
        ScheduledFuture<?> started = timer;
        attempt.result.whenCompleteAsync((decided, failure) -> {
            started.cancel(false);
            settle(call, attempt, decided, failure, forward, byDefault, toSet);
        }, ctx.lane(call.callId));
    }

    /** Carries out a decision, on the call's lane. */
    private void settle(ProxyCall call, Attempt attempt, Decided decided, Throwable failure,
                        Consumer<List<Target>> forward, Runnable byDefault,
                        BiConsumer<DestinationSets, String> toSet) {
        if (failure instanceof RouterTimeout) {
            count(attempt.asking, "timeout");
            warn("router {} undecided after {} ms: request answered 504", attempt.asking, timeout.toMillis());
            respondUnlessCancelled(call, Response.SERVER_TIMEOUT, "Router Timeout");
            return;
        }
        if (failure != null) {
            Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof RejectedExecutionException) {
                count(attempt.asking, "overloaded");
                if (call.cancelled()) {
                    ctx.respond(call.st, call.request, Response.REQUEST_TERMINATED);
                } else {
                    ctx.respond(call.st, call.request, Response.SERVICE_UNAVAILABLE, "Router Overloaded",
                            ctx.retryAfter());
                }
                return;
            }
            count(attempt.asking, "error");
            warn("router {} failed: {}", attempt.asking, cause.toString());
            respondUnlessCancelled(call, Response.SERVER_INTERNAL_ERROR, "Router Failed");
            return;
        }
        if (call.cancelled()) {
            ctx.respond(call.st, call.request, Response.REQUEST_TERMINATED);
            return;
        }
        RouteDecision d = decided.decision();
        String router = decided.router();
        try {
            if (d instanceof RouteDecision.Proxy p) {
                List<Target> targets = new ArrayList<>(p.targets().size());
                for (String t : p.targets()) {
                    targets.add(Target.to(sipUri(t)));
                }
                count(router, "proxy");
                forward.accept(targets);
            } else if (d instanceof RouteDecision.ProxyToSet p) {
                DestinationSets inForce = sets.current().sets();
                if (inForce.set(p.set()).isEmpty()) {
                    count(router, "error");
                    warn("router {} decided on destination set {}, which is not configured", router, p.set());
                    ctx.respond(call.st, call.request, Response.SERVER_INTERNAL_ERROR, "Router Failed");
                    return;
                }
                count(router, "proxy");
                toSet.accept(inForce, p.set());
            } else if (d instanceof RouteDecision.Redirect r) {
                List<Header> contacts = new ArrayList<>(r.contacts().size());
                for (String c : r.contacts()) {
                    ContactHeader h = ctx.headers().createContactHeader(ctx.addresses().createAddress(sipUri(c)));
                    contacts.add(h);
                }
                count(router, "redirect");
                ctx.respond(call.st, call.request, r.status(), contacts.toArray(new Header[0]));
            } else if (d instanceof RouteDecision.Reject r) {
                count(router, "reject");
                ctx.respond(call.st, call.request, r.status(), r.reason());
            } else {
                byDefault.run();
            }
        } catch (ParseException e) {
            count(router, "error");
            warn("router {} decided on a URI that does not parse: {}", router, e.getMessage());
            ctx.respond(call.st, call.request, Response.SERVER_INTERNAL_ERROR, "Router Failed");
        }
    }

    /** RFC 3261 §16.10: an INVITE cancelled while the routers decided gets 487, whatever they did. */
    private void respondUnlessCancelled(ProxyCall call, int status, String reason) {
        if (call.cancelled()) {
            ctx.respond(call.st, call.request, Response.REQUEST_TERMINATED);
        } else {
            ctx.respond(call.st, call.request, status, reason);
        }
    }

    /** A sip or sips URI in text form, parsed. */
    private SipURI sipUri(String text) throws ParseException {
        URI uri = ctx.addresses().createURI(text);
        if (!(uri instanceof SipURI sip)) {
            throw new ParseException("not a sip or sips URI: " + text, 0);
        }
        return sip;
    }

    private void count(String router, String decision) {
        counters.computeIfAbsent(router + '\n' + decision, k -> Counter.builder("routing.decisions")
                .description("Decisions of the routing SPI's routers on new out-of-dialog requests")
                .tag("router", router).tag("decision", decision).register(registry)).increment();
    }

    /** A WARN at most once a minute (a failing router fails at the request rate); DEBUG otherwise. */
    private void warn(String format, Object... args) {
        long now = System.nanoTime();
        long last = lastWarn.get();
        if (now - last >= WARN_INTERVAL_NANOS && lastWarn.compareAndSet(last, now)) {
            log.warn(format, args);
        } else {
            log.debug(format, args);
        }
    }

    /** What routers see of a request: {@code fwd}'s Request-URI and headers, {@code received}'s source. */
    static RouteRequest view(Request received, Request fwd, String identity) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Iterator<?> names = fwd.getHeaderNames(); names.hasNext(); ) {
            String name = (String) names.next();
            List<String> values = new ArrayList<>(1);
            for (ListIterator<?> it = fwd.getHeaders(name); it.hasNext(); ) {
                Object h = it.next();
                values.add(StackInternals.value((Header) h));
            }
            headers.put(name.toLowerCase(Locale.ROOT), values);
        }
        Flow flow = SipContext.flowOf(received);
        InetSocketAddress source;
        String transport;
        if (flow != null) {
            source = flow.remote();
            transport = flow.transport().configName();
        } else {
            source = StackInternals.remote(received);
            ViaHeader via = (ViaHeader) received.getHeader(ViaHeader.NAME);
            transport = via == null ? "udp" : via.getTransport().toLowerCase(Locale.ROOT);
        }
        return new RouteRequest(fwd.getMethod(), fwd.getRequestURI().toString(),
                ((FromHeader) fwd.getHeader(FromHeader.NAME)).getAddress().getURI().toString(),
                ((ToHeader) fwd.getHeader(ToHeader.NAME)).getAddress().getURI().toString(),
                ((CallIdHeader) fwd.getHeader(CallIdHeader.NAME)).getCallId(), headers, source, transport,
                Optional.ofNullable(identity));
    }

    /** The router that decided, or null when all continued, and its decision. */
    private record Decided(String router, RouteDecision decision) {
    }

    /** A routing timeout; no stack trace (it comes at the request rate when a router hangs). */
    private static final class RouterTimeout extends Exception {
        RouterTimeout() {
            super("routing.timeout", null, false, false);
        }
    }

    /**
     * One request's way through the routers.
     * Threading: {@link #ask} on router threads and on the threads completing routers' stages, one
     * router at a time; {@link #result} completes once.
     */
    private final class Attempt {
        final RouteRequest request;
        final CompletableFuture<Decided> result = new CompletableFuture<>();
        volatile String asking;

        Attempt(RouteRequest request) {
            this.request = request;
            this.asking = routers.get(0).name();
        }

        /** Asks router {@code i}; on continue, the next one, on a router thread. */
        void ask(int i) {
            if (result.isDone()) {
                return;
            }
            CallRouter router = routers.get(i);
            asking = router.name();
            CompletionStage<RouteDecision> stage;
            try {
                stage = Objects.requireNonNull(router.route(request), "route returned null");
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
            }
            stage.whenComplete((d, failure) -> {
                if (failure != null || d == null) {
                    result.completeExceptionally(failure != null ? failure : new NullPointerException("decision null"));
                } else if (!(d instanceof RouteDecision.Continue)) {
                    result.complete(new Decided(router.name(), d));
                } else {
                    count(router.name(), "continue");
                    if (i + 1 == routers.size()) {
                        result.complete(new Decided(null, d));
                    } else {
                        try {
                            executor.execute(() -> ask(i + 1));
                        } catch (RejectedExecutionException e) {
                            result.completeExceptionally(e);
                        }
                    }
                }
            });
        }
    }
}
