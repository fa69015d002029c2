package org.sipcrypt.server.routing;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link CallRouter} decided for a request: proxy it to given targets or to a destination set, redirect it (3xx with
 * contacts, RFC 3261 §21.3), reject it with a status, or {@link #CONTINUE} with the default behaviour
 * (static routes, the location service, the default route), letting the next router decide first.
 * Targets and contacts are sip or sips URIs in text form; the server parses them and answers 500
 * (counted as {@code routing.decisions{decision=error}}) for one that does not parse.
 * Threading: immutable.
 */
public sealed interface RouteDecision permits RouteDecision.Proxy, RouteDecision.ProxyToSet, RouteDecision.Redirect,
        RouteDecision.Reject, RouteDecision.Continue {

    /** Let the next router decide, or when none is left, route as the server would without routers. */
    RouteDecision CONTINUE = new Continue();

    /**
     * Proxy to {@code targets}: each becomes the Request-URI of one branch (RFC 3261 §16.5) and the
     * request is sent where it names (a gateway, another proxy); targets are not looked up in the
     * location service. Several targets are forked in parallel, as the several bindings of a user
     * are; the best response wins (§16.7). For the next target only after the first failed, name a
     * destination set ({@link #proxyToSet}).
     */
    static RouteDecision proxy(String... targets) {
        return new Proxy(List.of(targets));
    }

    /**
     * Proxy to the destination set {@code set} (configured with {@code destination=SET=...}), as a route
     * naming it does: the request, its Request-URI unchanged, goes to the set's first live destination in
     * the set's order, and on 408, 503, a timeout or a failed connect to the next. A set not configured
     * gets the request a 500 (counted as {@code routing.decisions{decision=error}}), a set with no live
     * destination a 503.
     */
    static RouteDecision proxyToSet(String set) {
        return new ProxyToSet(set);
    }

    /** Redirect with 302 Moved Temporarily to {@code contacts}, most preferred first. */
    static RouteDecision redirect(String... contacts) {
        return new Redirect(302, List.of(contacts));
    }

    /** Reject with {@code status} (400 to 699) and {@code reason} (null for the standard phrase). */
    static RouteDecision reject(int status, String reason) {
        return new Reject(status, reason);
    }

    /** Proxy to these targets (see {@link RouteDecision#proxy}); at least one, at most {@value #MAX_TARGETS}. */
    record Proxy(List<String> targets) implements RouteDecision {
        /** Most targets one decision may name. */
        public static final int MAX_TARGETS = 16;

        public Proxy {
            targets = List.copyOf(Objects.requireNonNull(targets, "targets"));
            if (targets.isEmpty() || targets.size() > MAX_TARGETS) {
                throw new IllegalArgumentException("targets: " + targets.size() + " (expected 1 to " + MAX_TARGETS + ")");
            }
        }
    }

    /** Proxy to a destination set (see {@link RouteDecision#proxyToSet}); its name as configured. */
    record ProxyToSet(String set) implements RouteDecision {
        public ProxyToSet {
            Objects.requireNonNull(set, "set");
            if (set.isBlank() || set.length() > 32) {
                throw new IllegalArgumentException("set: \"" + set + "\" (expected a set name of 1 to 32 characters)");
            }
        }
    }

    /** Redirect with {@code status} (300 to 399) to {@code contacts} (at most {@value Proxy#MAX_TARGETS}). */
    record Redirect(int status, List<String> contacts) implements RouteDecision {
        public Redirect {
            contacts = List.copyOf(Objects.requireNonNull(contacts, "contacts"));
            if (status < 300 || status > 399) {
                throw new IllegalArgumentException("status: " + status + " (expected 300 to 399)");
            }
            if (contacts.size() > Proxy.MAX_TARGETS || contacts.isEmpty() && status != 380) {
                throw new IllegalArgumentException("contacts: " + contacts.size() + " (expected 1 to "
                        + Proxy.MAX_TARGETS + "; none only with 380)");
            }
        }
    }

    /** Reject with {@code status} (400 to 699) and {@code reason}, null for the standard phrase. */
    record Reject(int status, String reason) implements RouteDecision {
        public Reject {
            if (status < 400 || status > 699) {
                throw new IllegalArgumentException("status: " + status + " (expected 400 to 699)");
            }
            if (reason != null && (reason.isBlank() || reason.length() > 128
                    || reason.chars().anyMatch(c -> c < 0x20 || c == 0x7f))) {
                throw new IllegalArgumentException("reason: \"" + reason
                        + "\" (expected 1 to 128 printable characters, or null)");
            }
        }
    }

    /** The default behaviour (see {@link #CONTINUE}). */
    record Continue() implements RouteDecision {
    }
}
