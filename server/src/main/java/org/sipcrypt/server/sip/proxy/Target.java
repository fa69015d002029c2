package org.sipcrypt.server.sip.proxy;

import javax.sip.address.URI;

/**
 * One target of a proxied request (RFC 3261 §16.5): a new Request-URI, or null to keep the
 * received one, and a next hop to push as a Route (§16.6 step 7), or null for none.
 * Threading: immutable.
 */
record Target(URI requestUri, NextHop hop) {

    /** The request goes where its Route set or Request-URI already says. */
    static final Target AS_ADDRESSED = new Target(null, null);

    /** Through a configured next hop, Request-URI unchanged. */
    static Target via(NextHop hop) {
        return new Target(null, hop);
    }
}
