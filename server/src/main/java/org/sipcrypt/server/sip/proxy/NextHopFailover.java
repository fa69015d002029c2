package org.sipcrypt.server.sip.proxy;

import java.util.List;
import java.util.Objects;
import javax.sip.message.Request;
import org.sipcrypt.server.dns.Destination;

/**
 * What a branch sent to a next hop located by DNS keeps to fail over (RFC 3263 §4.3): the request
 * as it was before this branch rewrote it, its target and the next hops left to try, in order.
 * Threading: immutable (the request is never changed: each attempt rewrites a copy).
 */
record NextHopFailover(Request unrewritten, Target target, List<Destination> rest) {

    NextHopFailover {
        Objects.requireNonNull(unrewritten, "unrewritten");
        Objects.requireNonNull(target, "target");
        rest = List.copyOf(Objects.requireNonNull(rest, "rest"));
    }
}
