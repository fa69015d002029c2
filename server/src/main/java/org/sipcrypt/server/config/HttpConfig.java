package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The HTTP listener for {@code /metrics} and {@code /health}; keys {@code http} and {@code http.*}.
 * Off by default. It answers anyone who can reach it, so it binds where told and belongs on
 * loopback or a management network, never on the public side. The WAR serves the same endpoints
 * through its servlet container, so it needs no {@code http} listener.
 * Threading: immutable.
 *
 * @param listen          host and port of the listener (port 0 picks a free one); {@code null} for off
 * @param maxRequestBytes most bytes of a request's line and headers; a longer request gets 431
 *                        and its connection is closed
 * @param maxConnections  most HTTP connections open at once; more are closed as they arrive
 * @param idleTimeout     a connection that has not sent a whole request within this is closed
 * @param healthTimeout   how long the database check of {@code /health} may take; a database
 *                        slower than this counts as not answering, so the server is not ready
 * @param adminToken      the bearer token of the management API under {@code /admin/}; empty for
 *                        none (the API answers 404); never shown by {@link #toString}
 */
public record HttpConfig(HostPort listen, int maxRequestBytes, int maxConnections, Duration idleTimeout,
                         Duration healthTimeout, String adminToken) {

    /** The shortest admin token accepted. */
    public static final int MIN_ADMIN_TOKEN_CHARS = 32;

    public HttpConfig {
        Objects.requireNonNull(adminToken, "adminToken");
        if (!adminToken.isEmpty() && (adminToken.length() < MIN_ADMIN_TOKEN_CHARS || adminToken.isBlank()
                || !adminToken.equals(adminToken.trim()))) {
            throw new IllegalArgumentException("admin.token: at least " + MIN_ADMIN_TOKEN_CHARS
                    + " characters without blanks at either end (e.g. openssl rand -hex 16)");
        }
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(healthTimeout, "healthTimeout");
        if (listen != null && listen.port() < 0) {
            throw new IllegalArgumentException("http: \"" + listen + "\" has no port (expected HOST:PORT)");
        }
        if (maxRequestBytes < 256) {
            throw new IllegalArgumentException("http.maxRequestBytes: " + maxRequestBytes + " (expected at least 256)");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("http.maxConnections: " + maxConnections + " (expected at least 1)");
        }
        if (idleTimeout.isZero() || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("http.idleTimeout: " + idleTimeout + " (expected above 0)");
        }
        if (healthTimeout.isZero() || healthTimeout.isNegative()) {
            throw new IllegalArgumentException("http.healthTimeout: " + healthTimeout + " (expected above 0)");
        }
    }

    /** Off; requests of up to 8 KiB, 64 connections idle for at most 10 s, a 2 s database check. */
    public static HttpConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().listen(listen).maxRequestBytes(maxRequestBytes).maxConnections(maxConnections)
                .idleTimeout(idleTimeout).healthTimeout(healthTimeout).adminToken(adminToken);
    }

    /**
     * Named settings for an {@link HttpConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private HostPort listen;
        private int maxRequestBytes = 8192;
        private int maxConnections = 64;
        private Duration idleTimeout = Duration.ofSeconds(10);
        private Duration healthTimeout = Duration.ofSeconds(2);
        private String adminToken = "";

        public Builder listen(HostPort v) { listen = v; return this; }
        public Builder maxRequestBytes(int v) { maxRequestBytes = v; return this; }
        public Builder maxConnections(int v) { maxConnections = v; return this; }
        public Builder idleTimeout(Duration v) { idleTimeout = v; return this; }
        public Builder healthTimeout(Duration v) { healthTimeout = v; return this; }
        public Builder adminToken(String v) { adminToken = v == null ? "" : v; return this; }

        public HttpConfig build() {
            return new HttpConfig(listen, maxRequestBytes, maxConnections, idleTimeout, healthTimeout, adminToken);
        }
    }

    /** Whether the management API is on ({@code admin.token} set). */
    public boolean adminEnabled() {
        return !adminToken.isEmpty();
    }

    @Override
    public String toString() {
        return "HttpConfig[listen=" + listen + ", maxRequestBytes=" + maxRequestBytes + ", maxConnections="
                + maxConnections + ", idleTimeout=" + idleTimeout + ", healthTimeout=" + healthTimeout
                + ", adminToken=" + (adminToken.isEmpty() ? "unset" : "(set)") + "]";
    }

    /** Whether the jar opens its own HTTP listener. */
    public boolean enabled() {
        return listen != null;
    }
}
