package org.sipcrypt.server.sip.proxy;

import java.util.List;
import java.util.Objects;
import javax.sip.address.URI;
import org.sipcrypt.server.transport.Flow;

/**
 * One target of a proxied request (RFC 3261 §16.5): a new Request-URI, or null to keep the
 * received one, a next hop to push as a Route (§16.6 step 7), or null for none, a pre-loaded Route
 * set to push (a binding's Path, RFC 3327 §5.4), empty for none, and the flow to send it over
 * (RFC 5626 §5.3: a registered phone's, or in a dialog the other party's), or null to send it where
 * its Route set or Request-URI say. A target with a {@link Failover} goes through its hops one after
 * another, {@code hop} being the one of this attempt.
 * Threading: immutable.
 *
 * @param path         Route header values pushed in this order, the first on top
 * @param flowRequired whether in-dialog requests towards this target must take its flow too (a NAT
 *                     was seen, or the binding is an outbound one) rather than the Request-URI once
 *                     its connection has gone
 * @param failover     the hops tried one after another, {@code hop} the first of them; null for none
 */
record Target(URI requestUri, NextHop hop, List<String> path, Flow flow, boolean flowRequired, Failover failover) {

    /** The request goes where its Route set or Request-URI already says. */
    static final Target AS_ADDRESSED = new Target(null, null, List.of(), null, false, null);

    Target {
        path = List.copyOf(Objects.requireNonNull(path, "path"));
    }

    Target(URI requestUri, NextHop hop, List<String> path, Flow flow, boolean flowRequired) {
        this(requestUri, hop, path, flow, flowRequired, null);
    }

    /** Through a configured next hop, Request-URI unchanged. */
    static Target via(NextHop hop) {
        return new Target(null, hop, List.of(), null, false);
    }

    /** Through the hops of {@code failover} one after another, Request-URI unchanged; this is the first attempt. */
    static Target through(Failover failover) {
        return new Target(null, failover.hops().get(0), List.of(), null, false, failover);
    }

    /** Attempt {@code i} of this target's failover: through its hop {@code i}. */
    Target attempt(int i) {
        return new Target(requestUri, failover.hops().get(i), path, flow, flowRequired, failover);
    }

    /** To {@code requestUri}, sent to wherever it names. */
    static Target to(URI requestUri) {
        return new Target(requestUri, null, List.of(), null, false);
    }

    /** Over {@code flow}, Request-URI {@code requestUri} (null to keep the received one). */
    static Target over(URI requestUri, Flow flow, boolean required) {
        return new Target(requestUri, null, List.of(), Objects.requireNonNull(flow, "flow"), required);
    }

    /** To {@code requestUri} through the Route set {@code path}, sent to its first entry. */
    static Target through(URI requestUri, List<String> path) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("empty path");
        }
        return new Target(requestUri, null, path, null, false);
    }
}
