package org.sipcrypt.server.http;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP endpoints, whatever serves them (the jar's Netty listener or the WAR's servlet):
 * {@code GET /metrics} (Prometheus text), {@code GET /health} (readiness and liveness as JSON, 200
 * when ready, 503 otherwise) and {@code GET /health/live} (200 while the process answers). Other
 * methods get 405 with {@code Allow: GET}, other paths 404. A query string is ignored.
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

    public HttpEndpoints(ServerMetrics metrics, HealthCheck health) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.health = Objects.requireNonNull(health, "health");
    }

    /**
     * One answer: status, content type and body; {@code allow} is the {@code Allow} header of a 405
     * and null otherwise. Threading: immutable.
     */
    public record Answer(int status, String contentType, String body, String allow) {

        public Answer {
            Objects.requireNonNull(contentType, "contentType");
            Objects.requireNonNull(body, "body");
        }
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
