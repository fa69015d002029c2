package org.sipcrypt.server;

import gov.nist.javax.sip.SipStackImpl;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sip.ListeningPoint;
import javax.sip.SipFactory;
import javax.sip.SipProvider;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.http.HealthCheck;
import org.sipcrypt.server.http.HttpEndpoints;
import org.sipcrypt.server.http.NettyHttpListener;
import org.sipcrypt.server.http.ServerMetrics;
import org.sipcrypt.server.config.ListenerConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.config.TransportImpl;
import org.sipcrypt.server.auth.CredentialBatcher;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.auth.DigestAuthenticator;
import org.sipcrypt.server.auth.NonceService;
import org.sipcrypt.server.auth.ReplayGuard;
import org.sipcrypt.server.config.AuthConfig;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.transport.netty.tls.TlsStage;
import org.sipcrypt.server.transport.CompletedTransactions;
import com.github.benmanes.caffeine.cache.Ticker;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.DatabaseBreaker;
import org.sipcrypt.server.location.EmbeddedDatabase;
import org.sipcrypt.server.location.SubscriberStore;
import org.sipcrypt.server.location.JdbcLocationService;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.sip.LocalDomains;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.SipCounters;
import org.sipcrypt.server.sip.AccessPolicy;
import org.sipcrypt.server.sip.SipDispatcher;
import org.sipcrypt.server.sip.SipStackBuilder;
import org.sipcrypt.server.sip.proxy.EstablishedDialogs;
import org.sipcrypt.server.sip.proxy.NextHop;
import org.sipcrypt.server.sip.proxy.RouteTable;
import org.sipcrypt.server.sip.proxy.StatefulProxy;
import org.sipcrypt.server.sip.redirect.RedirectServer;
import org.sipcrypt.server.sip.registrar.ExpiresPolicy;
import org.sipcrypt.server.sip.registrar.Registrar;
import org.sipcrypt.server.transport.CallConnections;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.OverloadGuard;
import org.sipcrypt.server.transport.SipWorkers;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.netty.NettyMessageProcessorFactory;
import org.sipcrypt.server.transport.netty.NettyTransport;
import org.sipcrypt.server.transport.netty.TransportSettings;
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
    /**
     * Most completed UDP transactions whose final response is kept for retransmissions: Timer J
     * (32 s) at 6,000 non-INVITE requests/s, a few hundred bytes each.
     */
    private static final long COMPLETED_TRANSACTIONS = 200_000;

    private final ServerConfig config;
    private final MeterRegistry registry;
    private final TransportCounters transportCounters;
    private final Database database;
    private final LocationService location;
    private final SipWorkers workers;
    private final NettyTransport transport;
    private final SipStackImpl stack;
    private final SipContext context;
    private final Map<Transport, InetSocketAddress> addresses;
    private final ScheduledExecutorService housekeeping;
    private final CredentialBatcher credentials;
    private ShutdownDrain drain;
    /** Set by {@link #start} before the server is handed out. */
    private ServerMetrics metrics;
    private HealthCheck health;
    private NettyHttpListener http;
    private boolean closed;

    private SipcryptServer(ServerConfig config, MeterRegistry registry, TransportCounters transportCounters,
                           Database database, LocationService location, SipWorkers workers, NettyTransport transport,
                           SipStackImpl stack, SipContext context, Map<Transport, InetSocketAddress> addresses,
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
        this.addresses = addresses;
        this.housekeeping = housekeeping;
        this.credentials = credentials;
    }

    /** Starts a server; on failure everything started so far is closed again. */
    public static SipcryptServer start(ServerConfig config) throws Exception {
        Objects.requireNonNull(config, "config");
        log.info("starting sipcrypt: {}", ConfigLoader.describe(config).replace('\n', ' '));
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            ServerMetrics metrics = new ServerMetrics();
            opened.add(metrics);
            MeterRegistry registry = metrics.registry();
            TransportCounters transportCounters = new TransportCounters(registry);
            SipCounters sipCounters = new SipCounters(registry);
            Database database = EmbeddedDatabase.openConfigured(config.dbUrl(), config.dataDir(), config.dbUser(),
                    config.dbPassword(),
                    config.dbPoolSize(), config.dbBreaker().connectTimeout(), config.dbBreaker().probeInterval());
            opened.add(database);
            registerBreakerMetrics(database.breaker(), registry);
            LocationService location = new JdbcLocationService(database, config.dbPoolSize(), 10_000,
                    config.maxContacts(), config.maxBindings());
            opened.add(location);
            SipWorkers workers = new SipWorkers(config.sipWorkers(), config.sipQueueCapacity(),
                    e -> sipCounters.error("worker_task"));
            opened.add(workers);
            RouteTable routes = new RouteTable(config.routes(), config.defaultRoute());

            NettyTransport transport = null;
            Map<Transport, InetSocketAddress> addresses = new EnumMap<>(Transport.class);
            if (config.transportImpl() == TransportImpl.NETTY) {
                transport = new NettyTransport(transportSettings(config, routes), transportCounters, workers,
                        new CompletedTransactions(CompletedTransactions.TIMER_J, COMPLETED_TRANSACTIONS,
                                Ticker.systemTicker()));
                opened.add(transport);
                for (ListenerConfig l : config.listeners()) {
                    addresses.put(l.transport(), transport.bind(l.transport(),
                            new InetSocketAddress(InetAddress.getByName(l.host()), l.port())));
                    List<String> insecure = transport.settings().tls().insecureProviders();
                    if (l.transport() == Transport.TLS && !insecure.isEmpty()) {
                        log.warn("tls listener {} offers insecure suites {} (tls.allowInsecure, lab only)",
                                addresses.get(Transport.TLS), insecure);
                    }
                }
            } else {
                if (config.tcpConnection() == ConnectionPattern.PER_CALL
                        || routes.all().stream().anyMatch(h -> h.connection() == ConnectionPattern.PER_CALL)) {
                    throw new IllegalArgumentException("per-call connections need transport.impl=netty");
                }
                for (ListenerConfig l : config.listeners()) {
                    int port = l.port() != 0 ? l.port() : freePort(l);
                    addresses.put(l.transport(), new InetSocketAddress(InetAddress.getByName(l.host()), port));
                }
            }

            SipStackImpl stack = SipStackBuilder.build(config);
            opened.add(stack::stop);
            if (transport != null) {
                ((NettyMessageProcessorFactory) stack.getMessageProcessorFactory()).attach(transport);
            }
            Map<Transport, ListeningPoint> lps = new EnumMap<>(Transport.class);
            SipProvider provider = null;
            for (Map.Entry<Transport, InetSocketAddress> e : addresses.entrySet()) {
                ListeningPoint lp = stack.createListeningPoint(e.getValue().getAddress().getHostAddress(),
                        e.getValue().getPort(), e.getKey().sipName());
                lps.put(e.getKey(), lp);
                if (provider == null) {
                    provider = stack.createSipProvider(lp);
                } else {
                    provider.addListeningPoint(lp);
                }
            }
            if (config.transportImpl() != TransportImpl.NETTY) {
                log.info("transport: JAIN-SIP built-in NIO (for comparison); listening on {}", addresses);
            }
            SipFactory factory = SipFactory.getInstance();
            Set<String> hosts = new HashSet<>();
            Set<Integer> ports = new HashSet<>();
            for (InetSocketAddress a : addresses.values()) {
                hosts.add(a.getAddress().getHostAddress());
                ports.add(a.getPort());
            }
            for (ListenerConfig l : config.listeners()) {
                hosts.add(l.host());
                if (InetAddress.getByName(l.host()).isLoopbackAddress()) {
                    hosts.add("localhost");
                }
            }
            LocalDomains local = new LocalDomains(config.domains(), hosts, ports);
            CallConnections calls = transport != null ? transport : CallConnections.NONE;
            SipContext context = new SipContext(provider, factory.createMessageFactory(), factory.createHeaderFactory(),
                    factory.createAddressFactory(), lps, local, workers, calls, sipCounters, Clock.systemUTC(),
                    transport != null ? transport.completedTransactions() : null);
            ScheduledThreadPoolExecutor housekeeping = NamedThreads.named("sipcrypt-housekeeping").scheduler();
            opened.add(housekeeping::shutdownNow);
            ExpiresPolicy expires = new ExpiresPolicy(config.minExpires(), config.maxExpires(), config.defaultExpires());
            DigestAuthenticator auth = null;
            AccessPolicy policy = null;
            DialogRouteSigner routeSigner = null;
            CredentialBatcher credentials = null;
            if (config.auth().enabled()) {
                byte[] secret = nonceSecret(config.auth());
                routeSigner = new DialogRouteSigner(secret);
                policy = new AccessPolicy(config.auth(), routeSigner, local);
                credentials = new CredentialBatcher(new SubscriberStore(database.dataSource()),
                        config.effectiveRealm(), config.dbPoolSize(), config.auth().batchSize(),
                        config.auth().batchWait(), config.auth().queueCapacity(), config.auth().cacheSize(),
                        config.auth().cacheTtl(), registry, database.breaker());
                opened.add(credentials);
                auth = new DigestAuthenticator(config.auth(), config.effectiveRealm(),
                        new NonceService(secret, context.clock(), config.auth().nonceLifetime(),
                                config.auth().nonceBindsAddress()),
                        new ReplayGuard(config.auth().replayNonces(), config.auth().nonceLifetime(), context.clock()),
                        credentials, registry);
                log.info("digest authentication on: realm \"{}\", methods {}, algorithms {}, lookups in batches of"
                                + " up to {} within {} on {} threads", config.effectiveRealm(), config.auth().methods(),
                        config.auth().algorithms(), config.auth().batchSize(), config.auth().batchWait(),
                        config.dbPoolSize());
                warnWhereAuthIsWeakened(config);
            }
            EstablishedDialogs dialogs = establishedDialogs(config, registry);
            SipDispatcher dispatcher = new SipDispatcher(context, config.mode(),
                    new Registrar(context, location, expires, config.maxContacts()),
                    new StatefulProxy(context, location, routes, config.recordRoute(), housekeeping, config.timerC(),
                            routeSigner, dialogs),
                    new RedirectServer(context, location), auth, policy);
            provider.addSipListener(dispatcher);

            SipcryptServer server = new SipcryptServer(config, registry, transportCounters, database, location, workers,
                    transport, stack, context, addresses, housekeeping, credentials);
            server.drain = new ShutdownDrain(context, overloadGuard(config, workers, context, stack, transport, registry,
                    housekeeping), dialogs, transport);
            server.metrics = metrics;
            server.health = new HealthCheck(server::listenerNames, server::listening, context::draining,
                    database.dataSource(), config.http().healthTimeout());
            opened.add(server.health);
            registerGauges(server, workers, location);
            if (config.http().enabled()) {
                server.http = NettyHttpListener.start(config.http(), new HttpEndpoints(metrics, server.health));
                opened.add(server.http);
            }
            housekeeping.scheduleWithFixedDelay(server::purgeExpired, PURGE_INTERVAL.toMillis(),
                    PURGE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            if (!config.statsInterval().isZero()) {
                long every = config.statsInterval().toMillis();
                housekeeping.scheduleAtFixedRate(() -> log.info("stats: {}", server.statsLine()), every, every,
                        TimeUnit.MILLISECONDS);
            }
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

    /**
     * The database breaker's meters: {@code db.breaker.open} (1 while open),
     * {@code db.breaker.transitions{to=open|closed}} and {@code db.breaker.rejected{op}}.
     */
    private static void registerBreakerMetrics(DatabaseBreaker breaker, MeterRegistry registry) {
        Gauge.builder("db.breaker.open", breaker, b -> b.isOpen() ? 1 : 0).register(registry);
        FunctionCounter.builder("db.breaker.transitions", breaker, b -> b.transitions(true))
                .tag("to", "open").register(registry);
        FunctionCounter.builder("db.breaker.transitions", breaker, b -> b.transitions(false))
                .tag("to", "closed").register(registry);
        for (String op : DatabaseBreaker.OPERATIONS) {
            FunctionCounter.builder("db.breaker.rejected", breaker, b -> b.refused(op))
                    .tag("op", op).register(registry);
        }
    }

    /** The calls the shutdown drain waits for; null when it waits for none (no Record-Route, or no grace). */
    private static EstablishedDialogs establishedDialogs(ServerConfig config, MeterRegistry registry) {
        if (!config.recordRoute() || config.overload().maxDialogs() == 0 || config.shutdownGrace().isZero()) {
            return null;
        }
        return new EstablishedDialogs(config.overload().maxDialogs(), config.overload().dialogLifetime(),
                Ticker.systemTicker(), registry);
    }

    /**
     * The admission check in front of the worker lanes (sipcrypt's transport only), sampling the heap
     * after GC every second when that budget is on; null with the JAIN-SIP transports.
     */
    private static OverloadGuard overloadGuard(ServerConfig config, SipWorkers workers, SipContext context,
                                               SipStackImpl stack, NettyTransport transport, MeterRegistry registry,
                                               ScheduledExecutorService housekeeping) {
        if (transport == null) {
            return null;
        }
        var o = config.overload();
        // JAIN-SIP keys a server transaction by its RFC 3261 branch in lower case (SIPRequest.getTransactionId)
        OverloadGuard guard = new OverloadGuard(o.queueThreshold(), o.maxQueueDelay(), o.maxTransactions(),
                o.maxHeapAfterGc(), o.retryAfter(), workers, context::unansweredRequests,
                branch -> stack.findTransaction(branch, true) != null, OverloadGuard::heapUsedAfterGc, registry);
        if (o.maxHeapAfterGc() > 0) {
            housekeeping.scheduleWithFixedDelay(guard::sampleHeap, 1, 1, TimeUnit.SECONDS);
        }
        transport.admitWith(guard);
        return guard;
    }

    /**
     * Gauges of the server's state for /metrics: live transactions, queued work, open connections
     * per stream transport, bindings stored.
     */
    private static void registerGauges(SipcryptServer server, SipWorkers workers, LocationService location) {
        MeterRegistry r = server.registry;
        Gauge.builder("sip.transactions.live", server, SipcryptServer::openTransactions)
                .description("server and client transactions in the stack").register(r);
        for (int i = 0; i < workers.laneCount(); i++) {
            int lane = i;
            Gauge.builder("sip.workers.queued", workers, w -> w.queuedInLane(lane)).tag("lane", String.valueOf(lane))
                    .description("messages waiting in a SIP worker lane's queue").register(r);
        }
        if (server.transport != null) {
            for (Transport t : server.addresses.keySet()) {
                if (t != Transport.UDP) {
                    Gauge.builder("transport.connections.current", server.transport, n -> n.openConnections(t))
                            .tag("transport", t.configName())
                            .description("open connections of a stream transport, inbound and outbound").register(r);
                }
            }
        }
        if (location instanceof JdbcLocationService jdbc) {
            Gauge.builder("registrar.bindings", jdbc, l -> l.bindingsStored() < 0 ? Double.NaN : l.bindingsStored())
                    .description("registrations (bindings) stored").register(r);
        }
    }

    /** One WARN per setting that lets some request through without credentials or weakens them. */
    private static void warnWhereAuthIsWeakened(ServerConfig config) {
        AuthConfig a = config.auth();
        if (a.methodsNarrowed()) {
            log.warn("auth.methods narrowed to {}: other methods reach local users without credentials"
                    + " (requests leaving our domain are still challenged)", a.methods());
        }
        if (a.legacyNoQop()) {
            log.warn("auth.legacyNoQop on (lab only, for old SIPp clients): credentials without qop carry no"
                    + " nonce count, so captured ones can be replayed for the nonce lifetime ({})",
                    a.nonceLifetime());
        }
        if (a.labSkipUriCheck()) {
            log.warn("auth.lab.skipUriCheck on (lab only): the digest uri is not compared with the Request-URI,"
                    + " so credentials captured for one target work for another");
        }
        if (a.inDialog()) {
            log.info("auth.inDialog on: requests inside dialogs are challenged too");
        } else if (!config.recordRoute()) {
            log.warn("recordRoute off with auth on: in-dialog requests cannot prove their dialog and are challenged");
        }
        if (!a.trustedPeers().isEmpty()) {
            log.info("auth.trustedPeers {}: their requests are never challenged", a.trustedPeers());
        }
    }

    /** The configured nonce secret, or a random one when none is set. */
    private static byte[] nonceSecret(AuthConfig auth) {
        if (!auth.nonceSecret().isEmpty()) {
            return auth.nonceSecret().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        log.info("auth.nonceSecret not set: using a random one, so nonces do not outlive this process"
                + " and other servers do not accept them");
        byte[] secret = new byte[32];
        new java.security.SecureRandom().nextBytes(secret);
        return secret;
    }

    private static TransportSettings transportSettings(ServerConfig config, RouteTable routes) throws IOException {
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        Map<InetSocketAddress, ConnectionPattern> byTarget = new HashMap<>();
        for (NextHop hop : routes.all()) {
            byTarget.put(new InetSocketAddress(InetAddress.getByName(hop.host()), hop.port()), hop.connection());
        }
        return new TransportSettings(config.ioThreads(), config.maxMessageBytes(), config.tcpIdleTimeout(),
                config.tcpMaxConnections(), config.tcpConnectTimeout(),
                new ConnectionPolicy(config.tcpConnection(), byTarget), TlsStage.forListener(config.tls(), registry),
                TlsStage.forPeers(config.tls(), registry), config.tcpLimits().streamLimits(config.auth().trustedPeers()));
    }

    private static int freePort(ListenerConfig l) throws IOException {
        if (l.transport() == Transport.UDP) {
            try (java.net.DatagramSocket s = new java.net.DatagramSocket(0, InetAddress.getByName(l.host()))) {
                return s.getLocalPort();
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(l.host()))) {
            return s.getLocalPort();
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

    /** The address a transport listens on (with the actual port when 0 was configured), or null. */
    public InetSocketAddress address(Transport t) {
        return addresses.get(t);
    }

    /** The metrics registry of this server. */
    public MeterRegistry registry() {
        return registry;
    }

    /** The metrics registry in Prometheus form, for {@code /metrics}. */
    public ServerMetrics metrics() {
        return metrics;
    }

    /** The check behind {@code /health}. */
    public HealthCheck healthCheck() {
        return health;
    }

    /** The address of the {@code --http} listener, or null when there is none. */
    public InetSocketAddress httpAddress() {
        return http != null ? http.address() : null;
    }

    /** The listeners by transport name ({@code udp}, {@code tls}) with their addresses. */
    public Map<String, String> listenerNames() {
        Map<String, String> out = new TreeMap<>();
        addresses.forEach((t, a) -> out.put(t.configName(),
                org.sipcrypt.server.config.HostPort.format(a.getAddress().getHostAddress(), a.getPort())));
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
        for (Transport t : addresses.keySet()) {
            ListeningPoint lp = context.listeningPoint(t);
            if (!(lp instanceof gov.nist.javax.sip.ListeningPointImpl impl)
                    || !NettyTransport.listening(impl.getMessageProcessor())) {
                return false;
            }
        }
        return true;
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

    /** Open transactions in the stack (server and client). */
    public int openTransactions() {
        return stack.getServerTransactionTableSize() + stack.getClientTransactionTableSize();
    }

    /** Every non-zero counter and gauge as {@code name{tags}=value}, sorted, on one line. */
    public String statsLine() {
        Map<String, Double> values = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            if (ServerMetrics.isJvmMeter(m)) {
                continue;
            }
            StringBuilder name = new StringBuilder(m.getId().getName());
            if (!m.getId().getTags().isEmpty()) {
                name.append('{');
                m.getId().getTags().forEach(t -> name.append(t.getKey()).append('=').append(t.getValue()).append(','));
                name.setCharAt(name.length() - 1, '}');
            }
            var measurements = m.measure();
            boolean several = measurements instanceof java.util.Collection<?> c && c.size() > 1;
            for (var measurement : measurements) {
                if (measurement.getValue() != 0 && !Double.isNaN(measurement.getValue())) {
                    String key = several
                            ? name + "." + measurement.getStatistic().getTagValueRepresentation() : name.toString();
                    values.put(key, measurement.getValue());
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(k).append('=').append(v == Math.rint(v) ? Long.toString(v.longValue()) : v)
                .append(' '));
        sb.append("transactions=").append(openTransactions());
        return sb.toString();
    }

    private String describeAddresses() {
        StringBuilder sb = new StringBuilder();
        addresses.forEach((t, a) -> sb.append(sb.length() == 0 ? "" : ", ").append(t.configName()).append(':')
                .append(a.getAddress().getHostAddress()).append(':').append(a.getPort()));
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
        housekeeping.shutdownNow();
        stack.stop();
        if (transport != null) {
            transport.close();
        }
        workers.shutdown(Duration.ofSeconds(2));
        if (credentials != null) {
            credentials.close();
        }
        location.close();
        database.close();
        metrics.close();
        log.info("stopped");
    }
}
