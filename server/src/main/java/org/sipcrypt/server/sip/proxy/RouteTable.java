package org.sipcrypt.server.sip.proxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.sipcrypt.server.config.DestinationConfig;
import org.sipcrypt.server.config.RouteConfig;

/**
 * Static routes: the next hop, or the destination set, for a Request-URI domain, and the default
 * route for domains that are neither ours nor routed.
 * Threading: immutable.
 */
public final class RouteTable {

    private final Map<String, NextHop> byDomain;
    private final Map<String, String> setByDomain;
    private final NextHop defaultRoute;
    private final String defaultSet;
    private final List<NextHop> destinations;

    public RouteTable(List<RouteConfig> routes, RouteConfig defaultRoute) {
        this(routes, defaultRoute, List.of());
    }

    /** @param destinations every destination of the destination sets, whose connection patterns {@link #all} lists too */
    public RouteTable(List<RouteConfig> routes, RouteConfig defaultRoute, List<DestinationConfig> destinations) {
        Map<String, NextHop> m = new HashMap<>();
        Map<String, String> sets = new HashMap<>();
        for (RouteConfig r : routes) {
            if (r.toSet()) {
                sets.put(r.domain().toLowerCase(Locale.ROOT), r.set());
            } else {
                m.put(r.domain().toLowerCase(Locale.ROOT), NextHop.of(r));
            }
        }
        this.byDomain = Map.copyOf(m);
        this.setByDomain = Map.copyOf(sets);
        this.defaultRoute = defaultRoute == null || defaultRoute.toSet() ? null : NextHop.of(defaultRoute);
        this.defaultSet = defaultRoute == null || !defaultRoute.toSet() ? null : defaultRoute.set();
        this.destinations = destinations.stream()
                .map(d -> new NextHop(d.host(), d.port(), d.transport(), d.connection())).toList();
    }

    /** The route configured for exactly this domain, to a host. */
    public Optional<NextHop> forDomain(String host) {
        return Optional.ofNullable(byDomain.get(host.toLowerCase(Locale.ROOT)));
    }

    /** The destination set the route for exactly this domain names. */
    public Optional<String> setForDomain(String host) {
        return Optional.ofNullable(setByDomain.get(host.toLowerCase(Locale.ROOT)));
    }

    /** The default route, if any, to a host. */
    public Optional<NextHop> defaultRoute() {
        return Optional.ofNullable(defaultRoute);
    }

    /** The destination set the default route names, if it names one. */
    public Optional<String> defaultSet() {
        return Optional.ofNullable(defaultSet);
    }

    /** Every next hop, the destinations' included, for building the per-target connection policy. */
    public List<NextHop> all() {
        var all = new ArrayList<>(byDomain.values());
        if (defaultRoute != null) {
            all.add(defaultRoute);
        }
        all.addAll(destinations);
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
