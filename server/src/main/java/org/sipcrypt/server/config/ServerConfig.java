package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.WebSocketLimits;

/**
 * The whole server configuration, immutable once the server starts. Every component has one key,
 * the same in the configuration file and on the command line (see {@link Setting} for the table
 * of keys). The defaults live in one place, {@link Builder}, and so do the checks that tie the
 * records together: {@link Builder#build()} runs them once.
 * Threading: immutable.
 *
 * @param listeners          listening sockets; the first of each transport (and address family) sends
 *                           requests over it
 * @param dataDir            directory of the embedded H2 database and other state
 * @param dbUrl              JDBC URL; {@code null} means the embedded H2 file under {@code dataDir}
 * @param dbUser             database user
 * @param dbPassword         database password (masked in logs)
 * @param dbPoolSize         HikariCP pool size, also the number of database worker threads
 * @param mode               proxy or redirect
 * @param routes             static routes by Request-URI domain
 * @param defaultRoute       route for domains that are neither ours nor routed; {@code null} for none
 * @param domains            domains served besides the listener addresses and {@code localhost}
 * @param recordRoute        whether the proxy inserts Record-Route (RFC 3261 §16.6 step 4)
 * @param timerC             how long an INVITE branch may stay unanswered after its last
 *                           provisional response before the proxy cancels it (RFC 3261 §16.6 step 11)
 * @param tcpConnection      connection pattern for outgoing TCP to targets without a route of their own
 * @param tcpIdleTimeout     a TCP connection with no traffic for this long is closed
 * @param tcpMaxConnections  cap on open TCP connections, inbound and outbound together
 * @param tcpConnectTimeout  how long an outgoing TCP connect may take
 * @param tcpConnectFailureHold how long an address a connect to it failed is not dialled again
 *                           (sends to it fail at once); zero dials every time
 * @param maxMessageBytes    largest SIP message accepted (headers and body)
 * @param ioThreads          Netty event-loop threads; 0 means twice the number of cores
 * @param sipWorkers         SIP worker lanes (each a single thread; a call stays on one lane); by default one per core
 * @param sipQueueCapacity   bound of each lane's queue; messages beyond it are dropped and counted
 * @param transportImpl      netty (sipcrypt's), or jain-nio or jain-oio (JAIN-SIP's built-in ones, for comparison)
 * @param fastPath           whether sipcrypt's transport settles messages from their bytes before the stack's
 *                           parse (early digest challenge, early relays of ACK, BYE and responses, kept
 *                           transactions read from the bytes); off, every message is parsed and goes through
 *                           the stack's transactions
 * @param minExpires         registrations asking for less get 423 (RFC 3261 §10.3 step 7)
 * @param maxExpires         registrations asking for more are shortened to this
 * @param defaultExpires     registrations that ask for nothing get this
 * @param maxContacts        most bindings one address-of-record may hold; a REGISTER adding more
 *                           gets 403, and lookups (forking, redirects, the REGISTER answer) return
 *                           at most this many contacts
 * @param locationCache      whether the location service keeps what it read in memory (auto: with the embedded database)
 * @param locationCacheSize  most addresses-of-record whose bindings are kept in memory
 * @param maxBindings        most bindings the location service holds in all; a REGISTER adding
 *                           one beyond it gets 503
 * @param shutdownGrace      how long shutdown waits for open transactions and established calls
 * @param statsInterval      how often counters are logged; zero turns the periodic line off
 * @param dbBreaker          how a database outage is noticed and its end found (database circuit breaker)
 * @param tcpLimits          bounds against TCP/TLS connection floods (per source, per message, partial bytes)
 * @param overload           when new requests are refused with 503 to keep serving, and what shutdown waits for
 * @param limits             per-source limits on new requests: a rate per source and bans after failed authentication
 * @param cdr                call detail records: off, or where they are written
 * @param http               the HTTP listener for {@code /metrics} and {@code /health}
 * @param auth               digest authentication
 * @param tls                TLS listener and outgoing TLS connections
 * @param webSocket          the ws and wss listeners: origins accepted, message size, keep-alive pings
 * @param routing            the routing SPI: which routers run, their time bound and options
 * @param destinations       the destination sets routes and routers may send to, and their probing
 * @param dns                how the proxy locates SIP servers by DNS (RFC 3263): name servers, query timeout, cache
 */
public record ServerConfig(
        List<ListenerConfig> listeners,
        Path dataDir,
        String dbUrl,
        String dbUser,
        String dbPassword,
        int dbPoolSize,
        Mode mode,
        List<RouteConfig> routes,
        RouteConfig defaultRoute,
        List<String> domains,
        boolean recordRoute,
        Duration timerC,
        ConnectionPattern tcpConnection,
        Duration tcpIdleTimeout,
        int tcpMaxConnections,
        Duration tcpConnectTimeout,
        Duration tcpConnectFailureHold,
        int maxMessageBytes,
        int ioThreads,
        int sipWorkers,
        int sipQueueCapacity,
        TransportImpl transportImpl,
        boolean fastPath,
        Duration minExpires,
        Duration maxExpires,
        Duration defaultExpires,
        int maxContacts,
        int maxBindings,
        LocationCacheMode locationCache,
        int locationCacheSize,
        Duration shutdownGrace,
        Duration statsInterval,
        DbBreakerConfig dbBreaker,
        TcpLimitsConfig tcpLimits,
        OverloadConfig overload,
        LimitsConfig limits,
        CdrConfig cdr,
        HttpConfig http,
        AuthConfig auth,
        TlsConfig tls,
        WebSocketLimits webSocket,
        RoutingConfig routing,
        DestinationsConfig destinations, DnsConfig dns) {

    public ServerConfig {
        Objects.requireNonNull(destinations, "destinations");
        Objects.requireNonNull(dns, "dns");
        Objects.requireNonNull(webSocket, "webSocket");
        Objects.requireNonNull(routing, "routing");
        listeners = List.copyOf(Objects.requireNonNull(listeners, "listeners"));
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(dbUser, "dbUser");
        Objects.requireNonNull(dbPassword, "dbPassword");
        Objects.requireNonNull(mode, "mode");
        routes = List.copyOf(Objects.requireNonNull(routes, "routes"));
        domains = List.copyOf(Objects.requireNonNull(domains, "domains"));
        Objects.requireNonNull(timerC, "timerC");
        Objects.requireNonNull(locationCache, "locationCache");
        Objects.requireNonNull(tcpConnection, "tcpConnection");
        Objects.requireNonNull(tcpIdleTimeout, "tcpIdleTimeout");
        Objects.requireNonNull(tcpConnectTimeout, "tcpConnectTimeout");
        if (tcpConnectFailureHold.isNegative()) {
            throw new IllegalArgumentException("tcp.connectFailureHold is negative: " + tcpConnectFailureHold);
        }
        Objects.requireNonNull(transportImpl, "transportImpl");
        Objects.requireNonNull(minExpires, "minExpires");
        Objects.requireNonNull(maxExpires, "maxExpires");
        Objects.requireNonNull(defaultExpires, "defaultExpires");
        if (maxContacts < 1) {
            throw new IllegalArgumentException("registrar.maxContacts: " + maxContacts + " (expected at least 1)");
        }
        if (maxBindings < maxContacts) {
            throw new IllegalArgumentException("registrar.maxBindings: " + maxBindings
                    + " is below registrar.maxContacts " + maxContacts + " (expected maxContacts <= maxBindings)");
        }
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        Objects.requireNonNull(statsInterval, "statsInterval");
        Objects.requireNonNull(dbBreaker, "dbBreaker");
        Objects.requireNonNull(tcpLimits, "tcpLimits");
        Objects.requireNonNull(overload, "overload");
        if (overload.queueThreshold() > sipQueueCapacity) {
            throw new IllegalArgumentException("overload.queueThreshold: " + overload.queueThreshold()
                    + " is above sip.queueCapacity " + sipQueueCapacity + " (expected queueThreshold <= queueCapacity)");
        }
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(cdr, "cdr");
        if (listeners.isEmpty()) {
            throw new IllegalArgumentException("listen: at least one listener is needed");
        }
    }

    /** The defaults: UDP and TCP on 127.0.0.1:5060, embedded H2 under {@code ./data}, proxy mode. */
    public static ServerConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding this configuration, to change some of it. */
    public Builder toBuilder() {
        Builder b = new Builder().listeners(listeners).dataDir(dataDir).dbUrl(dbUrl).dbUser(dbUser)
                .dbPassword(dbPassword).dbPoolSize(dbPoolSize).mode(mode).routes(routes).defaultRoute(defaultRoute)
                .domains(domains).recordRoute(recordRoute).timerC(timerC).tcpConnection(tcpConnection)
                .tcpIdleTimeout(tcpIdleTimeout).tcpMaxConnections(tcpMaxConnections)
                .tcpConnectTimeout(tcpConnectTimeout).tcpConnectFailureHold(tcpConnectFailureHold).maxMessageBytes(maxMessageBytes).ioThreads(ioThreads)
                .sipWorkers(sipWorkers).sipQueueCapacity(sipQueueCapacity).transportImpl(transportImpl)
                .fastPath(fastPath).minExpires(minExpires).maxExpires(maxExpires).defaultExpires(defaultExpires)
                .maxContacts(maxContacts).maxBindings(maxBindings).locationCache(locationCache)
                .locationCacheSize(locationCacheSize).shutdownGrace(shutdownGrace)
                .statsInterval(statsInterval);
        return b.dbBreaker(dbBreaker).tcpLimits(tcpLimits).overload(overload).limits(limits).cdr(cdr).http(http).auth(auth).tls(tls)
                .webSocket(webSocket).routing(routing).destinations(destinations).dns(dns);
    }

    /** The settings, with passwords and secrets masked. */
    @Override
    public String toString() {
        return RecordText.of(this);
    }

    /**
     * Named settings for a {@link ServerConfig}, starting from the defaults (this is where they
     * live), with one nested builder per group of settings. {@link #build} checks each record and
     * then, once, what ties the records together ({@link ServerConfigChecks}).
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private List<ListenerConfig> listeners = List.of(new ListenerConfig(Transport.UDP, "127.0.0.1", 5060),
                new ListenerConfig(Transport.TCP, "127.0.0.1", 5060));
        private Path dataDir = Path.of("data");
        private String dbUrl;
        private String dbUser = "sa";
        private String dbPassword = "";
        private int dbPoolSize = 8;
        private Mode mode = Mode.PROXY;
        private List<RouteConfig> routes = List.of();
        private RouteConfig defaultRoute;
        private List<String> domains = List.of();
        private boolean recordRoute = true;
        private Duration timerC = Duration.ofMinutes(3);
        ConnectionPattern tcpConnection = ConnectionPattern.PERSISTENT;
        private Duration tcpIdleTimeout = Duration.ofMinutes(5);
        private int tcpMaxConnections = 10_000;
        private Duration tcpConnectTimeout = Duration.ofSeconds(3);
        private Duration tcpConnectFailureHold = Duration.ofSeconds(10);
        private int maxMessageBytes = 65_535;
        private int ioThreads;
        private int sipWorkers = Runtime.getRuntime().availableProcessors();
        private int sipQueueCapacity = 10_000;
        private TransportImpl transportImpl = TransportImpl.NETTY;
        private boolean fastPath = true;
        private Duration minExpires = Duration.ofSeconds(60);
        private Duration maxExpires = Duration.ofHours(24);
        private Duration defaultExpires = Duration.ofHours(1);
        private int maxContacts = 10;
        private int maxBindings = 1_000_000;
        private LocationCacheMode locationCache = LocationCacheMode.AUTO;
        private int locationCacheSize = 100_000;
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private Duration statsInterval = Duration.ofSeconds(60);
        private DbBreakerConfig.Builder dbBreaker = new DbBreakerConfig.Builder();
        private TcpLimitsConfig.Builder tcpLimits = new TcpLimitsConfig.Builder();
        private OverloadConfig.Builder overload = new OverloadConfig.Builder();
        private LimitsConfig.Builder limits = new LimitsConfig.Builder();
        private CdrConfig.Builder cdr = new CdrConfig.Builder();
        private HttpConfig.Builder http = new HttpConfig.Builder();
        private AuthConfig.Builder auth = new AuthConfig.Builder();
        private TlsConfig.Builder tls = new TlsConfig.Builder();
        private WebSocketLimits.Builder webSocket = new WebSocketLimits.Builder();
        private RoutingConfig.Builder routing = new RoutingConfig.Builder();
        private DestinationsConfig.Builder destinations = new DestinationsConfig.Builder();
        private DnsConfig.Builder dns = new DnsConfig.Builder();

        public Builder listeners(List<ListenerConfig> v) { listeners = v; return this; }
        public Builder dataDir(Path v) { dataDir = v; return this; }
        /** The JDBC URL; null means the embedded H2 file under the data directory. */
        public Builder dbUrl(String v) { dbUrl = v; return this; }
        public Builder dbUser(String v) { dbUser = v; return this; }
        public Builder dbPassword(String v) { dbPassword = v; return this; }
        public Builder dbPoolSize(int v) { dbPoolSize = v; return this; }
        public Builder mode(Mode v) { mode = v; return this; }
        public Builder routes(List<RouteConfig> v) { routes = v; return this; }
        public Builder defaultRoute(RouteConfig v) { defaultRoute = v; return this; }
        public Builder domains(List<String> v) { domains = v; return this; }
        public Builder recordRoute(boolean v) { recordRoute = v; return this; }
        public Builder timerC(Duration v) { timerC = v; return this; }
        public Builder tcpConnection(ConnectionPattern v) { tcpConnection = v; return this; }
        public Builder tcpIdleTimeout(Duration v) { tcpIdleTimeout = v; return this; }
        public Builder tcpMaxConnections(int v) { tcpMaxConnections = v; return this; }
        public Builder tcpConnectTimeout(Duration v) { tcpConnectTimeout = v; return this; }
        public Builder tcpConnectFailureHold(Duration v) { tcpConnectFailureHold = v; return this; }
        public Builder maxMessageBytes(int v) { maxMessageBytes = v; return this; }
        public Builder ioThreads(int v) { ioThreads = v; return this; }
        public Builder sipWorkers(int v) { sipWorkers = v; return this; }
        public Builder sipQueueCapacity(int v) { sipQueueCapacity = v; return this; }
        public Builder transportImpl(TransportImpl v) { transportImpl = v; return this; }
        public Builder fastPath(boolean v) { fastPath = v; return this; }
        public Builder minExpires(Duration v) { minExpires = v; return this; }
        public Builder maxExpires(Duration v) { maxExpires = v; return this; }
        public Builder defaultExpires(Duration v) { defaultExpires = v; return this; }
        public Builder maxContacts(int v) { maxContacts = v; return this; }
        public Builder maxBindings(int v) { maxBindings = v; return this; }
        public Builder locationCache(LocationCacheMode v) { locationCache = v; return this; }
        public Builder locationCacheSize(int v) { locationCacheSize = v; return this; }
        public Builder shutdownGrace(Duration v) { shutdownGrace = v; return this; }
        public Builder statsInterval(Duration v) { statsInterval = v; return this; }
        public Builder dbBreaker(DbBreakerConfig v) { dbBreaker = v.toBuilder(); return this; }
        public Builder tcpLimits(TcpLimitsConfig v) { tcpLimits = v.toBuilder(); return this; }
        public Builder overload(OverloadConfig v) { overload = v.toBuilder(); return this; }
        public Builder limits(LimitsConfig v) { limits = v.toBuilder(); return this; }
        public Builder cdr(CdrConfig v) { cdr = v.toBuilder(); return this; }
        public Builder http(HttpConfig v) { http = v.toBuilder(); return this; }
        public Builder auth(AuthConfig v) { auth = v.toBuilder(); return this; }
        public Builder tls(TlsConfig v) { tls = v.toBuilder(); return this; }
        public Builder webSocket(WebSocketLimits v) { webSocket = v.toBuilder(); return this; }
        public Builder routing(RoutingConfig v) { routing = v.toBuilder(); return this; }
        public Builder dns(DnsConfig v) { dns = v.toBuilder(); return this; }

        /** The DNS settings (RFC 3263 resolution), to change in place. */
        public DnsConfig.Builder dns() {
            return dns;
        }

        public Builder destinations(DestinationsConfig v) { destinations = v.toBuilder(); return this; }

        /** The destination sets' settings, to change in place. */
        public DestinationsConfig.Builder destinations() {
            return destinations;
        }

        /** The routing SPI's settings, to change in place. */
        public RoutingConfig.Builder routing() {
            return routing;
        }

        /** The WebSocket settings, to change in place. */
        public WebSocketLimits.Builder webSocket() {
            return webSocket;
        }

        /** The database circuit breaker's settings, to change in place. */
        public DbBreakerConfig.Builder dbBreaker() {
            return dbBreaker;
        }

        /** The TCP flood bounds, to change in place. */
        public TcpLimitsConfig.Builder tcpLimits() {
            return tcpLimits;
        }

        /** The overload and shutdown-drain settings, to change in place. */
        public OverloadConfig.Builder overload() {
            return overload;
        }

        /** The per-source limits, to change in place. */
        public LimitsConfig.Builder limits() {
            return limits;
        }

        /** The call detail record settings, to change in place. */
        public CdrConfig.Builder cdr() {
            return cdr;
        }

        /** The HTTP listener's settings, to change in place. */
        public HttpConfig.Builder http() {
            return http;
        }

        /** The digest authentication settings, to change in place. */
        public AuthConfig.Builder auth() {
            return auth;
        }

        /** The TLS settings, to change in place. */
        public TlsConfig.Builder tls() {
            return tls;
        }

        /**
         * The configuration, each record checked by its constructor and then the whole once.
         *
         * @throws IllegalArgumentException naming the key at fault, the value and what was expected
         */
        public ServerConfig build() {
            ServerConfig c = new ServerConfig(listeners, dataDir, dbUrl, dbUser, dbPassword, dbPoolSize, mode, routes,
                    defaultRoute, domains, recordRoute, timerC, tcpConnection, tcpIdleTimeout, tcpMaxConnections,
                    tcpConnectTimeout, tcpConnectFailureHold, maxMessageBytes, ioThreads, sipWorkers, sipQueueCapacity, transportImpl,
                    fastPath, minExpires, maxExpires, defaultExpires, maxContacts, maxBindings, locationCache, locationCacheSize,
                    shutdownGrace, statsInterval,
                    dbBreaker.build(), tcpLimits.build(), overload.build(), limits.build(), cdr.build(), http.build(), auth.build(), tls.build(),
                    webSocket.build(), routing.build(), destinations.build(), dns.build());
            ServerConfigChecks.check(c);
            return c;
        }
    }

    /** The digest realm: {@code realm} when set, otherwise the advertised host of the first listener (else its host). */
    public String effectiveRealm() {
        return auth.realm() != null ? auth.realm() : listeners.get(0).sentByHost();
    }

    /**
     * Whether the location service keeps bindings in memory: {@code location.cache on}, or {@code auto}
     * with the embedded database (which no other server writes).
     */
    public boolean locationCached() {
        return locationCache == LocationCacheMode.ON || locationCache == LocationCacheMode.AUTO && dbUrl == null;
    }

    /** The JDBC URL in effect: the configured one, or the embedded H2 file under the data directory. */
    public String effectiveDbUrl() {
        if (dbUrl != null) {
            return dbUrl;
        }
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("sipcrypt") + ";DB_CLOSE_ON_EXIT=FALSE";
    }
}
