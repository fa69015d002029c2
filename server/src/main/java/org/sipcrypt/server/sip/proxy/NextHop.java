package org.sipcrypt.server.sip.proxy;

import java.util.Objects;
import org.sipcrypt.server.config.RouteConfig;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * A next-hop proxy a request is sent to by a static route (proxy-chain deployments), pushed as a
 * loose Route (RFC 3261 §16.6 step 6).
 * Threading: immutable.
 */
public record NextHop(String host, int port, Transport transport, ConnectionPattern connection) {

    public NextHop {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(connection, "connection");
    }

    /** The next hop of a configured route. */
    public static NextHop of(RouteConfig route) {
        return new NextHop(route.host(), route.port(), route.transport(), route.connection());
    }

    /** The loose-routing URI of this hop: {@code sip:host:port;transport=x;lr}. */
    public String routeUri() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return "sip:" + h + ":" + port + ";transport=" + transport.configName() + ";lr";
    }
}
