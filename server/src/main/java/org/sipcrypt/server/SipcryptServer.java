package org.sipcrypt.server;

import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;
import javax.sip.SipFactory;
import javax.sip.header.CallIdHeader;
import org.sipcrypt.server.auth.CredentialBatcher;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.config.AddressBlock;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.LimitsConfig;
import org.sipcrypt.server.config.ConfigSource;
import org.sipcrypt.server.config.Mode;
import org.sipcrypt.server.config.OverloadConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.config.TransportImpl;
import org.sipcrypt.server.http.HealthCheck;
import org.sipcrypt.server.http.AdminApi;
import org.sipcrypt.server.http.HttpEndpoints;
import org.sipcrypt.server.http.NettyHttpListener;
import org.sipcrypt.server.http.ServerMetrics;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.EmbeddedDatabase;
import org.sipcrypt.server.location.CachedLocationService;
import org.sipcrypt.server.location.JdbcLocationService;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.location.SubscriberStore;
import org.sipcrypt.server.routing.CallRouter;
import org.sipcrypt.server.routing.CallRouters;
import org.sipcrypt.server.routing.RouterContext;
import org.sipcrypt.server.sip.EarlyChallenge;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.LocalDomains;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.SipCounters;
import org.sipcrypt.server.sip.SipDispatcher;
import org.sipcrypt.server.sip.SipStackBuilder;
import org.sipcrypt.server.sip.SipcryptSipStack;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.sip.TransactionAgeLimit;
import org.sipcrypt.server.dns.SipServerLocator;
import org.sipcrypt.server.sip.proxy.CallRouting;
import org.sipcrypt.server.sip.proxy.EstablishedDialogs;
import org.sipcrypt.server.cdr.CallRecords;
import org.sipcrypt.server.cdr.CdrSink;
import org.sipcrypt.server.cdr.CdrWriter;
import org.sipcrypt.server.cdr.JdbcCdrSink;
import org.sipcrypt.server.cdr.JsonLinesSink;
import org.sipcrypt.server.sip.proxy.DestinationProber;
import org.sipcrypt.server.sip.proxy.DestinationSet;
import org.sipcrypt.server.sip.proxy.DestinationSets;
import org.sipcrypt.server.sip.proxy.NextHop;
import org.sipcrypt.server.sip.proxy.LiveRoutes;
import org.sipcrypt.server.sip.proxy.RouteTable;
import org.sipcrypt.server.sip.proxy.StatelessRelay;
import org.sipcrypt.server.sip.proxy.StatefulProxy;
import org.sipcrypt.server.sip.redirect.RedirectServer;
import org.sipcrypt.server.sip.registrar.ExpiresPolicy;
import org.sipcrypt.server.sip.registrar.PathTrust;
import org.sipcrypt.server.sip.registrar.RegisteredFlows;
import org.sipcrypt.server.sip.registrar.Registrar;
import org.sipcrypt.server.tls.PeerRevocation;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.transport.CallConnections;
import org.sipcrypt.server.transport.kept.CompletedTransactions;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.OverloadGuard;
import org.sipcrypt.server.transport.SipWorkers;
import org.sipcrypt.server.transport.SourceLimits;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.netty.NettyTransport;
import org.sipcrypt.server.transport.netty.TransportSettings;
import org.sipcrypt.server.transport.netty.tls.TlsStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running sipcrypt server: the database and location service, the SIP worker lanes, the
 * transport, the JAIN-SIP stack with its listening points, and the SIP functions on top.
 * {@link #start} brings it up in that order; {@link #close} drains and takes it down in reverse.
 * Threading: start and close from one control thread; the accessors are thread-safe.
 */
public final class SipcryptServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SipcryptServer.class);
    private static final Duration PURGE_INTERVAL = Duration.ofSeconds(30);
    /** How often server transactions are checked against their age bound ({@link TransactionAgeLimit}). */
    private static final Duration AGE_SWEEP_INTERVAL = Duration.ofSeconds(5);
    /**
     * Most completed UDP transactions whose final response is kept for retransmissions: Timer J
     * (32 s) at 6,000 non-INVITE requests/s, a few hundred bytes each.
     */
    private static final long COMPLETED_TRANSACTIONS = 200_000;
    /** Bound of the {@code sipcrypt-router} pool's queue: requests waiting for a router thread; beyond it 503. */
    static final int ROUTER_QUEUE = 1_000;

    private final ServerConfig config;
    private final MeterRegistry registry;
    private final TransportCounters transportCounters;
    private final Database database;
    private final LocationService location;
    private final SipWorkers workers;
    private final NettyTransport transport;
    private final SipcryptSipStack stack;
    private final SipContext context;
    private final List<Listener> listeners;
    private final ScheduledExecutorService housekeeping;
    private final CredentialBatcher credentials;
    private ShutdownDrain drain;
    /** Completes when {@link #close} has finished. */
    private final java.util.concurrent.CompletableFuture<Void> stopped = new java.util.concurrent.CompletableFuture<>();
    /** Set by {@link #start} before the server is handed out. */
    private ServerMetrics metrics;
    private HealthCheck health;
    private TlsReloads tlsReloads;
    private HttpEndpoints endpoints;
    private NettyHttpListener http;
    /** The call detail record writer; null with {@code cdr.sink=none}. */
    private CdrWriter cdrWriter;
    private SipServerLocator dns;
    private boolean closed;
    /** Stops the {@code sipcrypt-router} pool and closes the routers; null without routers. */
    private AutoCloseable routers;

    /** Sends the destinations' OPTIONS probes; null without destination sets or probing. */
    private DestinationProber prober;

    private SipcryptServer(ServerConfig config, MeterRegistry registry, TransportCounters transportCounters,
                           Database database, LocationService location, SipWorkers workers, NettyTransport transport,
                           SipcryptSipStack stack, SipContext context, List<Listener> listeners,
                           ScheduledExecutorService housekeeping, CredentialBatcher credentials) {
        this.config = config;
        this.registry = registry;
        this.transportCounters = transportCounters;
        this.database = database;
        this.location = location;
        this.workers = workers;
        this.transport = transport;
        this.stack = stack;
        this.context = context;
        this.listeners = listeners;
        this.housekeeping = housekeeping;
        this.credentials = credentials;
    }

    /**
     * Starts a server, its components in this order: metrics, database and location service, SIP
     * worker lanes, transport and its listeners, the JAIN-SIP stack with its listening points, the
     * SIP context, housekeeping, authentication, the operator's routers, the SIP functions, then the
     * shutdown drain, health, gauges, the HTTP listener and the periodic tasks. On failure everything started so far is
     * closed again, in reverse.
     */
    public static SipcryptServer start(ServerConfig config) throws Exception {
        return start(config, Clock.systemUTC());
    }

    /** Starts a server whose SIP layer (nonces, bindings) reads {@code clock}: tests move it by hand. */
    public static SipcryptServer start(ServerConfig config, Clock clock) throws Exception {
        return start(config, clock, ConfigSource.NONE);
    }

    /**
     * Starts a server from {@code config}, which was read from {@code source}: what can be reloaded at
     * run time ({@code POST /admin/routes/reload}) is read from there again.
     */
    public static SipcryptServer start(ServerConfig config, Clock clock, ConfigSource source) throws Exception {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(clock, "clock");
        log.info("starting sipcrypt: {}", ConfigLoader.describe(config).replace('\n', ' '));
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            ServerMetrics metrics = opened(opened, new ServerMetrics());
            MeterRegistry registry = metrics.registry();
            TransportCounters transportCounters = new TransportCounters(registry);
            SipCounters sipCounters = new SipCounters(registry);
            Database database = opened(opened, EmbeddedDatabase.openConfigured(config.dbUrl(), config.dataDir(),
                    config.dbUser(), config.dbPassword(), config.dbPoolSize(), config.dbBreaker().connectTimeout(),
                    config.dbBreaker().probeInterval()));
            ServerGauges.databaseBreaker(database.breaker(), registry);
            LocationService location = opened(opened, new JdbcLocationService(database, config.dbPoolSize(), 10_000,
                    config.maxContacts(), config.maxBindings()));
            if (config.locationCached()) {
                CachedLocationService cached = new CachedLocationService(location, config.locationCacheSize());
                ServerGauges.locationCache(cached, registry);
                location = cached;
            }
            SipWorkers workers = opened(opened, new SipWorkers(config.sipWorkers(), config.sipQueueCapacity(),
                    config.overload().maxQueuedBytes(), e -> sipCounters.error("worker_task")));
            RouteTable routes = new RouteTable(config.routes(), config.defaultRoute(),
                    config.destinations().destinations());
            DestinationSets sets = new DestinationSets(config.destinations(), registry);
            NettyTransport transport = config.transportImpl() != TransportImpl.NETTY ? null
                    : opened(opened, new NettyTransport(transportSettings(config, routes), transportCounters, workers,
                            new CompletedTransactions(CompletedTransactions.TIMER_J, CompletedTransactions.TIMER_I,
                                    COMPLETED_TRANSACTIONS, config.overload().maxKeptBytes(), Ticker.systemTicker())));
            List<Listener> listeners = Listeners.bind(config, routes, transport);
            SipcryptSipStack stack = SipStackBuilder.build(config);
            opened.add(stack::stop);
            ListeningPoints lps = Listeners.listen(stack, transport, listeners);
            LocalDomains local = Listeners.localDomains(config, listeners);
            SipFactory factory = SipFactory.getInstance();
            SipContext context = new SipContext(factory.createMessageFactory(), factory.createHeaderFactory(),
                    factory.createAddressFactory(), lps, local, workers,
                    transport != null ? transport : CallConnections.NONE, sipCounters, clock,
                    transport != null ? transport.completedTransactions() : null);
            ScheduledThreadPoolExecutor housekeeping = NamedThreads.named("sipcrypt-housekeeping").scheduler();
            opened.add(housekeeping::shutdownNow);
            CdrWriter cdrWriter = config.cdr().enabled()
                    ? opened(opened, new CdrWriter(cdrSink(config, database), config.cdr().queueSize(), registry)) : null;
            CallRecords records = cdrWriter == null ? null : new CallRecords(clock, openCallsKept(config),
                    config.recordRoute() && config.overload().maxDialogs() > 0, cdrWriter::offer, registry);
            EstablishedDialogs dialogs = establishedDialogs(config, registry, clock, records);
            SourceLimits limits = sourceLimits(config, transport, registry, clock);
            Authentication auth = Authentication.start(config, database, context, local, dialogs, registry);
            if (auth.credentials() != null) {
                opened.add(auth.credentials());
            }
            RegisteredFlows flows = new RegisteredFlows(context.calls(), clock, config.maxBindings());
            ServerGauges.flows(registry, flows, transports(listeners));
            LiveRoutes liveRoutes = new LiveRoutes(routes, sets);
            CallRouters routers = null;
            CallRouting routing = null;
            ThreadPoolExecutor routerPool = null;
            if (config.routing().enabled()) {
                try {
                    routers = opened(opened, CallRouters.load(config.routing().routers(),
                            CallRouter.class.getClassLoader(),
                            new RouterContext(database.dataSource(), config.routing().options(), clock)));
                } catch (IllegalStateException e) {
                    // a router missing from the class path, or one refusing its options: the configuration's fault
                    throw new ConfigException(e.getMessage(), e);
                }
                routerPool = NamedThreads.numbered("sipcrypt-router").boundedPool(config.dbPoolSize(), ROUTER_QUEUE);
                opened.add(routerPool::shutdownNow);
                routing = new CallRouting(context, routers, config.routing().timeout(), routerPool, housekeeping,
                        registry, liveRoutes);
                log.info("routers {} decide new out-of-dialog requests (routing.timeout {} ms)", routers.names(),
                        config.routing().timeout().toMillis());
            }
            StatefulProxy proxy = new StatefulProxy(context, location, liveRoutes, config.recordRoute(), housekeeping,
                    config.timerC(), auth.routeSigner(), dialogs, auth.flowTokens(), routing, records);
            SipServerLocator dns = null;
            if (config.mode() == Mode.PROXY) {
                // RFC 3263: next hops named by a host name are located off the lanes, on sipcrypt-dns
                proxy.locateNextHopsWith(dns = opened(opened, new SipServerLocator(config.dns(), transports(listeners),
                        d -> lps.all().stream().anyMatch(e -> e.listener().transport() == d.transport()
                                && e.listener().sameFamily(d.address().getAddress())),
                        registry, Ticker.systemTicker())), transport == null ? null : transport::aliased);
            }
            SipDispatcher dispatcher = new SipDispatcher(context, config.mode(),
                    new Registrar(context, location, new ExpiresPolicy(config.minExpires(), config.maxExpires(),
                            config.defaultExpires()), config.maxContacts(), config.tcpIdleTimeout(), flows,
                            PathTrust.of(config.auth(), config.tls())),
                    proxy, new RedirectServer(context, location), auth.authenticator(), auth.policy(),
                    limits == null ? from -> { } : limits::authFailed);
            // one SipListener for the stack, on every provider (one per k-th listener of each transport)
            for (ListeningPoints.Entry e : lps.all()) {
                if (e.provider().getListeningPoints()[0] == e.point()) {
                    e.provider().addSipListener(dispatcher);
                }
            }
            DestinationProber prober = null;
            if (config.mode() == Mode.PROXY && config.destinations().probing()) {
                // started without sets too: a routes reload may bring some, probed from the next round
                prober = opened(opened, DestinationProber.start(context, liveRoutes,
                        config.destinations().probeInterval()));
            }
            if (prober != null && !sets.all().isEmpty()) {
                log.info("probing {} destinations of sets {} with OPTIONS every {} ms", sets.destinations().size(),
                        sets.all().stream().map(DestinationSet::name).toList(),
                        config.destinations().probeInterval().toMillis());
            }
            if (transport != null && !config.fastPath()) {
                log.info("sip.fastPath=off: every message is parsed and goes through the stack's transactions;"
                        + " no early challenge, no early relays, nothing settled from the bytes");
            }
            if (transport != null && config.fastPath() && auth.authenticator() != null) {
                // the first INVITE of each call is challenged from its bytes, without the stack
                transport.answerEarlyWith(new EarlyChallenge(context, config.auth(), auth.authenticator()));
            }
            if (transport != null && config.mode() == Mode.PROXY) {
                // a forwarded request whose connection (dialled without the lane waiting) failed to
                // be set up is a 503 on its branch, on the call's lane
                transport.reportRequestsNotSentTo((request, cause) -> {
                    ClientTransaction ct = stack.clientTransactionOf(request);
                    if (ct != null) {
                        String callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
                        context.lane(callId).execute(() -> proxy.onNotSent(ct));
                    }
                });
            }
            if (transport != null && config.fastPath() && config.mode() == Mode.PROXY) {
                // the ACK for a 2xx and BYE, with their responses, and the 2xx and 1xx to an INVITE are
                // relayed from their bytes over UDP, TCP and TLS, without the stack's parse
                transport.relayEarlyWith(new StatelessRelay(context, auth.policy(), dialogs, proxy,
                        transport.settings().policy()));
            }

            SipcryptServer server = new SipcryptServer(config, registry, transportCounters, database, location, workers,
                    transport, stack, context, listeners, housekeeping, auth.credentials());
            server.drain = new ShutdownDrain(context, overloadGuard(config, workers, context, stack, transport,
                    dialogs, limits, registry, housekeeping), dialogs, transport);
            server.metrics = metrics;
            if (routers != null) {
                CallRouters started = routers;
                ThreadPoolExecutor pool = routerPool;
                server.routers = () -> {
                    pool.shutdownNow();
                    started.close();
                };
            }
            server.cdrWriter = cdrWriter;
            server.prober = prober;
            server.dns = dns;
            server.health = opened(opened, new HealthCheck(server::listenerNames, server::listening,
                    context::draining, database.dataSource(), config.http().healthTimeout()));
            ServerGauges.serverState(registry, server, SipcryptServer::openTransactions,
                    SipcryptServer::liveServerTransactions, workers, transport,
                    transports(listeners), location);
            revocationChecks(transport, registry);
            ocspFetches(transport, registry);
            TlsReloads tlsReloads = tlsReloads(config, transport, housekeeping, registry);
            if (tlsReloads != null) {
                server.tlsReloads = tlsReloads;
                opened.add(tlsReloads);
            }
            AdminApi admin = null;
            if (config.http().adminEnabled()) {
                admin = new AdminApi(config.http().adminToken(), location, uri -> uri instanceof javax.sip.address.SipURI sip && context.local().isLocalDomain(sip.getHost()),
                        config.maxExpires(), clock, registry, tlsReloads == null ? null : tlsReloads::reload,
                        new AdminApi.Control(config.mode() == Mode.PROXY ? proxy.byes() : null,
                                new RoutesReload(source, liveRoutes,
                                        transport == null ? null : transport.settings().policy(), housekeeping,
                                        listeners.stream().map(Listener::transport).collect(Collectors.toSet()))::reload,
                                server.adminDrain(), housekeeping))
                        .withDestinations(() -> liveRoutes.current().sets().snapshot());
                log.info("management API on under {} (admin.token set)", AdminApi.PREFIX);
            }
            server.endpoints = new HttpEndpoints(metrics, server.health, admin);
            if (config.http().enabled()) {
                server.http = opened(opened, NettyHttpListener.start(config.http(), server.endpoints));
            }
            server.schedulePeriodicTasks();
            log.info("sipcrypt {} mode ready on {}", config.mode().configName(), server.describeAddresses());
            return server;
        } catch (Exception | Error e) {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** Draining and stopping for the management API. */
    private AdminApi.Drain adminDrain() {
        return new AdminApi.Drain() {
            @Override
            public CompletableFuture<AdminApi.Drained> drain(String listener, String why) {
                return SipcryptServer.this.drain(listener, why);
            }

            @Override
            public void stop(String why) {
                log.info("stopping ({}): draining for up to {}, then closing", why, config.shutdownGrace());
                Thread t = new Thread(() -> {
                    try {
                        close();
                    } catch (RuntimeException e) {
                        log.error("graceful shutdown failed", e);
                    }
                }, "sipcrypt-stop");
                t.setDaemon(true);
                t.start();
            }
        };
    }

    /**
     * New requests outside a dialog get 503 from now on ({@code listener} null), or the one stream
     * listener named {@code listener} ({@code tls:0.0.0.0:5061}, or its name in {@link #listenerNames},
     * {@code tls}, {@code tcp.2}) accepts no new connection while its open ones stay. A datagram
     * listener cannot be drained alone: its one socket carries the calls already up too.
     */
    CompletableFuture<AdminApi.Drained> drain(String listener, String why) {
        if (listener == null) {
            drain.refuseNewRequests();
            log.info("draining ({}): new requests outside a dialog get 503; {} established calls go on", why,
                    drain.calls());
            return CompletableFuture.completedFuture(new AdminApi.Drained(200, "new requests outside a dialog get 503"
                    + " with Retry-After; " + drain.calls() + " established calls go on"));
        }
        Map<String, String> names = listenerNames();
        Listener found = null;
        Map<Transport, Integer> seen = new EnumMap<>(Transport.class);
        for (Listener l : listeners) {
            int n = seen.merge(l.transport(), 1, Integer::sum);
            String name = l.transport().configName() + (n == 1 ? "" : "." + n);
            String address = l.transport().configName() + ":" + org.sipcrypt.server.config.HostPort.format(
                    l.bound().getAddress().getHostAddress(), l.bound().getPort());
            if (listener.equals(name) || listener.equals(address)) {
                found = l;
            }
        }
        if (found == null) {
            return CompletableFuture.completedFuture(
                    new AdminApi.Drained(404, "no listener " + listener + " (listeners: " + names + ")"));
        }
        if (!found.transport().reliable()) {
            return CompletableFuture.completedFuture(new AdminApi.Drained(409, listener + ": a datagram listener"
                    + " cannot be drained alone, as its one socket carries the calls already up too; drain the whole"
                    + " server instead"));
        }
        CompletableFuture<Void> closed = transport == null ? null : transport.stopAccepting(found.transport(), found.bound());
        if (closed == null) {
            return CompletableFuture.completedFuture(new AdminApi.Drained(409, listener + ": only sipcrypt's own"
                    + " transport (transport.impl=netty) can stop accepting on one listener"));
        }
        Listener drained = found;
        // answered once the listening socket is closed, so that a connection attempted after the answer is refused
        return closed.thenApply(v -> {
            log.info("draining ({}): {} accepts no new connection; its open connections stay", why, drained);
            return new AdminApi.Drained(200, listener + " accepts no new connection; its open connections stay");
        });
    }

    /** Adds {@code component} to those closed again should start fail, and returns it. */
    private static <T extends AutoCloseable> T opened(List<AutoCloseable> opened, T component) {
        opened.add(component);
        return component;
    }

    /**
     * Purging lapsed bindings, the age bound on server transactions, sweeping expired kept answers
     * every second (so that their bytes go when nothing is written too), and the stats line every
     * {@code stats.interval} unless that is 0.
     */
    private void schedulePeriodicTasks() {
        housekeeping.scheduleWithFixedDelay(this::purgeExpired, PURGE_INTERVAL.toMillis(), PURGE_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
        // a transaction whose request is not set yet has no method: not an INVITE one
        TransactionAgeLimit<ServerTransaction> ages = new TransactionAgeLimit<>(config.timerC(),
                st -> javax.sip.message.Request.INVITE.equals(StackInternals.method(st)));
        housekeeping.scheduleWithFixedDelay(() -> endOverage(ages), AGE_SWEEP_INTERVAL.toMillis(),
                AGE_SWEEP_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        if (transport != null) {
            CompletedTransactions kept = transport.completedTransactions();
            housekeeping.scheduleWithFixedDelay(kept::sweepExpired, 1, 1, TimeUnit.SECONDS);
        }
        if (!config.statsInterval().isZero()) {
            long every = config.statsInterval().toMillis();
            housekeeping.scheduleAtFixedRate(() -> log.info("stats: {}", statsLine()), every, every,
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The calls established through this proxy, which the shutdown drain waits for and a signed route
     * must match to prove a live dialog; their ages read {@code clock}. Null when none are kept
     * (no Record-Route, or {@code shutdown.maxDialogs} 0).
     */
    private static EstablishedDialogs establishedDialogs(ServerConfig config, MeterRegistry registry, Clock clock,
                                                        CallRecords records) {
        if (!config.recordRoute() || config.overload().maxDialogs() == 0) {
            return null;
        }
        return new EstablishedDialogs(config.overload().maxDialogs(), config.overload().dialogLifetime(),
                () -> {
                    Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                }, registry, records == null ? null : records::forgotten, config.http().adminEnabled());
    }

    /**
     * Where call detail records go ({@code cdr.sink}): the JSON-lines file, opened for appending now,
     * or the server's database through its pool.
     */
    private static CdrSink cdrSink(ServerConfig config, Database database) throws java.io.IOException {
        return switch (config.cdr().sink()) {
            case JSONL -> {
                try {
                    yield new JsonLinesSink(config.cdr().file());
                } catch (java.io.IOException e) {
                    throw new java.io.IOException("cdr.file: cannot open " + config.cdr().file() + " for appending ("
                            + e + ")", e);
                }
            }
            case DATABASE -> new JdbcCdrSink(database.dataSource());
            case NONE -> throw new IllegalStateException("cdr.sink=none has no sink");
        };
    }

    /**
     * Most calls in progress the call records keep: as many as the dialogs kept
     * ({@code shutdown.maxDialogs}), or that default when none are.
     */
    private static int openCallsKept(ServerConfig config) {
        int dialogs = config.overload().maxDialogs();
        return dialogs > 0 ? dialogs : OverloadConfig.defaults().maxDialogs();
    }

    /**
     * The per-source limits ({@code limits.*}), reading {@code clock}; null when they are off or with
     * JAIN-SIP's own transports, which have no admission check to apply them (logged as a warning).
     * Sources in {@code limits.allow} and {@code auth.trustedPeers} are exempt.
     */
    private static SourceLimits sourceLimits(ServerConfig config, NettyTransport transport, MeterRegistry registry,
                                             Clock clock) {
        LimitsConfig l = config.limits();
        if (!l.enabled()) {
            return null;
        }
        if (transport == null) {
            log.warn("limits.* apply to sipcrypt's transport only: with transport.impl={} no source is rate-limited"
                    + " or banned", config.transportImpl().configName());
            return null;
        }
        List<AddressBlock> exempt = new ArrayList<>(l.allow());
        exempt.addAll(config.auth().trustedPeers());
        return new SourceLimits(l.requestsPerSecond(), l.burst(), l.authFailures(), l.authFailureWindow(),
                l.banTime(), l.maxSources(), a -> exempt.stream().anyMatch(b -> b.contains(a)), () -> {
                    Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                }, registry);
    }

    /**
     * The admission check in front of the worker lanes (sipcrypt's transport only), sampling the heap
     * after GC every second when that budget is on, and applying the per-source limits (swept every
     * second) when there are any; null with the JAIN-SIP transports.
     */
    private static OverloadGuard overloadGuard(ServerConfig config, SipWorkers workers, SipContext context,
                                               SipcryptSipStack stack, NettyTransport transport,
                                               EstablishedDialogs dialogs, SourceLimits limits,
                                               MeterRegistry registry, ScheduledExecutorService housekeeping) {
        if (transport == null) {
            return null;
        }
        var o = config.overload();
        // JAIN-SIP keys a server transaction by its RFC 3261 branch in lower case (SIPRequest.getTransactionId)
        // when the heap is full the guard frees the kept answers, the one store of input it can empty at
        // once, and asks for a collection (a server refusing everything may allocate too little for one
        // to come), so that the heap is seen to fall and admission resumes
        CompletedTransactions kept = transport.completedTransactions();
        OverloadGuard guard = new OverloadGuard(o.queueThreshold(), o.maxQueueDelay(), o.maxTransactions(),
                o.maxHeapAfterGc(), o.retryAfter(), workers, context::unansweredRequests,
                stack::holdsServerTransaction,
                dialogs == null ? (callId, fromTag, toTag) -> false : dialogs::tracks, OverloadGuard::heapUsedAfterGc,
                () -> kept.trim(0), System::gc, registry);
        if (!o.queueTarget().isZero()) {
            guard.refuseStandingQueues(o.queueTarget(), o.queueInterval());
        }
        if (o.maxHeapAfterGc() > 0) {
            housekeeping.scheduleWithFixedDelay(guard::sampleHeap, 1, 1, TimeUnit.SECONDS);
        }
        if (limits != null) {
            guard.limitSourcesWith(limits);
            housekeeping.scheduleWithFixedDelay(limits::sweep, 1, 1, TimeUnit.SECONDS);
        }
        transport.admitWith(guard);
        return guard;
    }

    /**
     * {@code tls.revocation.checks{result}}: the revocation checks of peers' certificates on the
     * listener's TLS stage and every {@code tls.peer} stage, by result; nothing with checks off.
     */
    private static void revocationChecks(NettyTransport transport, MeterRegistry registry) {
        if (transport == null || transport.settings().tls() == null
                || revocations(transport).stream().noneMatch(PeerRevocation::enabled)) {
            return;
        }
        for (PeerRevocation.Result r : PeerRevocation.Result.values()) {
            // the meter holds its object weakly: the transport, which the server holds
            FunctionCounter.builder("tls.revocation.checks", transport,
                    t -> revocations(t).stream().mapToLong(p -> p.count(r)).sum()).tag("result", r.tag()).register(registry);
        }
    }

    /**
     * {@code tls.ocsp.fetches{result}} and {@code tls.ocsp.fetch.latency}: the OCSP fetches of every
     * TLS stage (peers' certificates and the stapled response), by how they ended; nothing without OCSP.
     */
    private static void ocspFetches(NettyTransport transport, MeterRegistry registry) {
        if (transport == null || transport.settings().tls() == null || ocspClients(transport).isEmpty()) {
            return;
        }
        for (org.sipcrypt.server.tls.OcspAnswer.Fetch f : org.sipcrypt.server.tls.OcspAnswer.Fetch.values()) {
            FunctionCounter.builder("tls.ocsp.fetches", transport,
                    t -> ocspClients(t).stream().mapToLong(c -> c.fetches(f)).sum()).tag("result", f.tag()).register(registry);
        }
        io.micrometer.core.instrument.FunctionTimer.builder("tls.ocsp.fetch.latency", transport,
                t -> ocspClients(t).stream().mapToLong(org.sipcrypt.server.tls.OcspClient::fetchCount).sum(),
                t -> ocspClients(t).stream().mapToLong(org.sipcrypt.server.tls.OcspClient::fetchNanos).sum(),
                TimeUnit.NANOSECONDS).register(registry);
    }

    private static List<org.sipcrypt.server.tls.OcspClient> ocspClients(NettyTransport transport) {
        List<org.sipcrypt.server.tls.OcspClient> all = new ArrayList<>();
        if (transport.settings().tls().ocsp() != null) {
            all.add(transport.settings().tls().ocsp());
        }
        transport.settings().peerTls().values().forEach(s -> {
            if (s.ocsp() != null) {
                all.add(s.ocsp());
            }
        });
        return all;
    }

    private static List<PeerRevocation> revocations(NettyTransport transport) {
        List<PeerRevocation> all = new ArrayList<>();
        all.add(transport.settings().tls().revocation());
        transport.settings().peerTls().values().forEach(s -> all.add(s.revocation()));
        return all;
    }

    /**
     * Certificate, trust and revocation-list reloads (HTTP, SIGHUP, {@code tls.watchInterval}) of the
     * TLS stage the tls and wss listeners share with outgoing TLS, and of each {@code tls.peer}'s; null
     * when there is nothing to reload (no serving listener, no {@code tls.trust}, no CRLs, no
     * {@code tls.peer}).
     */
    private static TlsReloads tlsReloads(ServerConfig config, NettyTransport transport,
                                         ScheduledExecutorService housekeeping, MeterRegistry registry) {
        if (transport == null) {
            return null;
        }
        boolean serves = config.listeners().stream().anyMatch(l -> l.transport().secure())
                && transport.settings().tls().canServe();
        if (!serves && config.tls().trust() == null && config.tls().revocation() == TlsConfig.Revocation.OFF
                && transport.settings().peerTls().isEmpty()) {
            return null;
        }
        TlsReloads reloads = new TlsReloads(transport.settings().tls(), transport.settings().peerTls().values(),
                config.tls(), housekeeping, registry);
        reloads.reloadOnHangup();
        return reloads;
    }

    private static TransportSettings transportSettings(ServerConfig config, RouteTable routes) throws IOException {
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        Map<InetSocketAddress, ConnectionPattern> byTarget = new HashMap<>();
        for (NextHop hop : routes.all()) {
            byTarget.put(new InetSocketAddress(InetAddress.getByName(hop.host()), hop.port()), hop.connection());
        }
        TlsStage listenerTls = TlsStage.forListener(config.tls(), registry);
        Map<InetSocketAddress, TlsStage> peerTls;
        try {
            peerTls = TlsStage.forPeers(config.tls(), registry);
        } catch (IOException | RuntimeException e) {
            // the listener's stage may hold native TLS contexts and threads
            listenerTls.close();
            throw e;
        }
        return new TransportSettings(config.ioThreads(), config.maxMessageBytes(), config.tcpIdleTimeout(),
                config.tcpMaxConnections(), config.tcpConnectTimeout(), config.tcpConnectFailureHold(),
                new ConnectionPolicy(config.tcpConnection(), byTarget), listenerTls, peerTls,
                config.tcpLimits().streamLimits(config.auth().trustedPeers()), config.fastPath(),
                config.webSocket());
    }

    /**
     * Ends the server transactions older than their bound, whatever kept them: each is counted as
     * {@code sip.transactions.aborted{reason=age_bound}} and no longer awaited at shutdown.
     */
    private void endOverage(TransactionAgeLimit<ServerTransaction> ages) {
        List<ServerTransaction> over;
        try {
            over = ages.overage(stack.serverTransactions(), System.nanoTime());
        } catch (RuntimeException e) {
            // thrown out of a periodic task, it would cancel every later sweep
            context.counters().error("age_sweep");
            log.warn("the sweep of server transactions past their age bound failed: {}", e.toString());
            return;
        }
        for (ServerTransaction st : over) {
            context.counters().transactionAborted("age_bound");
            try {
                context.endTransaction(st);
            } catch (RuntimeException e) {
                // one transaction the stack fails to end must not cancel the sweep for all later ones
                context.counters().error("end_transaction");
                log.debug("cannot end server transaction {} past its age bound: {}", StackInternals.id(st),
                        e.toString());
            } finally {
                context.answered(st);
            }
        }
        if (!over.isEmpty()) {
            log.debug("ended {} server transactions older than {} (INVITE) or {}", over.size(), ages.inviteBound(),
                    ages.nonInviteBound());
        }
    }

    private void purgeExpired() {
        location.purgeExpired(context.clock().instant()).whenComplete((n, e) -> {
            if (e != null) {
                log.debug("purging lapsed bindings failed: {}", e.toString());
            } else if (n > 0) {
                log.debug("purged {} lapsed bindings", n);
            }
        });
    }

    /** The configuration this server runs with. */
    public ServerConfig config() {
        return config;
    }

    /** The address the first listener of a transport is bound to (with the actual port when 0 was configured), or null. */
    public InetSocketAddress address(Transport t) {
        for (Listener l : listeners) {
            if (l.transport() == t) {
                return l.bound();
            }
        }
        return null;
    }

    /** The listeners, in configuration order, with their bound and advertised addresses. */
    public List<Listener> listeners() {
        return listeners;
    }

    private static Set<Transport> transports(List<Listener> listeners) {
        Set<Transport> out = java.util.EnumSet.noneOf(Transport.class);
        listeners.forEach(l -> out.add(l.transport()));
        return out;
    }

    /** The metrics registry of this server. */
    public MeterRegistry registry() {
        return registry;
    }

    /** The metrics registry in Prometheus form, for {@code /metrics}. */
    public ServerMetrics metrics() {
        return metrics;
    }

    /** What the HTTP endpoints answer, the management API's included: the jar's listener's and the WAR's. */
    public HttpEndpoints endpoints() {
        return endpoints;
    }

    /** The check behind {@code /health}. */
    public HealthCheck healthCheck() {
        return health;
    }

    /** The address of the {@code --http} listener, or null when there is none. */
    public InetSocketAddress httpAddress() {
        return http != null ? http.address() : null;
    }

    /**
     * The listeners by transport name with their bound addresses: the first of a transport as
     * {@code udp}, {@code tls}, further ones as {@code udp.2}, {@code udp.3}.
     */
    public Map<String, String> listenerNames() {
        Map<String, String> out = new TreeMap<>();
        Map<Transport, Integer> seen = new EnumMap<>(Transport.class);
        for (Listener l : listeners) {
            int n = seen.merge(l.transport(), 1, Integer::sum);
            out.put(l.transport().configName() + (n == 1 ? "" : "." + n),
                    org.sipcrypt.server.config.HostPort.format(l.bound().getAddress().getHostAddress(), l.bound().getPort()));
        }
        return out;
    }

    /**
     * Whether every listener is bound and open: false once shutdown stops accepting. JAIN-SIP's own
     * transports ({@code transport.impl=jain-*}) count as listening until shutdown starts.
     */
    public boolean listening() {
        if (config.transportImpl() != TransportImpl.NETTY) {
            return !context.draining();
        }
        for (ListeningPoints.Entry e : context.listeningPoints().all()) {
            if (!NettyTransport.listening(e.point())) {
                return false;
            }
        }
        return true;
    }

    /** Completes once the server has stopped, by {@link #close} from whatever thread ({@code POST /admin/stop}). */
    public java.util.concurrent.CompletableFuture<Void> whenStopped() {
        return stopped;
    }

    /** Whether the server is shutting down (refusing new calls). */
    public boolean draining() {
        return context.draining();
    }

    /** The digest subscribers in this server's database (its methods block on JDBC). */
    public SubscriberStore subscribers() {
        return new SubscriberStore(database.dataSource());
    }

    /** The transport's bad-input and connection counters. */
    public TransportCounters transportCounters() {
        return transportCounters;
    }

    /** The SIP worker lanes (tests hold a lane busy with them to build a backlog). */
    public SipWorkers workers() {
        return workers;
    }

    /** Open transactions in the stack (server and client). */
    public int openTransactions() {
        return stack.getServerTransactionTableSize() + stack.getClientTransactionTableSize();
    }

    /** Server transactions in the stack, answered or not: each ends by its timers, or by the age bound. */
    public int liveServerTransactions() {
        return stack.getServerTransactionTableSize();
    }

    /** Requests whose server transaction has not ended yet: what {@code overload.maxTransactions} bounds. */
    public int unansweredRequests() {
        return context.unansweredRequests();
    }

    /** Every non-zero counter and gauge as {@code name{tags}=value}, sorted, on one line. */
    public String statsLine() {
        return StatsLine.of(registry, openTransactions());
    }

    /** The listeners as the {@code listen} setting writes them: {@code udp:127.0.0.1:5060[;advertise=HOST:PORT]}, comma-separated. */
    private String describeAddresses() {
        StringBuilder sb = new StringBuilder();
        for (Listener l : listeners) {
            sb.append(sb.length() == 0 ? "" : ", ").append(l.transport().configName()).append(':')
                    .append(AddressText.of(l.bound().getAddress())).append(':').append(l.bound().getPort());
            boolean plain = l.sentByPort() == l.bound().getPort() && AddressText.sameHost(l.sentByHost(), l.bound().getAddress());
            if (!plain) {
                sb.append(";advertise=").append(l.sentBy());
            }
        }
        return sb.toString();
    }

    /**
     * Graceful shutdown: refuses new requests with 503, keeps forwarding within established calls
     * until they end and open transactions are answered, for up to {@code shutdown.grace}
     * ({@link ShutdownDrain}), then stops accepting TCP connections, the stack, the transport, the
     * lanes and the database pool.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        drain.run(config.shutdownGrace());
        log.info("stats: {}", statsLine());
        if (http != null) {
            http.close();
        }
        health.close();
        if (tlsReloads != null) {
            tlsReloads.close();
        }
        housekeeping.shutdownNow();
        if (prober != null) {
            prober.close();
        }
        stack.stop();
        if (transport != null) {
            transport.close();
        }
        workers.shutdown(Duration.ofSeconds(2));
        if (routers != null) {
            try {
                routers.close();
            } catch (Exception e) {
                log.warn("closing the routers failed: {}", e.toString());
            }
        }
        if (credentials != null) {
            credentials.close();
        }
        if (dns != null) {
            dns.close();
        }
        if (cdrWriter != null) {
            // after the stack and the lanes: no call event comes any more; before the database it may write to
            try {
                cdrWriter.close();
            } catch (Exception e) {
                log.warn("call records: closing the writer failed: {}", e.toString());
            }
        }
        location.close();
        database.close();
        metrics.close();
        log.info("stopped");
        stopped.complete(null);
    }
}
