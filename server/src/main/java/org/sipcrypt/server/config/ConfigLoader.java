package org.sipcrypt.server.config;

import static org.sipcrypt.server.config.ConfigValues.bool;
import static org.sipcrypt.server.config.ConfigValues.duration;
import static org.sipcrypt.server.config.ConfigValues.expires;
import static org.sipcrypt.server.config.ConfigValues.format;
import static org.sipcrypt.server.config.ConfigValues.integer;
import static org.sipcrypt.server.config.ConfigValues.items;
import static org.sipcrypt.server.config.ConfigValues.jdbcUrl;
import static org.sipcrypt.server.config.ConfigValues.nonBlank;
import static org.sipcrypt.server.config.ConfigValues.one;
import static org.sipcrypt.server.config.ConfigValues.parsed;
import static org.sipcrypt.server.config.ConfigValues.path;
import static org.sipcrypt.server.config.ConfigValues.tlsEngine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link ServerConfig} from an optional configuration file and the command line: the
 * command line wins per key, and every key not given keeps its value from
 * {@link ServerConfig#defaults()}. The keys, their command-line options, descriptions and defaults
 * are one table, {@link Setting}.
 *
 * <p>File formats, chosen by extension:
 * <ul>
 *   <li>{@code .yaml} / {@code .yml}: nested maps are flattened to dotted keys, so
 *       {@code tcp: {idleTimeout: 5m}} and {@code tcp.idleTimeout: 5m} are the same; repeatable
 *       keys take a YAML sequence (or one plain value). As {@code db} is itself a value, its
 *       siblings are written dotted beside it: {@code db: jdbc:...} and {@code db.user: sip}.
 *       All values are read as text, so {@code recordRoute: off} means off and {@code 0x10} is
 *       not a number.</li>
 *   <li>{@code .properties}: one {@code key=value} per line with the keys as they are; a
 *       repeatable key takes its items comma-separated on one line, e.g.
 *       {@code listen=udp:192.0.2.10:5060,tcp:192.0.2.10:5060}; an empty value is an empty list. The
 *       {@code listen.0}, {@code listen.1} form is not supported.</li>
 * </ul>
 * Durations are {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h} or a bare number of seconds;
 * booleans are {@code true/false/on/off/yes/no}. List items are named by their zero-based index in
 * messages ({@code listen[1]}). Giving a repeatable key replaces its default list.
 * Threading: immutable (static methods only; safe from any thread).
 */
public final class ConfigLoader {

    private static final Logger log = LoggerFactory.getLogger(ConfigLoader.class);

    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");
    private static final String MASK = "<masked>";

    private ConfigLoader() {
    }

    /**
     * One setting: its key in the file, its command-line option, and how it is parsed and shown.
     * Order is the order of {@code --help} and of {@link #describe}.
     * Threading: immutable.
     */
    public enum Setting {
        LISTEN("listen", Kind.REPEATABLE, "TRANSPORT:HOST:PORT",
                "Listening socket, e.g. udp:127.0.0.1:5060 or tcp:[::1]:5060; giving any replaces the defaults.",
                c -> strings(c.listeners()), (d, k, v) -> d.listeners = items(k, v, ListenerConfig::parse)),
        DATA_DIR("dataDir", Kind.SINGLE, "DIR", "Directory of the embedded database and other state.",
                c -> List.of(c.dataDir().toString()), (d, k, v) -> d.dataDir = path(k, one(k, v))),
        DB("db", Kind.SINGLE, "JDBC-URL", "JDBC URL of the database; unset means embedded H2 under the data dir.",
                c -> List.of(c.dbUrl() == null ? "embedded H2 under " + c.dataDir() : c.dbUrl()),
                (d, k, v) -> d.dbUrl = jdbcUrl(k, one(k, v))),
        DB_USER("db.user", Kind.SINGLE, "USER", "Database user.",
                c -> List.of(c.dbUser()), (d, k, v) -> d.dbUser = nonBlank(k, one(k, v), "a user name")),
        DB_PASSWORD("db.password", Kind.SECRET, "PASSWORD", "Database password (never logged).",
                c -> List.of(c.dbPassword()), (d, k, v) -> d.dbPassword = one(k, v)),
        DB_POOL_SIZE("db.poolSize", Kind.SINGLE, "N", "Database connections, also the database worker threads.",
                c -> List.of(String.valueOf(c.dbPoolSize())), (d, k, v) -> d.dbPoolSize = integer(k, one(k, v), 1, 1000)),
        DB_CONNECT_TIMEOUT("db.connectTimeout", Kind.SINGLE, "DURATION",
                "Longest wait for a database connection (250ms to 60s); when it fails for want of the database,"
                        + " requests needing it get 503 at once until it is back.",
                c -> List.of(format(c.dbBreaker().connectTimeout())),
                (d, k, v) -> d.dbConnectTimeout = DbBreakerConfig.duration(k, one(k, v),
                        DbBreakerConfig.MIN_CONNECT_TIMEOUT, DbBreakerConfig.MAX_CONNECT_TIMEOUT)),
        DB_PROBE_INTERVAL("db.probeInterval", Kind.SINGLE, "DURATION",
                "How often the server checks whether a database that went away is back (10ms to 60s).",
                c -> List.of(format(c.dbBreaker().probeInterval())),
                (d, k, v) -> d.dbProbeInterval = DbBreakerConfig.duration(k, one(k, v),
                        DbBreakerConfig.MIN_PROBE_INTERVAL, DbBreakerConfig.MAX_PROBE_INTERVAL)),
        MODE("mode", Kind.SINGLE, "proxy|redirect", "Forward requests (stateful proxy) or answer with contacts (redirect).",
                c -> List.of(c.mode().configName()), (d, k, v) -> d.mode = parsed(k, one(k, v), Mode::parse)),
        ROUTE("route", Kind.REPEATABLE, "ROUTE",
                "Static route DOMAIN=HOST[:PORT][;transport=udp|tcp|tls][;connection=persistent|per-call];"
                        + " connection defaults to tcp.connection.",
                c -> strings(c.routes()), (d, k, v) -> d.routeTexts = List.copyOf(v)),
        DEFAULT_ROUTE("defaultRoute", Kind.SINGLE, "TARGET",
                "Route HOST[:PORT][;transport=..][;connection=..] for domains neither served nor routed.",
                c -> c.defaultRoute() == null ? List.of() : List.of(c.defaultRoute().toString()),
                (d, k, v) -> d.defaultRouteText = one(k, v)),
        DOMAIN("domain", Kind.REPEATABLE, "DOMAIN", "Extra domain served, besides the listener addresses and localhost.",
                c -> c.domains(), (d, k, v) -> d.domains = items(k, v, ConfigValues::domainName)),
        RECORD_ROUTE("recordRoute", Kind.SINGLE, "BOOL", "Whether the proxy inserts Record-Route (RFC 3261 16.6 step 4).",
                c -> List.of(String.valueOf(c.recordRoute())), (d, k, v) -> d.recordRoute = bool(k, one(k, v))),
        PROXY_TIMER_C("proxy.timerC", Kind.SINGLE, "DURATION",
                "An INVITE branch silent this long after its last provisional response is cancelled (RFC 3261 16.6 step 11).",
                c -> List.of(format(c.timerC())), (d, k, v) -> d.timerC = duration(k, one(k, v), false)),
        TCP_CONNECTION("tcp.connection", Kind.SINGLE, "persistent|per-call",
                "Outgoing TCP connection pattern for targets without a route of their own.",
                c -> List.of(c.tcpConnection().configName()),
                (d, k, v) -> d.tcpConnection = parsed(k, one(k, v), ConnectionPattern::parse)),
        TCP_IDLE_TIMEOUT("tcp.idleTimeout", Kind.SINGLE, "DURATION", "A TCP connection idle this long is closed.",
                c -> List.of(format(c.tcpIdleTimeout())), (d, k, v) -> d.tcpIdleTimeout = duration(k, one(k, v), false)),
        TCP_MAX_CONNECTIONS("tcp.maxConnections", Kind.SINGLE, "N", "Cap on open TCP connections, inbound and outbound.",
                c -> List.of(String.valueOf(c.tcpMaxConnections())),
                (d, k, v) -> d.tcpMaxConnections = integer(k, one(k, v), 1, 1_000_000)),
        TCP_CONNECT_TIMEOUT("tcp.connectTimeout", Kind.SINGLE, "DURATION", "How long an outgoing TCP connect may take.",
                c -> List.of(format(c.tcpConnectTimeout())), (d, k, v) -> d.tcpConnectTimeout = duration(k, one(k, v), false)),
        TCP_MAX_CONNECTIONS_PER_SOURCE("tcp.maxConnectionsPerSource", Kind.SINGLE, "N",
                "Most inbound TCP/TLS connections from one IP address; more are reset on accept (auth.trustedPeers exempt).",
                c -> List.of(String.valueOf(c.tcpLimits().maxConnectionsPerSource())),
                (d, k, v) -> d.tcpMaxConnectionsPerSource = integer(k, one(k, v), 1, 1_000_000)),
        TCP_FIRST_MESSAGE_TIMEOUT("tcp.firstMessageTimeout", Kind.SINGLE, "DURATION",
                "An inbound connection without a complete SIP message this long after opening (after TLS handshake) is closed.",
                c -> List.of(format(c.tcpLimits().firstMessageTimeout())),
                (d, k, v) -> d.tcpFirstMessageTimeout = duration(k, one(k, v), false)),
        TCP_MESSAGE_TIMEOUT("tcp.messageTimeout", Kind.SINGLE, "DURATION",
                "A message must be complete this long after its first byte, else its connection is closed.",
                c -> List.of(format(c.tcpLimits().messageTimeout())),
                (d, k, v) -> d.tcpMessageTimeout = duration(k, one(k, v), false)),
        TCP_MAX_PARTIAL_BYTES("tcp.maxPartialBytes", Kind.SINGLE, "BYTES",
                "Most bytes of incomplete messages over all connections; beyond it the oldest are closed.",
                c -> List.of(String.valueOf(c.tcpLimits().maxPartialBytes())),
                (d, k, v) -> d.tcpMaxPartialBytes = integer(k, one(k, v), 1024, Integer.MAX_VALUE)),
        SIP_MAX_MESSAGE_BYTES("sip.maxMessageBytes", Kind.SINGLE, "BYTES", "Largest SIP message accepted (1024 to 16 MiB).",
                c -> List.of(String.valueOf(c.maxMessageBytes())),
                (d, k, v) -> d.maxMessageBytes = integer(k, one(k, v), 1024, 16 * 1024 * 1024)),
        SIP_WORKERS("sip.workers", Kind.SINGLE, "N", "SIP worker lanes; the messages of one call stay on one lane.",
                c -> List.of(String.valueOf(c.sipWorkers())), (d, k, v) -> d.sipWorkers = integer(k, one(k, v), 1, 1024)),
        SIP_QUEUE_CAPACITY("sip.queueCapacity", Kind.SINGLE, "N", "Bound of each lane's queue; messages beyond it are dropped.",
                c -> List.of(String.valueOf(c.sipQueueCapacity())),
                (d, k, v) -> d.sipQueueCapacity = integer(k, one(k, v), 1, 10_000_000)),
        IO_THREADS("io.threads", Kind.SINGLE, "N", "Event-loop threads; 0 means twice the number of cores.",
                c -> List.of(String.valueOf(c.ioThreads())), (d, k, v) -> d.ioThreads = integer(k, one(k, v), 0, 1024)),
        TRANSPORT_IMPL("transport.impl", Kind.SINGLE, "netty|jain-nio|jain-oio",
                "Transport under JAIN-SIP: sipcrypt's Netty one, or JAIN-SIP's built-in NIO or blocking (default) one, for comparison.",
                c -> List.of(c.transportImpl().configName()),
                (d, k, v) -> d.transportImpl = parsed(k, one(k, v), TransportImpl::parse)),
        REGISTRAR_MIN_EXPIRES("registrar.minExpires", Kind.SINGLE, "DURATION",
                "Registrations asking for less get 423 Interval Too Brief.",
                c -> List.of(format(c.minExpires())), (d, k, v) -> d.minExpires = expires(k, one(k, v))),
        REGISTRAR_MAX_EXPIRES("registrar.maxExpires", Kind.SINGLE, "DURATION",
                "Registrations asking for more are shortened to this.",
                c -> List.of(format(c.maxExpires())), (d, k, v) -> d.maxExpires = expires(k, one(k, v))),
        REGISTRAR_DEFAULT_EXPIRES("registrar.defaultExpires", Kind.SINGLE, "DURATION",
                "Registrations that ask for no expiry get this.",
                c -> List.of(format(c.defaultExpires())), (d, k, v) -> d.defaultExpires = expires(k, one(k, v))),
        REGISTRAR_MAX_CONTACTS("registrar.maxContacts", Kind.SINGLE, "N",
                "Most contacts one address-of-record may register (403 beyond it); also the most branches a"
                        + " request forks to and the most contacts in a 302 or a REGISTER answer.",
                c -> List.of(String.valueOf(c.maxContacts())),
                (d, k, v) -> d.maxContacts = integer(k, one(k, v), 1, 10_000)),
        REGISTRAR_MAX_BINDINGS("registrar.maxBindings", Kind.SINGLE, "N",
                "Most bindings held in all; a REGISTER adding one beyond it gets 503.",
                c -> List.of(String.valueOf(c.maxBindings())),
                (d, k, v) -> d.maxBindings = integer(k, one(k, v), 1, 1_000_000_000)),
        SHUTDOWN_GRACE("shutdown.grace", Kind.SINGLE, "DURATION", "How long shutdown waits for open transactions and established calls.",
                c -> List.of(format(c.shutdownGrace())), (d, k, v) -> d.shutdownGrace = duration(k, one(k, v), true)),
        STATS_INTERVAL("stats.interval", Kind.SINGLE, "DURATION", "How often counters are logged; 0 turns it off.",
                c -> List.of(format(c.statsInterval())), (d, k, v) -> d.statsInterval = duration(k, one(k, v), true)),
        OVERLOAD_QUEUE_THRESHOLD("overload.queueThreshold", Kind.SINGLE, "N",
                "New requests get 503 while their lane holds this many messages (the rest of sip.queueCapacity"
                        + " is kept for responses and in-dialog requests).",
                c -> List.of(String.valueOf(c.overload().queueThreshold())),
                (d, k, v) -> d.overloadQueueThreshold = integer(k, one(k, v), 1, 10_000_000)),
        OVERLOAD_MAX_QUEUE_DELAY("overload.maxQueueDelay", Kind.SINGLE, "DURATION",
                "New requests get 503 while the oldest message in their lane has waited longer; 0 turns it off.",
                c -> List.of(format(c.overload().maxQueueDelay())),
                (d, k, v) -> d.overloadMaxQueueDelay = duration(k, one(k, v), true)),
        OVERLOAD_MAX_TRANSACTIONS("overload.maxTransactions", Kind.SINGLE, "N",
                "New requests get 503 while this many requests await their final response; 0 turns it off.",
                c -> List.of(String.valueOf(c.overload().maxTransactions())),
                (d, k, v) -> d.overloadMaxTransactions = integer(k, one(k, v), 0, 100_000_000)),
        OVERLOAD_MAX_HEAP_AFTER_GC("overload.maxHeapAfterGc", Kind.SINGLE, "PERCENT",
                "New requests get 503 while the heap used after the last GC is above this share of the maximum;"
                        + " 0 turns it off.",
                c -> List.of(String.valueOf(c.overload().maxHeapAfterGc())),
                (d, k, v) -> d.overloadMaxHeapAfterGc = integer(k, one(k, v), 0, 100)),
        OVERLOAD_RETRY_AFTER("overload.retryAfter", Kind.SINGLE, "DURATION",
                "Retry-After of a 503 for overload or shutdown, plus a random part of up to as much again.",
                c -> List.of(format(c.overload().retryAfter())),
                (d, k, v) -> d.overloadRetryAfter = expires(k, one(k, v))),
        SHUTDOWN_MAX_DIALOGS("shutdown.maxDialogs", Kind.SINGLE, "N",
                "Most established calls remembered so that shutdown waits for their BYE; 0 waits for transactions only.",
                c -> List.of(String.valueOf(c.overload().maxDialogs())),
                (d, k, v) -> d.shutdownMaxDialogs = integer(k, one(k, v), 0, 100_000_000)),
        SHUTDOWN_DIALOG_LIFETIME("shutdown.dialogLifetime", Kind.SINGLE, "DURATION",
                "A remembered call without a re-INVITE for this long is forgotten (its BYE may have gone elsewhere).",
                c -> List.of(format(c.overload().dialogLifetime())),
                (d, k, v) -> d.shutdownDialogLifetime = duration(k, one(k, v), false)),
        HTTP("http", Kind.SINGLE, "HOST:PORT",
                "HTTP listener for /metrics (Prometheus) and /health; off means none. Bind it to loopback or a"
                        + " management network only: it answers anyone who reaches it.",
                c -> List.of(c.http().enabled() ? c.http().listen().toString() : "off"),
                (d, k, v) -> d.httpListen = ConfigValues.httpListen(k, one(k, v))),
        HTTP_MAX_REQUEST_BYTES("http.maxRequestBytes", Kind.SINGLE, "BYTES",
                "Most bytes of an HTTP request's line and headers; longer requests get 431.",
                c -> List.of(String.valueOf(c.http().maxRequestBytes())),
                (d, k, v) -> d.httpMaxRequestBytes = integer(k, one(k, v), 256, 1024 * 1024)),
        HTTP_MAX_CONNECTIONS("http.maxConnections", Kind.SINGLE, "N",
                "Most HTTP connections open at once; more are closed as they arrive.",
                c -> List.of(String.valueOf(c.http().maxConnections())),
                (d, k, v) -> d.httpMaxConnections = integer(k, one(k, v), 1, 10_000)),
        HTTP_IDLE_TIMEOUT("http.idleTimeout", Kind.SINGLE, "DURATION",
                "An HTTP connection that has not sent a whole request within this is closed.",
                c -> List.of(format(c.http().idleTimeout())),
                (d, k, v) -> d.httpIdleTimeout = duration(k, one(k, v), false)),
        HTTP_HEALTH_TIMEOUT("http.healthTimeout", Kind.SINGLE, "DURATION",
                "How long /health's database check may take; a slower database makes the server not ready.",
                c -> List.of(format(c.http().healthTimeout())),
                (d, k, v) -> d.httpHealthTimeout = duration(k, one(k, v), false)),
        AUTH("auth", Kind.FLAG, "BOOL", "Digest authentication (RFC 3261 22): challenge the methods of auth.methods.",
                c -> List.of(String.valueOf(c.auth().enabled())), (d, k, v) -> d.authEnabled = bool(k, one(k, v))),
        AUTH_METHODS("auth.methods", Kind.REPEATABLE, "METHOD",
                "Methods challenged when auth is on (* = all): REGISTER gets 401, others 407; ACK and CANCEL never are."
                        + " Narrowing it lets the rest reach local users unauthenticated (logged as a warning).",
                c -> c.auth().methods(), (d, k, v) -> d.authMethods = items(k, v, ConfigValues::challengedMethod)),
        REALM("realm", Kind.SINGLE, "NAME", "Digest realm; unset means the host of the first listener.",
                c -> List.of(c.effectiveRealm()), (d, k, v) -> d.realm = nonBlank(k, one(k, v), "a realm")),
        AUTH_ALGORITHMS("auth.algorithms", Kind.REPEATABLE, "sha-256|md5",
                "Digest algorithms offered, one challenge each, most preferred first (RFC 8760).",
                c -> c.auth().algorithms().stream().map(a -> a.configName()).toList(),
                (d, k, v) -> d.authAlgorithms = items(k, v, ConfigValues::digestAlgorithm)),
        AUTH_LEGACY_NO_QOP("auth.legacyNoQop", Kind.SINGLE, "BOOL",
                "Lab only: accept credentials without qop (RFC 2069 form); they have no nonce count, so captured"
                        + " ones can be replayed (logged as a warning).",
                c -> List.of(String.valueOf(c.auth().legacyNoQop())), (d, k, v) -> d.authLegacyNoQop = bool(k, one(k, v))),
        AUTH_NONCE_LIFETIME("auth.nonceLifetime", Kind.SINGLE, "DURATION",
                "Older nonces get a new challenge with stale=true.",
                c -> List.of(format(c.auth().nonceLifetime())),
                (d, k, v) -> d.authNonceLifetime = duration(k, one(k, v), false)),
        AUTH_NONCE_SECRET("auth.nonceSecret", Kind.SECRET, "SECRET",
                "HMAC key of nonces (16+ characters; never logged); servers sharing it accept each other's nonces."
                        + " Unset means random per start.",
                c -> List.of(c.auth().nonceSecret()), (d, k, v) -> d.authNonceSecret = one(k, v)),
        AUTH_NONCE_BINDS_ADDRESS("auth.nonceBindsAddress", Kind.SINGLE, "BOOL",
                "A nonce is valid only from the IP address it was sent to.",
                c -> List.of(String.valueOf(c.auth().nonceBindsAddress())),
                (d, k, v) -> d.authNonceBindsAddress = bool(k, one(k, v))),
        AUTH_ON_FAILURE("auth.onFailure", Kind.SINGLE, "forbid|challenge",
                "Answer to a wrong password or unknown user (the same for both): 403, or a new challenge.",
                c -> List.of(c.auth().onFailure().configName()),
                (d, k, v) -> d.authOnFailure = parsed(k, one(k, v), AuthConfig.FailureAnswer::parse)),
        AUTH_MATCH_IDENTITY("auth.matchIdentity", Kind.SINGLE, "BOOL",
                "The digest user must be the To user of a REGISTER and the From user of other requests.",
                c -> List.of(String.valueOf(c.auth().matchIdentity())),
                (d, k, v) -> d.authMatchIdentity = bool(k, one(k, v))),
        AUTH_IN_DIALOG("auth.inDialog", Kind.SINGLE, "BOOL",
                "Challenge requests inside a dialog too, even those carrying this proxy's signed Record-Route.",
                c -> List.of(String.valueOf(c.auth().inDialog())), (d, k, v) -> d.authInDialog = bool(k, one(k, v))),
        AUTH_TRUSTED_PEERS("auth.trustedPeers", Kind.REPEATABLE, "ADDRESS[/PREFIX]",
                "Addresses (IP or CIDR) whose requests are never challenged, e.g. the proxies next in a chain.",
                c -> strings(c.auth().trustedPeers()),
                (d, k, v) -> d.authTrustedPeers = items(k, v, AddressBlock::parse)),
        AUTH_LAB_SKIP_URI_CHECK("auth.lab.skipUriCheck", Kind.SINGLE, "BOOL",
                "Lab only: accept a digest uri other than the Request-URI, so credentials captured for one target"
                        + " work for another (logged as a warning).",
                c -> List.of(String.valueOf(c.auth().labSkipUriCheck())),
                (d, k, v) -> d.authLabSkipUriCheck = bool(k, one(k, v))),
        AUTH_BATCH_SIZE("auth.batchSize", Kind.SINGLE, "N", "Most user names fetched by one credential query.",
                c -> List.of(String.valueOf(c.auth().batchSize())),
                (d, k, v) -> d.authBatchSize = integer(k, one(k, v), 1, 1000)),
        AUTH_BATCH_WAIT("auth.batchWait", Kind.SINGLE, "DURATION",
                "Longest a credential lookup waits for its batch to fill; 0 sends at once.",
                c -> List.of(format(c.auth().batchWait())), (d, k, v) -> d.authBatchWait = duration(k, one(k, v), true)),
        AUTH_QUEUE_CAPACITY("auth.queueCapacity", Kind.SINGLE, "N",
                "Most credential lookups waiting; beyond it requests get 503.",
                c -> List.of(String.valueOf(c.auth().queueCapacity())),
                (d, k, v) -> d.authQueueCapacity = integer(k, one(k, v), 1, 10_000_000)),
        AUTH_CACHE_SIZE("auth.cacheSize", Kind.SINGLE, "N", "Subscribers cached in memory; 0 turns the cache off.",
                c -> List.of(String.valueOf(c.auth().cacheSize())),
                (d, k, v) -> d.authCacheSize = integer(k, one(k, v), 0, 10_000_000)),
        AUTH_CACHE_TTL("auth.cacheTtl", Kind.SINGLE, "DURATION", "How long a cached subscriber is trusted.",
                c -> List.of(format(c.auth().cacheTtl())), (d, k, v) -> d.authCacheTtl = duration(k, one(k, v), false)),
        AUTH_REPLAY_NONCES("auth.replayNonces", Kind.SINGLE, "N",
                "Most nonces whose counts are remembered to reject replays.",
                c -> List.of(String.valueOf(c.auth().replayNonces())),
                (d, k, v) -> d.authReplayNonces = integer(k, one(k, v), 1, 100_000_000)),
        TLS_CERT("tls.cert", Kind.SINGLE, "FILE",
                "PEM certificate (chain), or a PKCS#12 file (.p12, .pfx) with its key, of the tls listener and outgoing TLS.",
                c -> c.tls().cert() == null ? List.of() : List.of(c.tls().cert().toString()),
                (d, k, v) -> d.tlsCert = path(k, one(k, v))),
        TLS_KEY("tls.key", Kind.SINGLE, "FILE", "PEM private key of a PEM tls.cert (none with a .p12 file).",
                c -> c.tls().key() == null ? List.of() : List.of(c.tls().key().toString()),
                (d, k, v) -> d.tlsKey = path(k, one(k, v))),
        TLS_TRUST("tls.trust", Kind.SINGLE, "FILE",
                "PEM CA certificates peers must chain to; unset means the JDK's trust store for outgoing TLS.",
                c -> c.tls().trust() == null ? List.of() : List.of(c.tls().trust().toString()),
                (d, k, v) -> d.tlsTrust = path(k, one(k, v))),
        TLS_CIPHERS("tls.ciphers", Kind.REPEATABLE, "NAME",
                "Cipher-suite providers (aes, 3des, rc4, ...) or suite names, most preferred first.",
                c -> c.tls().ciphers(), (d, k, v) -> d.tlsCiphers = List.copyOf(v)),
        TLS_CLIENT_AUTH("tls.clientAuth", Kind.SINGLE, "none|want|need", "Client certificates on the tls listener.",
                c -> List.of(c.tls().clientAuth().configName()),
                (d, k, v) -> d.tlsClientAuth = parsed(k, one(k, v), TlsConfig.ClientAuth::parse)),
        TLS_ALLOW_INSECURE("tls.allowInsecure", Kind.FLAG, "BOOL",
                "Lab only: allow the insecure RC4 and 3DES suites in tls.ciphers (logged as a warning).",
                c -> List.of(String.valueOf(c.tls().allowInsecure())), (d, k, v) -> d.tlsAllowInsecure = bool(k, one(k, v))),
        TLS_HANDSHAKE_TIMEOUT("tls.handshakeTimeout", Kind.SINGLE, "DURATION",
                "A TLS connection whose handshake takes longer is closed.",
                c -> List.of(format(c.tls().handshakeTimeout())),
                (d, k, v) -> d.tlsHandshakeTimeout = duration(k, one(k, v), false)),
        TLS_ENGINE("tls.engine", Kind.SINGLE, "auto|bc|jsse",
                "TLS engine of the listener and outgoing TLS: bc (Bouncy Castle; Camellia, SEED), jsse (SunJSSE; RC4),"
                        + " or auto (jsse when it runs every suite in tls.ciphers, else bc).",
                c -> List.of(c.tls().engineName()), (d, k, v) -> d.tlsEngine = tlsEngine(k, one(k, v))),
        TLS_CRYPTO("tls.crypto", Kind.REPEATABLE, "ENGINE|PROVIDER:ENGINE",
                "On the bc engine, where bulk ciphers run: jca (the JVM's providers; AES-NI) or bc (Bouncy Castle's"
                        + " lightweight engines), for every provider that has it or for one (e.g. aes:bc).",
                c -> c.tls().crypto(), (d, k, v) -> d.tlsCrypto = List.copyOf(v)),
        TLS_SESSION_REUSE("tls.sessionReuse", Kind.SINGLE, "on|off",
                "Whether TLS sessions are resumed: the listener's session cache and the sessions offered to peers dialled.",
                c -> List.of(c.tls().sessionReuse() ? "on" : "off"), (d, k, v) -> d.tlsSessionReuse = bool(k, one(k, v))),
        TLS_SESSION_CACHE_SIZE("tls.sessionCacheSize", Kind.SINGLE, "N",
                "Most TLS sessions kept for resumption, on each side.",
                c -> List.of(String.valueOf(c.tls().sessionCacheSize())),
                (d, k, v) -> d.tlsSessionCacheSize = integer(k, one(k, v), 1, 10_000_000)),
        TLS_SESSION_LIFETIME("tls.sessionLifetime", Kind.SINGLE, "DURATION",
                "How long a TLS session may be resumed after its full handshake.",
                c -> List.of(format(c.tls().sessionLifetime())),
                (d, k, v) -> d.tlsSessionLifetime = duration(k, one(k, v), false)),
        TLS_HANDSHAKE_THREADS("tls.handshakeThreads", Kind.SINGLE, "N",
                "bc engine: threads that process TLS handshake records (the RSA work); 0 keeps them on the event loops.",
                c -> List.of(String.valueOf(c.tls().handshakeThreads())),
                (d, k, v) -> d.tlsHandshakeThreads = integer(k, one(k, v), 0, 256)),
        TLS_VERIFY_PEERS("tls.verifyPeers", Kind.SINGLE, "on|off",
                "Lab only when off: accept any certificate from peers (servers dialled, clients), logged as a warning.",
                c -> List.of(c.tls().verifyPeers() ? "on" : "off"), (d, k, v) -> d.tlsVerifyPeers = bool(k, one(k, v))),
        TLS_VERSIONS("tls.versions", Kind.REPEATABLE, "1.2|1.3",
                "TLS versions offered, each when tls.ciphers has a suite of it (TLS 1.3 suites: TLS_AES_*).",
                c -> c.tls().versions(), (d, k, v) -> d.tlsVersions = List.copyOf(v)),
        TLS_KEY_PASSWORD("tls.keyPassword", Kind.SECRET, "PASSWORD", "Password of a PKCS#12 tls.cert (never logged).",
                c -> List.of(c.tls().keyPassword()), (d, k, v) -> d.tlsKeyPassword = one(k, v)),
        TLS_PEER("tls.peer", Kind.REPEATABLE, "HOST:PORT;NAME=VALUE...",
                "TLS for connections to one peer, overriding tls.*: engine, ciphers, crypto, versions (lists joined"
                        + " with +), cert, key, trust, reuse, verify; e.g. 10.0.0.2:5061;engine=bc;ciphers=seed.",
                c -> strings(c.tls().peers()), (d, k, v) -> d.tlsPeers = items(k, v, TlsPeerConfig::parse));

        private final String key;
        private final Kind kind;
        private final String paramLabel;
        private final String description;
        private final Function<ServerConfig, List<String>> render;
        private final Applier applier;

        Setting(String key, Kind kind, String paramLabel, String description,
                Function<ServerConfig, List<String>> render, Applier applier) {
            this.key = key;
            this.kind = kind;
            this.paramLabel = paramLabel;
            this.description = description;
            this.render = render;
            this.applier = applier;
        }

        /** The key in configuration files, dotted camelCase: {@code tcp.idleTimeout}. */
        public String key() {
            return key;
        }

        /** The command-line option: the key with dots and camel humps as dashes, {@code --tcp-idle-timeout}. */
        public String option() {
            StringBuilder sb = new StringBuilder("--");
            for (char ch : key.toCharArray()) {
                if (ch == '.') {
                    sb.append('-');
                } else if (Character.isUpperCase(ch)) {
                    sb.append('-').append(Character.toLowerCase(ch));
                } else {
                    sb.append(ch);
                }
            }
            return sb.toString();
        }

        /** Whether the setting is a list: the option may be repeated, the file takes a list. */
        public boolean repeatable() {
            return kind == Kind.REPEATABLE;
        }

        /** Whether the option may be given without a value, meaning {@code true}: {@code --auth}. */
        public boolean flag() {
            return kind == Kind.FLAG;
        }

        /** Whether the value is a secret, masked wherever configuration is printed. */
        public boolean secret() {
            return kind == Kind.SECRET;
        }

        /** What the value looks like, for help: {@code DURATION}, {@code TRANSPORT:HOST:PORT}. */
        public String paramLabel() {
            return paramLabel;
        }

        /** One line for help. */
        public String description() {
            return description;
        }

        /** The default as shown in help, from {@link ServerConfig#defaults()}. */
        public String defaultText() {
            List<String> values = render.apply(ServerConfig.defaults());
            if (values.isEmpty() || secret() && values.get(0).isEmpty()) {
                return "none";
            }
            return secret() ? MASK : String.join(",", values);
        }

        /** This setting's value in {@code config}, as one printable line; secrets masked. */
        String display(ServerConfig config) {
            if (secret()) {
                return MASK;
            }
            List<String> values = render.apply(config);
            String text = values.isEmpty() ? "(none)" : String.join(",", values);
            return URL_PASSWORD.matcher(text).replaceAll("$1" + Matcher.quoteReplacement(MASK));
        }
    }

    private enum Kind { SINGLE, FLAG, REPEATABLE, SECRET }

    @FunctionalInterface
    private interface Applier {
        void apply(Draft draft, String key, List<String> values) throws ConfigException;
    }

    /** The table of settings, in help order. */
    public static List<Setting> settings() {
        return List.of(Setting.values());
    }

    /**
     * Builds the configuration.
     *
     * @param configFileOrNull a {@code .properties}, {@code .yaml} or {@code .yml} file, or
     *                         {@code null} for none
     * @param commandLine      raw command-line values by file key ({@code "tcp.idleTimeout"}); a
     *                         key present here replaces the file's value for that key
     * @throws ConfigException naming the key, the value and what was expected
     */
    public static ServerConfig load(Path configFileOrNull, Map<String, List<String>> commandLine)
            throws ConfigException {
        Objects.requireNonNull(commandLine, "commandLine");
        Map<Setting, List<String>> given = new EnumMap<>(Setting.class);
        if (configFileOrNull != null) {
            Map<String, List<String>> fromFile = ConfigFileReader.read(configFileOrNull);
            for (Map.Entry<String, List<String>> e : fromFile.entrySet()) {
                given.put(setting(e.getKey(), " in " + configFileOrNull), e.getValue());
            }
        }
        for (Map.Entry<String, List<String>> e : commandLine.entrySet()) {
            given.put(setting(e.getKey(), " on the command line"), List.copyOf(e.getValue()));
        }
        log.debug("configuration keys given: {}", given.keySet());
        Draft draft = new Draft(ServerConfig.defaults());
        for (Map.Entry<Setting, List<String>> e : given.entrySet()) {
            Setting s = e.getKey();
            if (!s.repeatable() && e.getValue().size() != 1) {
                throw new ConfigException(s.key + ": " + e.getValue().size()
                        + " values given (expected exactly one)");
            }
            s.applier.apply(draft, s.key, e.getValue());
        }
        return draft.build();
    }

    /** The effective configuration, one {@code key=value} line per setting, secrets masked. */
    public static String describe(ServerConfig c) {
        Objects.requireNonNull(c, "c");
        StringBuilder sb = new StringBuilder();
        for (Setting s : Setting.values()) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(s.key).append('=').append(s.display(c));
        }
        return sb.toString();
    }

    private static Setting setting(String key, String where) throws ConfigException {
        for (Setting s : Setting.values()) {
            if (s.key.equals(key)) {
                return s;
            }
        }
        throw new ConfigException(key + ": unknown key" + where + ConfigFileReader.hint(key));
    }

    private static List<String> strings(List<?> values) {
        return values.stream().map(Object::toString).toList();
    }

    /** The values being assembled, starting from the defaults. Not thread-safe; one per load. */
    private static final class Draft {
        List<ListenerConfig> listeners;
        Path dataDir;
        String dbUrl;
        String dbUser;
        String dbPassword;
        int dbPoolSize;
        Duration dbConnectTimeout;
        Duration dbProbeInterval;
        Mode mode;
        List<RouteConfig> routes;
        List<String> routeTexts;
        RouteConfig defaultRoute;
        String defaultRouteText;
        List<String> domains;
        boolean recordRoute;
        Duration timerC;
        ConnectionPattern tcpConnection;
        Duration tcpIdleTimeout;
        int tcpMaxConnections;
        Duration tcpConnectTimeout;
        int tcpMaxConnectionsPerSource;
        Duration tcpFirstMessageTimeout;
        Duration tcpMessageTimeout;
        int tcpMaxPartialBytes;
        int maxMessageBytes;
        int ioThreads;
        int sipWorkers;
        int sipQueueCapacity;
        TransportImpl transportImpl;
        Duration minExpires;
        Duration maxExpires;
        Duration defaultExpires;
        int maxContacts;
        int maxBindings;
        Duration shutdownGrace;
        Duration statsInterval;
        int overloadQueueThreshold;
        Duration overloadMaxQueueDelay;
        int overloadMaxTransactions;
        int overloadMaxHeapAfterGc;
        Duration overloadRetryAfter;
        int shutdownMaxDialogs;
        Duration shutdownDialogLifetime;
        HostPort httpListen;
        int httpMaxRequestBytes;
        int httpMaxConnections;
        Duration httpIdleTimeout;
        Duration httpHealthTimeout;
        boolean authEnabled;
        List<String> authMethods;
        String realm;
        List<DigestAlgorithm> authAlgorithms;
        boolean authLegacyNoQop;
        Duration authNonceLifetime;
        String authNonceSecret;
        boolean authNonceBindsAddress;
        AuthConfig.FailureAnswer authOnFailure;
        boolean authMatchIdentity;
        boolean authInDialog;
        List<AddressBlock> authTrustedPeers;
        boolean authLabSkipUriCheck;
        int authBatchSize;
        Duration authBatchWait;
        int authQueueCapacity;
        int authCacheSize;
        Duration authCacheTtl;
        int authReplayNonces;
        Path tlsCert;
        Path tlsKey;
        Path tlsTrust;
        List<String> tlsCiphers;
        TlsConfig.ClientAuth tlsClientAuth;
        boolean tlsAllowInsecure;
        Duration tlsHandshakeTimeout;
        org.sipcrypt.server.tls.spi.TlsEngine tlsEngine;
        List<String> tlsCrypto;
        boolean tlsSessionReuse;
        int tlsSessionCacheSize;
        Duration tlsSessionLifetime;
        int tlsHandshakeThreads;
        boolean tlsVerifyPeers;
        List<String> tlsVersions;
        List<TlsPeerConfig> tlsPeers;
        String tlsKeyPassword;

        Draft(ServerConfig c) {
            listeners = c.listeners();
            dataDir = c.dataDir();
            dbUrl = c.dbUrl();
            dbUser = c.dbUser();
            dbPassword = c.dbPassword();
            dbPoolSize = c.dbPoolSize();
            dbConnectTimeout = c.dbBreaker().connectTimeout();
            dbProbeInterval = c.dbBreaker().probeInterval();
            mode = c.mode();
            routes = c.routes();
            defaultRoute = c.defaultRoute();
            domains = c.domains();
            recordRoute = c.recordRoute();
            timerC = c.timerC();
            tcpConnection = c.tcpConnection();
            tcpIdleTimeout = c.tcpIdleTimeout();
            tcpMaxConnections = c.tcpMaxConnections();
            tcpConnectTimeout = c.tcpConnectTimeout();
            tcpMaxConnectionsPerSource = c.tcpLimits().maxConnectionsPerSource();
            tcpFirstMessageTimeout = c.tcpLimits().firstMessageTimeout();
            tcpMessageTimeout = c.tcpLimits().messageTimeout();
            tcpMaxPartialBytes = c.tcpLimits().maxPartialBytes();
            maxMessageBytes = c.maxMessageBytes();
            ioThreads = c.ioThreads();
            sipWorkers = c.sipWorkers();
            sipQueueCapacity = c.sipQueueCapacity();
            transportImpl = c.transportImpl();
            minExpires = c.minExpires();
            maxExpires = c.maxExpires();
            defaultExpires = c.defaultExpires();
            maxContacts = c.maxContacts();
            maxBindings = c.maxBindings();
            shutdownGrace = c.shutdownGrace();
            statsInterval = c.statsInterval();
            OverloadConfig o = c.overload();
            overloadQueueThreshold = o.queueThreshold();
            overloadMaxQueueDelay = o.maxQueueDelay();
            overloadMaxTransactions = o.maxTransactions();
            overloadMaxHeapAfterGc = o.maxHeapAfterGc();
            overloadRetryAfter = o.retryAfter();
            shutdownMaxDialogs = o.maxDialogs();
            shutdownDialogLifetime = o.dialogLifetime();
            httpListen = c.http().listen();
            httpMaxRequestBytes = c.http().maxRequestBytes();
            httpMaxConnections = c.http().maxConnections();
            httpIdleTimeout = c.http().idleTimeout();
            httpHealthTimeout = c.http().healthTimeout();
            AuthConfig a = c.auth();
            authEnabled = a.enabled();
            authMethods = a.methods();
            realm = a.realm();
            authAlgorithms = a.algorithms();
            authLegacyNoQop = a.legacyNoQop();
            authNonceLifetime = a.nonceLifetime();
            authNonceSecret = a.nonceSecret();
            authNonceBindsAddress = a.nonceBindsAddress();
            authOnFailure = a.onFailure();
            authMatchIdentity = a.matchIdentity();
            authInDialog = a.inDialog();
            authTrustedPeers = a.trustedPeers();
            authLabSkipUriCheck = a.labSkipUriCheck();
            authBatchSize = a.batchSize();
            authBatchWait = a.batchWait();
            authQueueCapacity = a.queueCapacity();
            authCacheSize = a.cacheSize();
            authCacheTtl = a.cacheTtl();
            authReplayNonces = a.replayNonces();
            TlsConfig t = c.tls();
            tlsCert = t.cert();
            tlsKey = t.key();
            tlsTrust = t.trust();
            tlsCiphers = t.ciphers();
            tlsClientAuth = t.clientAuth();
            tlsAllowInsecure = t.allowInsecure();
            tlsHandshakeTimeout = t.handshakeTimeout();
            tlsEngine = t.engine();
            tlsCrypto = t.crypto();
            tlsSessionReuse = t.sessionReuse();
            tlsSessionCacheSize = t.sessionCacheSize();
            tlsSessionLifetime = t.sessionLifetime();
            tlsHandshakeThreads = t.handshakeThreads();
            tlsVerifyPeers = t.verifyPeers();
            tlsVersions = t.versions();
            tlsPeers = t.peers();
            tlsKeyPassword = t.keyPassword();
        }

        ServerConfig build() throws ConfigException {
            // Routes are parsed last: their connection pattern defaults to the effective tcp.connection.
            if (routeTexts != null) {
                routes = items(Setting.ROUTE.key, routeTexts,
                        t -> RouteConfig.parseDomainRoute(t, tcpConnection));
            }
            if (defaultRouteText != null) {
                defaultRoute = parsed(Setting.DEFAULT_ROUTE.key, defaultRouteText,
                        t -> RouteConfig.parseDefaultRoute(t, tcpConnection));
            }
            checkExpiresOrder();
            checkPerCallNeedsNetty();
            checkRoutesHaveListeners();
            checkTls();
            checkPartialBytes();
            try {
                AuthConfig auth = new AuthConfig(authEnabled, authMethods, realm, authAlgorithms, authLegacyNoQop,
                        authNonceLifetime, authNonceSecret, authNonceBindsAddress, authOnFailure, authMatchIdentity,
                        authInDialog, authTrustedPeers, authLabSkipUriCheck, authBatchSize, authBatchWait, authQueueCapacity, authCacheSize, authCacheTtl,
                        authReplayNonces);
                return new ServerConfig(listeners, dataDir, dbUrl, dbUser, dbPassword, dbPoolSize, mode,
                        routes, defaultRoute, domains, recordRoute, timerC, tcpConnection, tcpIdleTimeout,
                        tcpMaxConnections, tcpConnectTimeout, maxMessageBytes, ioThreads, sipWorkers,
                        sipQueueCapacity, transportImpl, minExpires, maxExpires, defaultExpires,
                        maxContacts, maxBindings, shutdownGrace, statsInterval,
                        new DbBreakerConfig(dbConnectTimeout, dbProbeInterval),
                        new TcpLimitsConfig(tcpMaxConnectionsPerSource, tcpFirstMessageTimeout, tcpMessageTimeout,
                                tcpMaxPartialBytes),
                        overload(),
                        new HttpConfig(httpListen, httpMaxRequestBytes, httpMaxConnections, httpIdleTimeout,
                                httpHealthTimeout),
                        auth, tls());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage(), e);
            }
        }

        private OverloadConfig overload() {
            return new OverloadConfig(overloadQueueThreshold, overloadMaxQueueDelay, overloadMaxTransactions,
                    overloadMaxHeapAfterGc, overloadRetryAfter, shutdownMaxDialogs, shutdownDialogLifetime);
        }

        private TlsConfig tls() {
            return new TlsConfig(tlsCert, tlsKey, tlsTrust, tlsCiphers, tlsClientAuth, tlsAllowInsecure,
                    tlsHandshakeTimeout, tlsEngine, tlsCrypto, tlsSessionReuse, tlsSessionCacheSize, tlsSessionLifetime,
                    tlsHandshakeThreads, tlsVerifyPeers, tlsVersions, tlsPeers, tlsKeyPassword);
        }

        /**
         * A tls listener needs a certificate and key and sipcrypt's transport; the cipher suites must
         * run together on one TLS engine; client certificates need a trust file to check them against.
         */
        private void checkTls() throws ConfigException {
            boolean listener = listeners.stream().anyMatch(l -> l.transport() == Transport.TLS);
            if (listener) {
                if (tlsCert == null || tlsKey == null && !org.sipcrypt.server.tls.KeyMaterial.isPkcs12(tlsCert)) {
                    throw new ConfigException((tlsCert == null ? Setting.TLS_CERT.key : Setting.TLS_KEY.key)
                            + ": needed by the tls listener (java -jar sipcrypt-server.jar certs --out DIR makes lab files)");
                }
                if (transportImpl != TransportImpl.NETTY) {
                    throw new ConfigException(Setting.LISTEN.key + ": tls needs the netty transport, not "
                            + transportImpl.configName() + " (expected " + Setting.TRANSPORT_IMPL.key + "=netty)");
                }
            }
            for (Path p : new Path[] {tlsCert, tlsKey, tlsTrust}) {
                if (p != null && !java.nio.file.Files.isReadable(p)) {
                    String key = p == tlsCert ? Setting.TLS_CERT.key : p == tlsKey ? Setting.TLS_KEY.key : Setting.TLS_TRUST.key;
                    throw new ConfigException(key + ": cannot read \"" + p + "\" (expected a PEM file)");
                }
            }
            if (tlsCert != null && tlsKey != null && org.sipcrypt.server.tls.KeyMaterial.isPkcs12(tlsCert)) {
                throw new ConfigException(Setting.TLS_KEY.key + ": not used with a PKCS#12 " + Setting.TLS_CERT.key
                        + " (the key is in \"" + tlsCert + "\"; its password is " + Setting.TLS_KEY_PASSWORD.key + ")");
            }
            if (tlsClientAuth != TlsConfig.ClientAuth.NONE && tlsTrust == null) {
                throw new ConfigException(Setting.TLS_TRUST.key + ": needed to check client certificates ("
                        + Setting.TLS_CLIENT_AUTH.key + "=" + tlsClientAuth.configName() + ")");
            }
            TlsConfig all = tls();
            checkChoices("", all);
            for (int i = 0; i < tlsPeers.size(); i++) {
                TlsConfig peer = tlsPeers.get(i).applyTo(all);
                checkChoices(Setting.TLS_PEER.key + "[" + i + "] ", peer);
                for (Path p : new Path[] {peer.cert(), peer.key(), peer.trust()}) {
                    if (p != null && !java.nio.file.Files.isReadable(p)) {
                        throw new ConfigException(Setting.TLS_PEER.key + "[" + i + "]: cannot read \"" + p + "\"");
                    }
                }
            }
        }

        private static void checkChoices(String where, TlsConfig t) throws ConfigException {
            try {
                org.sipcrypt.server.tls.TlsChoices.resolve(org.sipcrypt.server.tls.spi.CipherSuiteRegistry.load(),
                        t.ciphers(), t.allowInsecure(), t.engine(), t.crypto(), t.versions());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where + e.getMessage(), e);
            }
        }

        /**
         * A request leaves from a listening point of its transport (its Via names it), so a route over a
         * transport the server does not listen on would answer every call 503; refused at start instead.
         */
        private void checkRoutesHaveListeners() throws ConfigException {
            for (int i = 0; i <= routes.size(); i++) {
                RouteConfig r = i < routes.size() ? routes.get(i) : defaultRoute;
                if (r == null || listeners.stream().anyMatch(l -> l.transport() == r.transport())) {
                    continue;
                }
                String key = i < routes.size() ? Setting.ROUTE.key + "[" + i + "]" : Setting.DEFAULT_ROUTE.key;
                String t = r.transport().configName();
                throw new ConfigException(key + ": transport " + t + " needs a " + t + " listener to send from"
                        + " (expected e.g. " + Setting.LISTEN.key + "=" + t + ":127.0.0.1:"
                        + (r.transport() == Transport.TLS ? 5061 : 5060) + " besides the others)");
            }
        }

        /** JAIN-SIP's built-in transport only keeps connections; per-call needs sipcrypt's transport. */
        private void checkPerCallNeedsNetty() throws ConfigException {
            if (transportImpl == TransportImpl.NETTY) {
                return;
            }
            String expected = " (expected persistent, or " + Setting.TRANSPORT_IMPL.key + "=netty)";
            if (tcpConnection == ConnectionPattern.PER_CALL) {
                throw new ConfigException(Setting.TCP_CONNECTION.key + ": \"per-call\" needs the netty transport, not "
                        + transportImpl.configName() + expected);
            }
            for (int i = 0; i < routes.size(); i++) {
                if (routes.get(i).connection() == ConnectionPattern.PER_CALL) {
                    throw new ConfigException(Setting.ROUTE.key + "[" + i + "]: connection \"per-call\" needs the"
                            + " netty transport, not " + transportImpl.configName() + expected);
                }
            }
            if (defaultRoute != null && defaultRoute.connection() == ConnectionPattern.PER_CALL) {
                throw new ConfigException(Setting.DEFAULT_ROUTE.key + ": connection \"per-call\" needs the"
                        + " netty transport, not " + transportImpl.configName() + expected);
            }
        }

        /** One message of the largest size must fit in the bound on incomplete messages. */
        private void checkPartialBytes() throws ConfigException {
            if (tcpMaxPartialBytes < maxMessageBytes) {
                throw new ConfigException(Setting.TCP_MAX_PARTIAL_BYTES.key + ": " + tcpMaxPartialBytes + " is below "
                        + Setting.SIP_MAX_MESSAGE_BYTES.key + " " + maxMessageBytes
                        + " (expected room for at least one message of the largest size)");
            }
        }

        private void checkExpiresOrder() throws ConfigException {
            String min = Setting.REGISTRAR_MIN_EXPIRES.key;
            String def = Setting.REGISTRAR_DEFAULT_EXPIRES.key;
            String max = Setting.REGISTRAR_MAX_EXPIRES.key;
            String expected = " (expected " + min + " <= " + def + " <= " + max + ")";
            if (minExpires.compareTo(maxExpires) > 0) {
                throw new ConfigException(min + ": " + format(minExpires) + " is above " + max + " "
                        + format(maxExpires) + expected);
            }
            if (defaultExpires.compareTo(minExpires) < 0) {
                throw new ConfigException(def + ": " + format(defaultExpires) + " is below " + min + " "
                        + format(minExpires) + expected);
            }
            if (defaultExpires.compareTo(maxExpires) > 0) {
                throw new ConfigException(def + ": " + format(defaultExpires) + " is above " + max + " "
                        + format(maxExpires) + expected);
            }
        }
    }
}
