package org.sipcrypt.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.text.ParseException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import org.sipcrypt.server.sip.proxy.EstablishedCall;
import org.sipcrypt.server.sip.proxy.EstablishedDialogs;
import org.sipcrypt.server.sip.proxy.ProxyBye;
import org.sipcrypt.server.sip.registrar.Registrar;

/**
 * The management API's paths that act on the running server rather than on bindings: the
 * established calls ({@code /admin/calls}), the routes reload ({@code /admin/routes/reload}), the drain
 * ({@code /admin/drain}) and the stop ({@code /admin/stop}), each answering as {@link AdminApi}
 * describes once its caller is authorized there.
 * Threading: thread-safe; never blocks (a call listing is made on {@link AdminApi.Control#work}, a
 * call's ending on its SIP lane, a routes reload on the housekeeping thread).
 */
final class AdminControl {

    private final AdminApi api;
    private final AdminApi.Control control;
    private final ObjectMapper mapper = new ObjectMapper();

    AdminControl(AdminApi api, AdminApi.Control control) {
        this.api = Objects.requireNonNull(api, "api");
        this.control = Objects.requireNonNull(control, "control");
    }

    /**
     * {@code /admin/calls}: GET lists the established calls ({@code aor} or {@code callId} to filter,
     * {@code limit}); DELETE with {@code callId} ends that call with the proxy's BYEs. 404 when this
     * server keeps no established calls.
     */
    CompletableFuture<HttpEndpoints.Answer> calls(String method, Map<String, String> params, byte[] body,
                                                          String caller) throws AdminApi.BadRequest {
        if (!method.equals("GET") && !method.equals("DELETE")) {
            return CompletableFuture.completedFuture(
                    new HttpEndpoints.Answer(405, AdminApi.TEXT, "method " + method + " not allowed\n", "GET, DELETE"));
        }
        ProxyBye calls = control.calls();
        if (calls == null) {
            return CompletableFuture.completedFuture(AdminApi.text(404, "no established calls are kept here: only a proxy"
                    + " (mode=proxy) with recordRoute on and shutdown.maxDialogs above 0 keeps them"));
        }
        String callId = params.get("callId");
        if (callId != null && (callId.isBlank() || callId.length() > 256)) {
            throw new AdminApi.BadRequest("callId: 1 to 256 characters");
        }
        if (method.equals("DELETE")) {
            if (callId == null) {
                throw new AdminApi.BadRequest("callId is missing: DELETE /admin/calls?callId=... ends one call");
            }
            return calls.end(callId).handle((ended, e) -> {
                if (e != null) {
                    return AdminApi.text(503, "the call's lane did not take the work: " + AdminApi.rootMessage(e));
                }
                if (ended.isEmpty()) {
                    return AdminApi.text(404, "no established call with Call-ID " + callId);
                }
                ObjectNode out = mapper.createObjectNode();
                out.put("callId", callId);
                ArrayNode list = out.putArray("ended");
                for (ProxyBye.Ended x : ended) {
                    ObjectNode o = list.addObject();
                    o.put("byeToCaller", x.callerBye());
                    o.put("caller", x.toCaller());
                    o.put("byeToCallee", x.calleeBye());
                    o.put("callee", x.toCallee());
                }
                return api.json(200, out);
            });
        }
        String aor = params.get("aor") == null ? null : Registrar.aor(api.uri(params.get("aor"), "aor"));
        if (params.get("aor") != null && aor == null) {
            throw new AdminApi.BadRequest("aor: a sip or sips URI with a user part, e.g. sip:alice@example.com");
        }
        int limit = limit(params.get("limit"));
        Predicate<EstablishedCall> filter = c -> (callId == null || callId.equals(c.callId()))
                && (aor == null || aor.equals(aorOf(c.caller())) || aor.equals(aorOf(c.callee())));
        try {
            return CompletableFuture.supplyAsync(() -> api.json(200, listing(calls.calls(filter, limit))), control.work());
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(AdminApi.text(503, "the server is stopping"));
        }
    }

    private static int limit(String text) throws AdminApi.BadRequest {
        if (text == null) {
            return AdminApi.DEFAULT_CALLS_LIMIT;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 1 && n <= AdminApi.MAX_CALLS_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new AdminApi.BadRequest("limit: a whole number from 1 to " + AdminApi.MAX_CALLS_LIMIT);
    }

    /** The canonical AOR of a URI kept as text, or null. */
    private String aorOf(String uri) {
        try {
            return uri == null ? null : Registrar.aor(api.uris().createURI(uri));
        } catch (ParseException e) {
            return null;
        }
    }

    private ObjectNode listing(EstablishedDialogs.Listing listing) {
        ObjectNode out = mapper.createObjectNode();
        ArrayNode list = out.putArray("calls");
        for (EstablishedCall c : listing.calls()) {
            ObjectNode o = list.addObject();
            o.put("callId", c.callId());
            o.put("caller", c.caller());
            o.put("callee", c.callee());
            o.put("from", c.from());
            o.put("to", c.to());
            o.put("callerContact", c.callerContact());
            o.put("calleeContact", c.calleeContact());
            o.put("start", c.start() == null ? null : c.start().toString());
            o.put("answer", c.answer() == null ? null : c.answer().toString());
            o.put("inTransport", c.inTransport());
            o.put("outTransport", c.outTransport());
            o.put("callerFlow", c.callerFlow() == null ? null : c.callerFlow().text());
        }
        out.put("truncated", listing.truncated());
        return out;
    }

    /** {@code POST /admin/routes/reload}: 200 with the routes and destination sets in force now, 409 with why not. */
    CompletableFuture<HttpEndpoints.Answer> reloadRoutes(String method, String caller) {
        if (!method.equals("POST")) {
            return CompletableFuture.completedFuture(
                    new HttpEndpoints.Answer(405, AdminApi.TEXT, "method " + method + " not allowed\n", "POST"));
        }
        if (control.routes() == null) {
            return CompletableFuture.completedFuture(AdminApi.text(404, "this server has no routes to reload"));
        }
        return control.routes().reload("admin " + caller).thenApply(r -> {
            ObjectNode out = mapper.createObjectNode();
            out.put("reloaded", r.ok());
            out.put(r.ok() ? "source" : "reason", r.message());
            if (r.routes() != null) {
                ArrayNode list = out.putArray("routes");
                r.routes().forEach(list::add);
            }
            if (r.sets() != null) {
                ArrayNode list = out.putArray("sets");
                r.sets().forEach(list::add);
            }
            return api.json(r.ok() ? 200 : 409, out);
        });
    }

    /** {@code POST /admin/drain[?listener=..]}: what {@link AdminApi.Drain#drain} did. */
    CompletableFuture<HttpEndpoints.Answer> drain(String method, Map<String, String> params, String caller) {
        if (!method.equals("POST")) {
            return CompletableFuture.completedFuture(
                    new HttpEndpoints.Answer(405, AdminApi.TEXT, "method " + method + " not allowed\n", "POST"));
        }
        if (control.drain() == null) {
            return CompletableFuture.completedFuture(AdminApi.text(404, "this server cannot be drained from here"));
        }
        return control.drain().drain(params.get("listener"), "admin " + caller).thenApply(d -> {
            ObjectNode out = mapper.createObjectNode();
            out.put("drained", d.status() == 200);
            out.put(d.status() == 200 ? "done" : "reason", d.message());
            return api.json(d.status(), out);
        });
    }

    /** {@code POST /admin/stop}: 202 at once; the drain and stop follow on a thread of their own. */
    CompletableFuture<HttpEndpoints.Answer> stop(String method, String caller) {
        if (!method.equals("POST")) {
            return CompletableFuture.completedFuture(
                    new HttpEndpoints.Answer(405, AdminApi.TEXT, "method " + method + " not allowed\n", "POST"));
        }
        if (control.drain() == null) {
            return CompletableFuture.completedFuture(AdminApi.text(404, "this server cannot be stopped from here"));
        }
        control.drain().stop("admin " + caller);
        ObjectNode out = mapper.createObjectNode();
        out.put("stopping", true);
        out.put("done", "new requests get 503; established calls have up to shutdown.grace to end, then the server stops");
        return CompletableFuture.completedFuture(api.json(202, out));
    }
}
