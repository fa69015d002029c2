package org.sipcrypt.server.routing;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a router sees of a new out-of-dialog request: its method, Request-URI, the URIs of From and To,
 * its Call-ID, its header fields by name, where it came from and over which transport, and the user it
 * authenticated as (RFC 3261 §22.3), if it did. URIs are as they arrived, in their text form
 * ({@code sip:0049301234@example.com}); header values as they arrived, one entry per value.
 * Threading: immutable.
 *
 * @param method      the request's method, e.g. {@code INVITE}
 * @param requestUri  the Request-URI
 * @param from        the URI of From
 * @param to          the URI of To
 * @param callId      the Call-ID
 * @param headers     header values by header name in lower case (the long form, {@code from}, not {@code f})
 * @param source      the address and port the request came from
 * @param transport   the transport it came over, lower case: {@code udp}, {@code tcp}, {@code tls},
 *                    {@code ws}, {@code wss}
 * @param identity    the user name it authenticated as with digest authentication; empty when
 *                    authentication is off or the source is trusted without it
 */
public record RouteRequest(String method, String requestUri, String from, String to, String callId,
                           Map<String, List<String>> headers, InetSocketAddress source, String transport,
                           Optional<String> identity) {

    public RouteRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(requestUri, "requestUri");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(callId, "callId");
        Map<String, List<String>> copy = new HashMap<>();
        Objects.requireNonNull(headers, "headers").forEach((k, v) -> copy.merge(k.toLowerCase(Locale.ROOT),
                List.copyOf(v), (a, b) -> {
                    var both = new java.util.ArrayList<>(a);
                    both.addAll(b);
                    return List.copyOf(both);
                }));
        headers = Map.copyOf(copy);
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(identity, "identity");
    }

    /** The first value of the header {@code name} (any case), if the request has it. */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** Every value of the header {@code name} (any case), in order; empty when it has none. */
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    /**
     * The user part of the Request-URI (a telephone number in {@code sip:0049301234@gw}), or empty
     * for a URI without one or not a sip or sips URI.
     */
    public Optional<String> requestUser() {
        return userOf(requestUri);
    }

    /** The user part of a sip or sips URI in text form, or empty. */
    public static Optional<String> userOf(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        int start = lower.startsWith("sip:") ? 4 : lower.startsWith("sips:") ? 5 : -1;
        int at = uri.indexOf('@', Math.max(start, 0));
        if (start < 0 || at <= start) {
            return Optional.empty();
        }
        String user = uri.substring(start, at);
        int colon = user.indexOf(':');
        return Optional.of(colon >= 0 ? user.substring(0, colon) : user);
    }
}
