package org.sipcrypt.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigSource;
import org.sipcrypt.server.config.DestinationConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.http.AdminApi;
import org.sipcrypt.server.sip.proxy.DestinationSets;
import org.sipcrypt.server.sip.proxy.LiveRoutes;
import org.sipcrypt.server.sip.proxy.NextHop;
import org.sipcrypt.server.sip.proxy.RouteTable;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the static routes ({@code route}, {@code defaultRoute}) and the destination sets
 * ({@code destination}, with {@code destinations.algorithm}, {@code destinations.probeDownAfter} and
 * {@code destinations.probeUpAfter}) again from the configuration file the server started with
 * ({@code POST /admin/routes/reload}). The whole file is read and checked as at start (the values given
 * beside it still win; a route naming a set the file lacks refuses it); then each next hop's and each
 * destination's transport must be one the running server listens on, its host must resolve, as at
 * start, and its connection pattern must be the one the transport already uses for that address (the
 * transport's per-target patterns are fixed at start). Only then are the new routes and sets put in
 * force, in one swap; anything wrong keeps the old ones and says why. A destination that stays (same
 * set, host, port and transport) keeps its state and counts; the meters of those removed leave the
 * registry. Other keys changed in the file, {@code destinations.probeInterval} among them, are not
 * applied (they wait for a restart); a reload says nothing of them.
 * Threading: thread-safe; the reading and the name lookups run on the given executor (housekeeping),
 * never on an event loop.
 */
final class RoutesReload {

    private static final Logger log = LoggerFactory.getLogger(RoutesReload.class);

    private final ConfigSource source;
    private final LiveRoutes routes;
    private final ConnectionPolicy policy;
    private final Executor executor;
    private final Set<Transport> listening;

    /**
     * @param policy    the transport's connection patterns, or null with JAIN-SIP's transports (no per-call connections)
     * @param listening the transports the server has listeners of (a next hop's must be one)
     */
    RoutesReload(ConfigSource source, LiveRoutes routes, ConnectionPolicy policy, Executor executor,
                 Set<Transport> listening) {
        this.listening = Set.copyOf(listening);
        this.source = Objects.requireNonNull(source, "source");
        this.routes = Objects.requireNonNull(routes, "routes");
        this.policy = policy;
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /** Reads and checks the routes; completes with what is in force now, or why the new set was refused. */
    CompletableFuture<AdminApi.Reloaded> reload(String why) {
        if (source.file() == null) {
            return CompletableFuture.completedFuture(new AdminApi.Reloaded(false,
                    "the server was started without a configuration file (--config): there is nothing to read again",
                    null, null));
        }
        CompletableFuture<AdminApi.Reloaded> done = new CompletableFuture<>();
        try {
            executor.execute(() -> done.complete(reloadNow(why)));
        } catch (RejectedExecutionException e) {
            done.complete(new AdminApi.Reloaded(false, "the server is stopping", null, null));
        }
        return done;
    }

    private AdminApi.Reloaded reloadNow(String why) {
        RouteTable table;
        ServerConfig config;
        try {
            config = source.load();
            table = new RouteTable(config.routes(), config.defaultRoute());
            for (NextHop hop : table.all()) {
                check(hop, "route " + hop.routeUri());
            }
            for (DestinationConfig d : config.destinations().destinations()) {
                check(new NextHop(d.host(), d.port(), d.transport(), d.connection()), "destination " + d);
            }
        } catch (ConfigException e) {
            log.warn("routes not reloaded ({}): {}: {}", why, source.file(), e.getMessage());
            return new AdminApi.Reloaded(false, source.file() + ": " + e.getMessage(), null, null);
        }
        // the sets are built (new meters registered) only once nothing can refuse them
        LiveRoutes.InForce before = routes.current();
        DestinationSets sets = before.sets().next(config.destinations());
        routes.replace(new LiveRoutes.InForce(table, sets));
        int removed = before.sets().retire(sets);
        log.info("routes reloaded ({}) from {}: {}; destination sets {} ({} destinations removed)", why, source.file(),
                table.describe(), sets.describe(), removed);
        return new AdminApi.Reloaded(true, "reloaded from " + source.file(), table.describe(), sets.describe());
    }

    /** A next hop the running transport can serve as the configuration asks, or the reason why not. */
    private void check(NextHop hop, String what) throws ConfigException {
        if (!listening.contains(hop.transport())) {
            throw new ConfigException(what + ": transport " + hop.transport().configName()
                    + " needs a " + hop.transport().configName() + " listener to send from, and the running server has none");
        }
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(InetAddress.getByName(hop.host()), hop.port());
        } catch (UnknownHostException e) {
            throw new ConfigException(what + ": host " + hop.host() + " does not resolve", e);
        }
        ConnectionPattern running = policy == null ? ConnectionPattern.PERSISTENT : policy.patternFor(address);
        if (running != hop.connection()) {
            throw new ConfigException(what + ": connection " + hop.connection().configName()
                    + ", but connections to " + address + " are " + running.configName()
                    + " since start (connection patterns change only with a restart)");
        }
    }
}
