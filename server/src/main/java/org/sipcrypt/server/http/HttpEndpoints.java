package org.sipcrypt.server.http;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP endpoints, whatever serves them (the jar's Netty listener or the WAR's servlet):
 * {@code GET /metrics} (Prometheus text), {@code GET /health} (readiness and liveness as JSON, 200
 * when ready, 503 otherwise) and {@code GET /health/live} (200 while the process answers); with
 * {@code admin.token} set, the management API under {@code /admin/} ({@link AdminApi}). Other
 * methods get 405 with {@code Allow: GET}, other paths 404. A query string is ignored but by the
 * management API.
 * Threading: thread-safe; never blocks ({@code /health} completes when its database check does).
 */
public final class HttpEndpoints {

    /** Paths served, relative to the listener's root or the WAR's context path. */
    public static final String METRICS = "/metrics";
    public static final String HEALTH = "/health";
    public static final String LIVE = "/health/live";

    private static final String JSON = "application/json";
    private static final String TEXT = "text/plain; charset=utf-8";

    private final ServerMetrics metrics;
    private final HealthCheck health;
    private final AdminApi admin;

    /** Without the management API: {@code /admin/} answers 404. */
    public HttpEndpoints(ServerMetrics metrics, HealthCheck health) {
        this(metrics, health, null);
    }

    /** @param admin the management API under {@code /admin/}, or null when {@code admin.token} is unset */
    public HttpEndpoints(ServerMetrics metrics, HealthCheck health, AdminApi admin) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.health = Objects.requireNonNull(health, "health");
        this.admin = admin;
    }

    /**
     * One answer: status, content type and body; {@code allow} is the {@code Allow} header of a 405
     * and null otherwise; {@code wwwAuthenticate} that of a 401 and null otherwise. Threading: immutable.
     */
    public record Answer(int status, String contentType, String body, String allow, String wwwAuthenticate) {

        public Answer {
            Objects.requireNonNull(contentType, "contentType");
            Objects.requireNonNull(body, "body");
        }

        /** An answer that is not a 401. */
        public Answer(int status, String contentType, String body, String allow) {
            this(status, contentType, body, allow, null);
        }
    }

    /**
     * The answer to a request, the management API's included.
     *
     * @param uri           the request target without the context path, query string included
     * @param authorization its {@code Authorization} header, or null
     * @param body          its body (empty for none)
     * @param caller        the caller's address, for the management API's log
     */
    public CompletableFuture<Answer> answer(String method, String uri, String authorization, byte[] body,
                                            String caller) {
        int query = uri.indexOf('?');
        String p = query >= 0 ? uri.substring(0, query) : uri;
        if (admin != null && (p.startsWith(AdminApi.PREFIX) || p.equals("/admin"))) {
            return admin.answer(method, p, query >= 0 ? uri.substring(query + 1) : null, authorization, body, caller);
        }
        return answer(method, uri);
    }

    /**
     * The answer to {@code method path}.
     *
     * @param path the request path without the context path; a query string is cut off
     */
    public CompletableFuture<Answer> answer(String method, String path) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        int query = path.indexOf('?');
        String p = query >= 0 ? path.substring(0, query) : path;
        boolean known = p.equals(METRICS) || p.equals(HEALTH) || p.equals(LIVE);
        if (!known) {
            return CompletableFuture.completedFuture(new Answer(404, TEXT, "not found: " + p + "\n", null));
        }
        if (!method.equals("GET")) {
            return CompletableFuture.completedFuture(
                    new Answer(405, TEXT, "method " + method + " not allowed (expected GET)\n", "GET"));
        }
        return switch (p) {
            case METRICS -> CompletableFuture.completedFuture(new Answer(200, ServerMetrics.CONTENT_TYPE,
                    metrics.scrape(), null));
            case LIVE -> CompletableFuture.completedFuture(new Answer(200, JSON, Health.liveJson(), null));
            default -> health.check().thenApply(h -> new Answer(h.httpStatus(), JSON, h.toJson(), null));
        };
    }
}
