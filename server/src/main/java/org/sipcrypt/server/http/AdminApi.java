package org.sipcrypt.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import org.sipcrypt.server.location.Binding;
import org.sipcrypt.server.location.ContactChange;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.location.RegisterChange;
import org.sipcrypt.server.location.RegisterOutcome;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.sip.proxy.ProxyBye;
import org.sipcrypt.server.sip.registrar.Registrar;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The management API under {@code /admin/} ({@code admin.token}): the bindings of an
 * address-of-record listed, added and removed at run time, as a registrar's REGISTER would change
 * them, the TLS certificates and the static routes reloaded, the established calls listed and ended,
 * and the server drained or stopped. Each path has its handler in one table. Every request carries {@code Authorization: Bearer TOKEN} (compared in constant time; 401
 * with {@code WWW-Authenticate: Bearer} otherwise, before anything else is said) and is logged at
 * INFO with its caller's address, method, path and answer. JSON in and out.
 * <ul>
 *   <li>{@code GET /admin/bindings?aor=sip:alice@example.com}: 200, the AOR's live bindings.</li>
 *   <li>{@code POST /admin/bindings} with {@code {"aor": ..., "contact": ..., "expires": 3600, "q": 0.5}}
 *       ({@code q} optional): adds or refreshes that binding; 200 with the AOR's bindings after it,
 *       403 beyond {@code registrar.maxContacts}, 503 when the location service is full.</li>
 *   <li>{@code DELETE /admin/bindings?aor=...[&contact=...]}: removes that contact's binding, or
 *       every binding of the AOR; 200 with the count removed.</li>
 *   <li>{@code POST /admin/tls/reload}: reads the tls listener's certificate and key files
 *       ({@code tls.cert}, {@code tls.key}, {@code tls.domain}) again; 200 with the certificates now
 *       presented, or 409 with why the new files were refused (the old certificates stay).</li>
 *   <li>{@code GET /admin/destinations}: 200, every destination set with its destinations, each up or
 *       down with its requests, failovers and probes.</li>
 *   <li>{@code GET /admin/calls[?aor=..|callId=..][&limit=100]}: the established calls the proxy
 *       keeps, at most {@code limit} ({@value #MAX_CALLS_LIMIT} at most), with {@code truncated}.</li>
 *   <li>{@code DELETE /admin/calls?callId=..}: the proxy sends a BYE to both parties ({@link ProxyBye});
 *       200 once they have left, with where each went; 404 when no such call is established.</li>
 *   <li>{@code POST /admin/routes/reload}: reads {@code route}, {@code defaultRoute} and
 *       {@code destination} again from the configuration file; 200 with the routes and destination sets
 *       now in force, 409 with why not (the old ones stay).</li>
 *   <li>{@code POST /admin/drain[?listener=tls:0.0.0.0:5061]}: new requests outside a dialog get 503
 *       from now on, or that one stream listener accepts no new connection; 200 with what was done.</li>
 *   <li>{@code POST /admin/stop}: 202, then the server drains and stops as on SIGTERM.</li>
 * </ul>
 * An AOR must be a SIP URI with a user part in a domain this server serves (400 otherwise); the
 * location service's failure is a 503, any other handler's a 500. Counted: {@code http.admin.requests{result}}.
 * Threading: thread-safe; never blocks (answers complete on the location service's threads, a certificate
 * reload, a routes reload and a call listing on the housekeeping thread, a call's ending on its SIP lane).
 */
public final class AdminApi {

    /** The path prefix this API answers under. */
    public static final String PREFIX = "/admin/";
    static final String BINDINGS = PREFIX + "bindings";
    static final String TLS_RELOAD = PREFIX + "tls/reload";
    static final String DESTINATIONS = PREFIX + "destinations";
    static final String CALLS = PREFIX + "calls";
    static final String ROUTES_RELOAD = PREFIX + "routes/reload";
    static final String DRAIN = PREFIX + "drain";
    static final String STOP = PREFIX + "stop";
    /** Calls listed when no {@code limit} is given. */
    static final int DEFAULT_CALLS_LIMIT = 100;
    /** The largest {@code limit} of a call listing. */
    static final int MAX_CALLS_LIMIT = 10_000;

    /**
     * The outcome of one routes reload.
     * Threading: immutable.
     *
     * @param ok      whether the new routes and sets are in force now
     * @param message where they were read from, or why they were refused (the old ones stay)
     * @param routes  the routes in force now, when {@code ok}; else null
     * @param sets    the destination sets in force now, one line each, when {@code ok}; else null
     */
    public record Reloaded(boolean ok, String message, List<String> routes, List<String> sets) {
    }

    /**
     * Reads the static routes and the destination sets again from the configuration file and puts them
     * in force if they are good.
     * Threading: called on the HTTP event loop; must not block (completes on another thread).
     */
    @FunctionalInterface
    public interface Routes {
        CompletableFuture<Reloaded> reload(String why);
    }

    /**
     * The outcome of a drain request.
     * Threading: immutable.
     *
     * @param status  200 when done, 404 for an unknown listener, 409 when it cannot be done
     * @param message what was done, or why not
     */
    public record Drained(int status, String message) {
    }

    /**
     * Draining and stopping the server.
     * Threading: called on the HTTP event loop; never blocks ({@link #stop} hands the stop to a thread of its own).
     */
    public interface Drain {
        /**
         * New requests outside a dialog get 503 (listener null), or that one listener accepts no new
         * connection; completes once that holds (a listener's socket closed), on whichever thread did it.
         */
        CompletableFuture<Drained> drain(String listener, String why);

        /** Drains and stops the server, as SIGTERM does, on another thread. */
        void stop(String why);
    }

    /**
     * What the API may do to the running server beyond bindings and certificates; each part null
     * when this server has none (a 404 saying why).
     * Threading: immutable.
     *
     * @param calls  the established calls (record-routing proxy), or null
     * @param routes the routes reload, or null
     * @param drain  draining and stopping, or null
     * @param work   where call listings and endings are prepared, off the event loops
     */
    public record Control(ProxyBye calls, Routes routes, Drain drain, java.util.concurrent.Executor work) {
        /** Nothing beyond bindings and certificates. */
        public static final Control NONE = new Control(null, null, null, Runnable::run);
    }

    /** One path's answer to an authorized request. */
    @FunctionalInterface
    interface Handler {
        CompletableFuture<HttpEndpoints.Answer> answer(String method, Map<String, String> params, byte[] body,
                                                       String caller) throws BadRequest;
    }

    /**
     * The outcome of one certificate reload.
     * Threading: immutable.
     *
     * @param ok      whether the new certificates are presented now
     * @param message what is presented now, or why the new set was refused (the old one stays)
     */
    public record TlsReloaded(boolean ok, String message) {
    }

    /**
     * Reads the tls listener's certificate files again and presents them if they are good.
     * Threading: called on the HTTP event loop; must not block (completes on another thread).
     */
    @FunctionalInterface
    public interface TlsReload {
        CompletableFuture<TlsReloaded> reload(String why);
    }

    /** The parser of the URIs the API reads. */
    AddressFactory uris() {
        return uris;
    }

    /** The shortest token accepted: 32 characters (e.g. {@code openssl rand -hex 16}). */
    public static final int MIN_TOKEN_CHARS = org.sipcrypt.server.config.HttpConfig.MIN_ADMIN_TOKEN_CHARS;

    private static final Logger log = LoggerFactory.getLogger(AdminApi.class);
    private static final String JSON = "application/json";
    static final String TEXT = "text/plain; charset=utf-8";

    private final byte[] tokenDigest;
    private final LocationService location;
    private final Predicate<URI> served;
    private final Duration maxExpires;
    private final Clock clock;
    private final MeterRegistry registry;
    private final TlsReload tlsReload;
    private final Control control;
    /** The handler of each path under {@link #PREFIX}. */
    private final Map<String, Handler> handlers = new LinkedHashMap<>();
    private final ObjectMapper mapper = new ObjectMapper();
    private final AddressFactory uris = StackInternals.addressFactory();
    /** The destination sets' state, a list Jackson writes as JSON; null until {@link #withDestinations}. */
    private volatile Supplier<?> destinations;

    /**
     * @param token      the bearer token ({@code admin.token}), at least {@value #MIN_TOKEN_CHARS} characters
     * @param served     whether a URI's host is a domain this server serves (whatever its port, as for a REGISTER)
     * @param maxExpires the longest binding the API adds ({@code registrar.maxExpires})
     * @param tlsReload  the certificate reload of the tls listener, or null without one
     * @param control    calls, routes, drain and stop ({@link Control#NONE} for none of them)
     */
    public AdminApi(String token, LocationService location, Predicate<URI> served, Duration maxExpires, Clock clock,
                    MeterRegistry registry, TlsReload tlsReload, Control control) {
        this.tlsReload = tlsReload;
        this.control = Objects.requireNonNull(control, "control");
        handlers.put(BINDINGS, this::bindings);
        handlers.put(TLS_RELOAD, (method, params, body, caller) -> reloadTls(method, caller));
        AdminControl server = new AdminControl(this, control);
        handlers.put(CALLS, server::calls);
        handlers.put(ROUTES_RELOAD, (method, params, body, caller) -> server.reloadRoutes(method, caller));
        handlers.put(DRAIN, (method, params, body, caller) -> server.drain(method, params, caller));
        handlers.put(STOP, (method, params, body, caller) -> server.stop(method, caller));
        handlers.put(DESTINATIONS, (method, params, body, caller) -> CompletableFuture.completedFuture(destinations(method)));
        Objects.requireNonNull(token, "token");
        if (token.length() < MIN_TOKEN_CHARS) {
            throw new IllegalArgumentException("admin.token: at least " + MIN_TOKEN_CHARS + " characters");
        }
        this.tokenDigest = sha256(token);
        this.location = Objects.requireNonNull(location, "location");
        this.served = Objects.requireNonNull(served, "served");
        this.maxExpires = Objects.requireNonNull(maxExpires, "maxExpires");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Lists the destination sets under {@code GET /admin/destinations}: {@code {"sets": [...]}}, each set with
     * its name, algorithm and destinations (state up or down, requests, failovers, probes); called once,
     * before the HTTP listener starts.
     */
    public AdminApi withDestinations(Supplier<?> sets) {
        this.destinations = Objects.requireNonNull(sets, "sets");
        return this;
    }

    /** {@code GET /admin/destinations}: 200 with every set and destination now (none when no sets). */
    private HttpEndpoints.Answer destinations(String method) {
        if (!method.equals("GET")) {
            return new HttpEndpoints.Answer(405, TEXT, "method " + method + " not allowed\n", "GET");
        }
        ObjectNode out = mapper.createObjectNode();
        Supplier<?> sets = destinations;
        out.set("sets", sets == null ? mapper.createArrayNode() : mapper.valueToTree(sets.get()));
        return json(200, out);
    }

    /**
     * The answer to one request under {@link #PREFIX}.
     *
     * @param path          the path without query string
     * @param query         the raw query string, or null
     * @param authorization the {@code Authorization} header, or null
     * @param body          the request body (empty for none)
     * @param caller        the caller's address, for the log
     */
    public CompletableFuture<HttpEndpoints.Answer> answer(String method, String path, String query,
                                                          String authorization, byte[] body, String caller) {
        if (!authorized(authorization)) {
            log.info("admin {}: {} {} -> 401 (no valid bearer token)", caller, method, path);
            count("unauthorized");
            return CompletableFuture.completedFuture(new HttpEndpoints.Answer(401, TEXT,
                    "a bearer token is required (admin.token)\n", null, "Bearer realm=\"sipcrypt-admin\""));
        }
        CompletableFuture<HttpEndpoints.Answer> answer;
        try {
            answer = route(method, path, params(query), body, caller);
        } catch (BadRequest e) {
            answer = CompletableFuture.completedFuture(text(400, e.getMessage()));
        }
        return answer.exceptionally(e -> failed(path, e))
                .whenComplete((a, e) -> {
                    log.info("admin {}: {} {}{} -> {}", caller, method, path, query == null ? "" : "?" + query,
                            a == null ? "failed" : a.status());
                    count(a == null ? "failed" : Integer.toString(a.status()));
                });
    }

    /**
     * A handler that failed: 503 when the bindings' location service did (its database may be down and
     * come back), 500 for any other handler, whose failure is the server's own.
     */
    private static HttpEndpoints.Answer failed(String path, Throwable e) {
        if (path.equals(BINDINGS)) {
            return text(503, "location service unavailable: " + rootMessage(e));
        }
        log.warn("admin {}: failed", path, e);
        return text(500, path + " failed: " + rootMessage(e));
    }

    private CompletableFuture<HttpEndpoints.Answer> route(String method, String path, Map<String, String> params,
                                                          byte[] body, String caller) throws BadRequest {
        Handler handler = handlers.get(path);
        if (handler == null) {
            return CompletableFuture.completedFuture(text(404, "not found: " + path));
        }
        return handler.answer(method, params, body, caller);
    }

    /** {@code /admin/bindings}: GET lists, POST adds, DELETE removes. */
    private CompletableFuture<HttpEndpoints.Answer> bindings(String method, Map<String, String> params, byte[] body,
                                                             String caller) throws BadRequest {
        return switch (method) {
            case "GET" -> list(aor(params.get("aor")));
            case "DELETE" -> remove(aor(params.get("aor")), params.get("contact"), caller);
            case "POST" -> add(body, caller);
            default -> CompletableFuture.completedFuture(
                    new HttpEndpoints.Answer(405, TEXT, "method " + method + " not allowed\n", "GET, POST, DELETE"));
        };
    }

    /**
     * {@code POST /admin/tls/reload}: 200 with what is presented now, or 409 with why the files were
     * refused (the certificates presented stay as they were); 404 without a tls listener.
     */
    private CompletableFuture<HttpEndpoints.Answer> reloadTls(String method, String caller) {
        if (!method.equals("POST")) {
            return CompletableFuture.completedFuture(
                    new HttpEndpoints.Answer(405, TEXT, "method " + method + " not allowed\n", "POST"));
        }
        if (tlsReload == null) {
            return CompletableFuture.completedFuture(text(404, "no tls listener: nothing to reload"));
        }
        return tlsReload.reload("admin " + caller).thenApply(r -> {
            ObjectNode out = mapper.createObjectNode();
            out.put("reloaded", r.ok());
            out.put(r.ok() ? "certificates" : "reason", r.message());
            return json(r.ok() ? 200 : 409, out);
        });
    }

    private CompletableFuture<HttpEndpoints.Answer> list(String aor) {
        Instant now = clock.instant();
        return location.lookup(aor, now).thenApply(r -> json(200, bindings(aor, r.bindings(), now)));
    }

    private CompletableFuture<HttpEndpoints.Answer> remove(String aor, String contact, String caller)
            throws BadRequest {
        Instant now = clock.instant();
        RegisterChange change;
        if (contact == null) {
            change = new RegisterChange(aor, adminCallId(), 1, true, List.of(), received(caller), now);
        } else {
            URI uri = uri(contact, "contact");
            change = new RegisterChange(aor, adminCallId(), 1, false,
                    List.of(new ContactChange(Registrar.contactKey(uri), uri.toString(), Duration.ZERO, -1)),
                    received(caller), now);
        }
        return location.lookup(aor, now).thenCompose(before -> location.register(change).thenApply(outcome -> {
            if (!(outcome instanceof RegisterOutcome.Applied applied)) {
                return text(409, "not removed: " + outcome);
            }
            ObjectNode out = mapper.createObjectNode();
            out.put("aor", aor);
            out.put("removed", Math.max(0, before.bindings().size() - applied.bindings().size()));
            return json(200, out);
        }));
    }

    private CompletableFuture<HttpEndpoints.Answer> add(byte[] body, String caller) throws BadRequest {
        JsonNode in;
        try {
            in = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            throw new BadRequest("the body is not JSON: " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw new BadRequest("the body cannot be read: " + e.getMessage());
        }
        if (in == null || !in.isObject()) {
            throw new BadRequest("the body must be a JSON object with aor, contact and expires");
        }
        String aor = aor(in.path("aor").isTextual() ? in.get("aor").asText() : null);
        URI contact = uri(in.path("contact").isTextual() ? in.get("contact").asText() : null, "contact");
        JsonNode expires = in.get("expires");
        if (expires == null || !expires.canConvertToLong() || expires.asLong() < 1
                || expires.asLong() > maxExpires.toSeconds()) {
            throw new BadRequest("expires: whole seconds from 1 to " + maxExpires.toSeconds() + " (registrar.maxExpires)");
        }
        float q = -1;
        if (in.has("q")) {
            double v = in.get("q").asDouble(-1);
            if (!in.get("q").isNumber() || v < 0 || v > 1) {
                throw new BadRequest("q: a number from 0 to 1");
            }
            q = (float) v;
        }
        Instant now = clock.instant();
        RegisterChange change = new RegisterChange(aor, adminCallId(), 1, false,
                List.of(new ContactChange(Registrar.contactKey(contact), contact.toString(),
                        Duration.ofSeconds(expires.asLong()), q)), received(caller), now);
        return location.register(change).thenApply(outcome -> {
            if (outcome instanceof RegisterOutcome.Applied a) {
                return json(200, bindings(aor, a.bindings(), now));
            }
            if (outcome instanceof RegisterOutcome.TooManyContacts t) {
                return text(403, "more than " + t.limit() + " bindings for " + aor + " (registrar.maxContacts)");
            }
            if (outcome instanceof RegisterOutcome.Full f) {
                return text(503, "the location service holds its most bindings (" + f.limit() + ")");
            }
            return text(409, "not added: " + outcome);
        });
    }

    private ObjectNode bindings(String aor, List<Binding> bindings, Instant now) {
        ObjectNode out = mapper.createObjectNode();
        out.put("aor", aor);
        ArrayNode list = out.putArray("bindings");
        for (Binding b : bindings) {
            ObjectNode o = list.addObject();
            o.put("contact", b.contact());
            o.put("expires", b.secondsLeft(now));
            if (b.q() >= 0) {
                o.put("q", b.q());
            }
            o.put("received", b.received());
            o.put("flow", b.flow());
            o.put("nat", b.nat());
            o.put("instance", b.instance());
            o.put("regId", b.regId());
            o.put("path", b.path());
        }
        return out;
    }

    /** The canonical AOR of {@code text}, a SIP URI with a user part in a domain this server serves. */
    private String aor(String text) throws BadRequest {
        URI uri = uri(text, "aor");
        String aor = Registrar.aor(uri);
        if (aor == null) {
            throw new BadRequest("aor: a sip or sips URI with a user part, e.g. sip:alice@example.com");
        }
        if (!served.test(uri)) {
            throw new BadRequest("aor: " + ((SipURI) uri).getHost() + " is not a domain this server serves");
        }
        return aor;
    }

    URI uri(String text, String name) throws BadRequest {
        if (text == null || text.isBlank()) {
            throw new BadRequest(name + " is missing");
        }
        if (text.length() > 1024) {
            throw new BadRequest(name + ": longer than 1024 characters");
        }
        try {
            URI uri = uris.createURI(text.trim());
            if (!(uri instanceof SipURI)) {
                throw new BadRequest(name + ": not a sip or sips URI: " + text);
            }
            return uri;
        } catch (ParseException | RuntimeException e) {
            throw new BadRequest(name + ": not a URI: " + text);
        }
    }

    private boolean authorized(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return MessageDigest.isEqual(tokenDigest, sha256(authorization.substring(7).trim()));
    }

    /** The query parameters (the last of each name), decoded. */
    static Map<String, String> params(String query) throws BadRequest {
        Map<String, String> out = new LinkedHashMap<>();
        if (query == null || query.isEmpty()) {
            return out;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            try {
                out.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new BadRequest("a query parameter is not URL-encoded: " + pair);
            }
        }
        return out;
    }

    private static String adminCallId() {
        return "admin-" + UUID.randomUUID();
    }

    private static String received(String caller) {
        return "http:" + caller;
    }

    HttpEndpoints.Answer json(int status, JsonNode body) {
        try {
            return new HttpEndpoints.Answer(status, JSON, mapper.writeValueAsString(body) + "\n", null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always writes", e);
        }
    }

    static HttpEndpoints.Answer text(int status, String message) {
        return new HttpEndpoints.Answer(status, TEXT, message + "\n", null);
    }

    private void count(String result) {
        registry.counter("http.admin.requests", "result", result).increment();
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A request this API cannot act on: 400 with the message. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }
}
