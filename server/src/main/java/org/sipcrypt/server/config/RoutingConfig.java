package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The routing SPI's settings, keys {@code routing.*}: which {@code CallRouter}s run, in order, how long
 * one may take to decide, and the options routers read.
 * Threading: immutable.
 *
 * @param timeout how long a router's decision may take before the request gets 504
 * @param routers the names of the routers that see new out-of-dialog requests, in order; empty: none
 *                (the proxy routes as it always has)
 * @param options {@code key=value} options handed to every router, in the order given
 */
public record RoutingConfig(Duration timeout, List<String> routers, Map<String, String> options) {

    /** Most routers that may run. */
    public static final int MAX_ROUTERS = 8;
    /** Most options. */
    public static final int MAX_OPTIONS = 64;
    /** Longest option value, in characters. */
    public static final int MAX_OPTION_CHARS = 1024;
    /** The shortest and longest {@code routing.timeout}. */
    public static final Duration MIN_TIMEOUT = Duration.ofMillis(10);
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,31}");
    private static final Pattern KEY = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    public RoutingConfig {
        routers = List.copyOf(Objects.requireNonNull(routers, "routers"));
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(options, "options");
        if (routers.size() > MAX_ROUTERS) {
            throw new IllegalArgumentException("routing.router: " + routers.size() + " routers (expected at most "
                    + MAX_ROUTERS + ")");
        }
        Set<String> seen = new HashSet<>();
        for (String r : routers) {
            if (!NAME.matcher(r).matches()) {
                throw new IllegalArgumentException("routing.router: \"" + r
                        + "\" is not a router name (expected 1 to 32 of a-z 0-9 . _ -, starting with a letter or digit)");
            }
            if (!seen.add(r)) {
                throw new IllegalArgumentException("routing.router: \"" + r + "\" given twice");
            }
        }
        if (timeout.compareTo(MIN_TIMEOUT) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("routing.timeout: " + ConfigValues.format(timeout)
                    + " (expected 10ms to 60s)");
        }
        if (options.size() > MAX_OPTIONS) {
            throw new IllegalArgumentException("routing.option: " + options.size() + " options (expected at most "
                    + MAX_OPTIONS + ")");
        }
        for (var e : options.entrySet()) {
            if (!KEY.matcher(e.getKey()).matches()) {
                throw new IllegalArgumentException("routing.option: \"" + e.getKey()
                        + "\" is not an option key (expected 1 to 64 of a-z 0-9 . _ -, e.g. lcr.strip)");
            }
            if (e.getValue().length() > MAX_OPTION_CHARS || e.getValue().chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new IllegalArgumentException("routing.option: the value of " + e.getKey() + " (expected at most "
                        + MAX_OPTION_CHARS + " printable characters)");
            }
        }
        options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    /** No routers: the proxy routes as it always has; a timeout of 2 s; no options. */
    public static RoutingConfig defaults() {
        return new Builder().build();
    }

    /** Whether any router runs. */
    public boolean enabled() {
        return !routers.isEmpty();
    }

    /**
     * Parses {@code routing.option} values, each {@code key=value}.
     *
     * @throws IllegalArgumentException naming the value that has no {@code =} or whose key came before
     */
    public static Map<String, String> parseOptions(List<String> values) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String v : values) {
            int eq = v.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("routing.option: \"" + v + "\" (expected KEY=VALUE, e.g. lcr.strip=00)");
            }
            String key = v.substring(0, eq).trim();
            if (m.put(key, v.substring(eq + 1).trim()) != null) {
                throw new IllegalArgumentException("routing.option: " + key + " given twice");
            }
        }
        return m;
    }

    /** The options as given, {@code key=value}; values of keys naming a password, secret or token masked. */
    public List<String> optionTexts() {
        return options.entrySet().stream().map(e -> e.getKey() + "="
                + (e.getKey().matches(".*(password|secret|token).*") ? "<masked>" : e.getValue())).toList();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().routers(routers).timeout(timeout).options(options);
    }

    /**
     * Named settings for a {@link RoutingConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private List<String> routers = List.of();
        private Duration timeout = Duration.ofSeconds(2);
        private Map<String, String> options = Map.of();

        public Builder routers(List<String> v) { routers = v; return this; }
        public Builder timeout(Duration v) { timeout = v; return this; }
        public Builder options(Map<String, String> v) { options = v; return this; }

        public RoutingConfig build() {
            return new RoutingConfig(timeout, routers, options);
        }
    }
}
