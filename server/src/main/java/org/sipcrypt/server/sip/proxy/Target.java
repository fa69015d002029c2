package org.sipcrypt.server.sip.proxy;

import javax.sip.address.URI;
import org.sipcrypt.server.transport.Flow;

/**
 * One target of a proxied request (RFC 3261 §16.5): a new Request-URI, or null to keep the
 * received one, a next hop to push as a Route (§16.6 step 7), or null for none, and the flow to
 * send it over (RFC 5626 §5.3: a registered phone's, or in a dialog the other party's), or null to
 * send it where its Route set or Request-URI say.
 * Threading: immutable.
 *
 * @param flowRequired whether in-dialog requests towards this target must take its flow too (a NAT
 *                     was seen, or the binding is an outbound one) rather than the Request-URI once
 *                     its connection has gone
 */
record Target(URI requestUri, NextHop hop, Flow flow, boolean flowRequired) {

    /** The request goes where its Route set or Request-URI already says. */
    static final Target AS_ADDRESSED = new Target(null, null, null, false);

    /** Through a configured next hop, Request-URI unchanged. */
    static Target via(NextHop hop) {
        return new Target(null, hop, null, false);
    }

    /** To {@code requestUri}, sent to wherever it names. */
    static Target to(URI requestUri) {
        return new Target(requestUri, null, null, false);
    }

    /** Over {@code flow}, Request-URI {@code requestUri} (null to keep the received one). */
    static Target over(URI requestUri, Flow flow, boolean required) {
        return new Target(requestUri, null, java.util.Objects.requireNonNull(flow, "flow"), required);
    }
}
