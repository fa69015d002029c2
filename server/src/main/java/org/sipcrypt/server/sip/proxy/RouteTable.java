package org.sipcrypt.server.sip.proxy;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.sipcrypt.server.config.RouteConfig;

/**
 * Static routes: the next hop for a Request-URI domain, and the default route for domains that
 * are neither ours nor routed.
 * Threading: immutable.
 */
public final class RouteTable {

    private final Map<String, NextHop> byDomain;
    private final NextHop defaultRoute;

    public RouteTable(List<RouteConfig> routes, RouteConfig defaultRoute) {
        Map<String, NextHop> m = new HashMap<>();
        for (RouteConfig r : routes) {
            m.put(r.domain().toLowerCase(Locale.ROOT), NextHop.of(r));
        }
        this.byDomain = Map.copyOf(m);
        this.defaultRoute = defaultRoute == null ? null : NextHop.of(defaultRoute);
    }

    /** The route configured for exactly this domain. */
    public Optional<NextHop> forDomain(String host) {
        return Optional.ofNullable(byDomain.get(host.toLowerCase(Locale.ROOT)));
    }

    /** The default route, if any. */
    public Optional<NextHop> defaultRoute() {
        return Optional.ofNullable(defaultRoute);
    }

    /** Every next hop, for building the per-target connection policy. */
    public List<NextHop> all() {
        var all = new java.util.ArrayList<>(byDomain.values());
        if (defaultRoute != null) {
            all.add(defaultRoute);
        }
        return List.copyOf(all);
    }

    /** Each route as {@code DOMAIN -> ROUTE-URI (CONNECTION)}, domains in order, the default last as {@code * -> ...}. */
    public List<String> describe() {
        List<String> out = new java.util.ArrayList<>();
        new java.util.TreeMap<>(byDomain).forEach((d, h) -> out.add(d + " -> " + text(h)));
        if (defaultRoute != null) {
            out.add("* -> " + text(defaultRoute));
        }
        return out;
    }

    private static String text(NextHop h) {
        return h.routeUri() + " (" + h.connection().configName() + ")";
    }
}
