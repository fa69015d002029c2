package org.sipcrypt.server.http;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One answer of {@code /health}: the server is live while it answers at all, and ready when every
 * listener is bound, it is not draining for shutdown, and the database answered a check in time.
 * Threading: immutable.
 *
 * @param listeners  the listeners by transport ({@code udp}, {@code tls}) and their addresses
 * @param listening  whether every listener is bound
 * @param draining   whether the server is shutting down (it refuses new calls then)
 * @param database   what the database check found
 * @param detail     why the database is not {@code up}; empty otherwise
 */
public record Health(Map<String, String> listeners, boolean listening, boolean draining, Database database,
                     String detail) {

    /** What the database check found. */
    public enum Database {
        /** A pooled connection was valid. */
        UP,
        /** The check failed: no connection, or an invalid one. */
        DOWN,
        /** The check did not end within {@code http.healthTimeout}. */
        TIMEOUT;

        String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Health {
        listeners = new TreeMap<>(Objects.requireNonNull(listeners, "listeners"));
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(detail, "detail");
    }

    /** Whether the server takes calls: listeners bound, not draining, database answering. */
    public boolean ready() {
        return listening && !draining && database == Database.UP;
    }

    /** 200 when ready, 503 otherwise. */
    public int httpStatus() {
        return ready() ? 200 : 503;
    }

    /** The JSON body: {@code {"status":"ready","live":true,"ready":true,...}}. */
    public String toJson() {
        StringBuilder sb = new StringBuilder(200);
        sb.append("{\"status\":\"").append(ready() ? "ready" : draining ? "draining" : "not_ready").append('"')
                .append(",\"live\":true,\"ready\":").append(ready())
                .append(",\"listening\":").append(listening)
                .append(",\"draining\":").append(draining)
                .append(",\"database\":\"").append(database.jsonName()).append('"');
        if (!detail.isEmpty()) {
            sb.append(",\"detail\":");
            quote(sb, detail);
        }
        sb.append(",\"listeners\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : listeners.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            quote(sb, e.getKey());
            sb.append(':');
            quote(sb, e.getValue());
        }
        return sb.append("}}").toString();
    }

    /** The body of {@code /health/live}: the process answers, whatever its readiness. */
    public static String liveJson() {
        return "{\"status\":\"live\",\"live\":true}";
    }

    /** Appends {@code text} as a JSON string (RFC 8259 §7). */
    static void quote(StringBuilder sb, String text) {
        sb.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
