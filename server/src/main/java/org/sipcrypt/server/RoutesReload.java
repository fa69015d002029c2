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
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.http.AdminApi;
import org.sipcrypt.server.sip.proxy.LiveRoutes;
import org.sipcrypt.server.sip.proxy.NextHop;
import org.sipcrypt.server.sip.proxy.RouteTable;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the static routes ({@code route}, {@code defaultRoute}) again from the configuration file the
 * server started with ({@code POST /admin/routes/reload}). The whole file is read and checked as at
 * start (the values given beside it still win); then each next hop's transport must be one the
 * running server listens on, its host must resolve, as at start, and its connection pattern must be the one the transport already uses for that address (the
 * transport's per-target patterns are fixed at start). Only then is the new table put in force, in
 * one swap; anything wrong keeps the old one and says why. Other keys changed in the file are not
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
                    null));
        }
        CompletableFuture<AdminApi.Reloaded> done = new CompletableFuture<>();
        try {
            executor.execute(() -> done.complete(reloadNow(why)));
        } catch (RejectedExecutionException e) {
            done.complete(new AdminApi.Reloaded(false, "the server is stopping", null));
        }
        return done;
    }

    private AdminApi.Reloaded reloadNow(String why) {
        RouteTable next;
        try {
            ServerConfig config = source.load();
            next = new RouteTable(config.routes(), config.defaultRoute());
            for (NextHop hop : next.all()) {
                check(hop);
            }
        } catch (ConfigException e) {
            log.warn("routes not reloaded ({}): {}: {}", why, source.file(), e.getMessage());
            return new AdminApi.Reloaded(false, source.file() + ": " + e.getMessage(), null);
        }
        routes.replace(next);
        log.info("routes reloaded ({}) from {}: {}", why, source.file(), next.describe());
        return new AdminApi.Reloaded(true, "reloaded from " + source.file(), next.describe());
    }

    /** A next hop the running transport can serve as the configuration asks, or the reason why not. */
    private void check(NextHop hop) throws ConfigException {
        if (!listening.contains(hop.transport())) {
            throw new ConfigException("route " + hop.routeUri() + ": transport " + hop.transport().configName()
                    + " needs a " + hop.transport().configName() + " listener to send from, and the running server has none");
        }
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(InetAddress.getByName(hop.host()), hop.port());
        } catch (UnknownHostException e) {
            throw new ConfigException("route " + hop.routeUri() + ": host " + hop.host() + " does not resolve", e);
        }
        ConnectionPattern running = policy == null ? ConnectionPattern.PERSISTENT : policy.patternFor(address);
        if (running != hop.connection()) {
            throw new ConfigException("route " + hop.routeUri() + ": connection " + hop.connection().configName()
                    + ", but connections to " + address + " are " + running.configName()
                    + " since start (connection patterns change only with a restart)");
        }
    }
}
