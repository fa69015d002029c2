package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * The whole server configuration, immutable once the server starts. Every component has one key,
 * the same in the configuration file and on the command line (see {@link ConfigLoader} for the
 * table of keys). {@link #defaults()} is the one place defaults live.
 * Threading: immutable.
 *
 * @param listeners          listening sockets, at most one per transport
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
 * @param maxMessageBytes    largest SIP message accepted (headers and body)
 * @param ioThreads          Netty event-loop threads; 0 means twice the number of cores
 * @param sipWorkers         SIP worker lanes (each a single thread; a call stays on one lane)
 * @param sipQueueCapacity   bound of each lane's queue; messages beyond it are dropped and counted
 * @param transportImpl      netty (sipcrypt's), or jain-nio or jain-oio (JAIN-SIP's built-in ones, for comparison)
 * @param minExpires         registrations asking for less get 423 (RFC 3261 §10.3 step 7)
 * @param maxExpires         registrations asking for more are shortened to this
 * @param defaultExpires     registrations that ask for nothing get this
 * @param maxContacts        most bindings one address-of-record may hold; a REGISTER adding more
 *                           gets 403, and lookups (forking, redirects, the REGISTER answer) return
 *                           at most this many contacts
 * @param maxBindings        most bindings the location service holds in all; a REGISTER adding
 *                           one beyond it gets 503
 * @param shutdownGrace      how long shutdown waits for open transactions and established calls
 * @param statsInterval      how often counters are logged; zero turns the periodic line off
 * @param dbBreaker          how a database outage is noticed and its end found (database circuit breaker)
 * @param tcpLimits          bounds against TCP/TLS connection floods (per source, per message, partial bytes)
 * @param overload           when new requests are refused with 503 to keep serving, and what shutdown waits for
 * @param http               the HTTP listener for {@code /metrics} and {@code /health}
 * @param auth               digest authentication
 * @param tls                TLS listener and outgoing TLS connections
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
        int maxMessageBytes,
        int ioThreads,
        int sipWorkers,
        int sipQueueCapacity,
        TransportImpl transportImpl,
        Duration minExpires,
        Duration maxExpires,
        Duration defaultExpires,
        int maxContacts,
        int maxBindings,
        Duration shutdownGrace,
        Duration statsInterval,
        DbBreakerConfig dbBreaker,
        TcpLimitsConfig tcpLimits,
        OverloadConfig overload,
        HttpConfig http,
        AuthConfig auth,
        TlsConfig tls) {

    public ServerConfig {
        listeners = List.copyOf(Objects.requireNonNull(listeners, "listeners"));
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(dbUser, "dbUser");
        Objects.requireNonNull(dbPassword, "dbPassword");
        Objects.requireNonNull(mode, "mode");
        routes = List.copyOf(Objects.requireNonNull(routes, "routes"));
        domains = List.copyOf(Objects.requireNonNull(domains, "domains"));
        Objects.requireNonNull(timerC, "timerC");
        Objects.requireNonNull(tcpConnection, "tcpConnection");
        Objects.requireNonNull(tcpIdleTimeout, "tcpIdleTimeout");
        Objects.requireNonNull(tcpConnectTimeout, "tcpConnectTimeout");
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
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(tls, "tls");
        if (listeners.isEmpty()) {
            throw new IllegalArgumentException("listen: at least one listener is needed");
        }
        for (Transport t : Transport.values()) {
            if (listeners.stream().filter(l -> l.transport() == t).count() > 1) {
                throw new IllegalArgumentException(
                        "listen: more than one " + t.configName() + " listener (one per transport is supported)");
            }
        }
    }

    /** The defaults: UDP and TCP on 127.0.0.1:5060, embedded H2 under {@code ./data}, proxy mode. */
    public static ServerConfig defaults() {
        return new ServerConfig(
                List.of(new ListenerConfig(Transport.UDP, "127.0.0.1", 5060),
                        new ListenerConfig(Transport.TCP, "127.0.0.1", 5060)),
                Path.of("data"),
                null,
                "sa",
                "",
                8,
                Mode.PROXY,
                List.of(),
                null,
                List.of(),
                true,
                Duration.ofMinutes(3),
                ConnectionPattern.PERSISTENT,
                Duration.ofMinutes(5),
                10_000,
                Duration.ofSeconds(3),
                65_535,
                0,
                4,
                10_000,
                TransportImpl.NETTY,
                Duration.ofSeconds(60),
                Duration.ofHours(24),
                Duration.ofHours(1),
                10,
                1_000_000,
                Duration.ofSeconds(10),
                Duration.ofSeconds(60),
                DbBreakerConfig.DEFAULTS,
                TcpLimitsConfig.defaults(),
                OverloadConfig.defaults(),
                HttpConfig.defaults(),
                AuthConfig.defaults(),
                TlsConfig.defaults());
    }

    /** The digest realm: {@code realm} when set, otherwise the host of the first listener. */
    public String effectiveRealm() {
        return auth.realm() != null ? auth.realm() : listeners.get(0).host();
    }

    /** The JDBC URL in effect: the configured one, or the embedded H2 file under the data directory. */
    public String effectiveDbUrl() {
        if (dbUrl != null) {
            return dbUrl;
        }
        return "jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("sipcrypt") + ";DB_CLOSE_ON_EXIT=FALSE";
    }
}
