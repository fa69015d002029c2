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

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.WebSocketLimits;

/**
 * The table of settings: each one's key in the file, its command-line option, how its value is
 * parsed into a {@link ServerConfig.Builder} and how it is shown; the order is the order of
 * {@code --help} and of {@link ConfigLoader#describe}. Every key not given keeps its value from
 * {@link ServerConfig#defaults()}.
 * Threading: immutable.
 */
public enum Setting {
    LISTEN("listen", Kind.REPEATABLE, "TRANSPORT:HOST:PORT[;advertise=HOST[:PORT]]",
            "Listening socket, e.g. udp:127.0.0.1:5060 or tcp:[::1]:5060; several per transport, not two on one"
                    + " socket; port 0 picks a free port. advertise= is the name or address (and port, default the"
                    + " listening one) peers reach it at, which Via and Record-Route carry, required on 0.0.0.0 and"
                    + " [::]: tls:0.0.0.0:5061;advertise=sip.example.com. Giving any replaces the defaults.",
            c -> strings(c.listeners()), (b, k, v) -> b.listeners(items(k, v, ListenerConfig::parse))),
    DATA_DIR("dataDir", Kind.SINGLE, "DIR",
            "Directory of the embedded H2 database and its password file db.secret; created 0700 if missing.",
            c -> List.of(c.dataDir().toString()), (b, k, v) -> b.dataDir(path(k, one(k, v)))),
    DB("db", Kind.SINGLE, "JDBC-URL",
            "JDBC URL of the database, e.g. jdbc:postgresql://127.0.0.1/sipcrypt or jdbc:h2:tcp://host/path;"
                    + " unset means embedded H2 under the data dir.",
            c -> List.of(c.dbUrl() == null ? "embedded H2 under " + c.dataDir() : c.dbUrl()),
            (b, k, v) -> b.dbUrl(jdbcUrl(k, one(k, v)))),
    DB_USER("db.user", Kind.SINGLE, "USER", "Database user.",
            c -> List.of(c.dbUser()), (b, k, v) -> b.dbUser(nonBlank(k, one(k, v), "a user name"))),
    DB_PASSWORD("db.password", Kind.SECRET, "PASSWORD",
            "Database password (never logged); with the embedded database and none given, a random one made at"
                    + " first start and kept in DATADIR/db.secret.",
            c -> List.of(c.dbPassword()), (b, k, v) -> b.dbPassword(one(k, v))),
    DB_POOL_SIZE("db.poolSize", Kind.SINGLE, "N", "Database connections, also the database worker threads.",
            c -> shown(c.dbPoolSize()), (b, k, v) -> b.dbPoolSize(integer(k, one(k, v), 1, 1000))),
    DB_CONNECT_TIMEOUT("db.connectTimeout", Kind.SINGLE, "DURATION",
            "Longest wait for a database connection (250ms to 60s); when it fails for want of the database,"
                    + " requests needing it get 503 at once until it is back.",
            c -> shown(c.dbBreaker().connectTimeout()),
            (b, k, v) -> b.dbBreaker().connectTimeout(duration(k, one(k, v), false))),
    DB_PROBE_INTERVAL("db.probeInterval", Kind.SINGLE, "DURATION",
            "How often the server checks whether a database that went away is back (10ms to 60s).",
            c -> shown(c.dbBreaker().probeInterval()),
            (b, k, v) -> b.dbBreaker().probeInterval(duration(k, one(k, v), false))),
    MODE("mode", Kind.SINGLE, "proxy|redirect", "Forward requests (stateful proxy) or answer with contacts (redirect).",
            c -> List.of(c.mode().configName()), (b, k, v) -> b.mode(parsed(k, one(k, v), Mode::parse))),
    ROUTE("route", Kind.REPEATABLE, "ROUTE",
            "Static route DOMAIN=HOST[:PORT][;transport=udp|tcp|tls][;connection=persistent|per-call];"
                    + " connection defaults to tcp.connection. Its transport needs a listener of that transport to send"
                    + " from, else the server does not start. DOMAIN=set:NAME sends to the destination set NAME. Read"
                    + " again by POST /admin/routes/reload.",
            c -> strings(c.routes()), (b, k, v) -> b.routes(items(k, v, t -> RouteConfig.parseDomainRoute(t, b.tcpConnection)))),
    DEFAULT_ROUTE("defaultRoute", Kind.SINGLE, "TARGET",
            "Route HOST[:PORT][;transport=..][;connection=..], or set:NAME (a destination set), for domains neither"
                    + " served nor routed. Read again by POST /admin/routes/reload.",
            c -> optional(c.defaultRoute()),
            (b, k, v) -> b.defaultRoute(parsed(k, one(k, v), t -> RouteConfig.parseDefaultRoute(t, b.tcpConnection)))),
    DESTINATION("destination", Kind.REPEATABLE, "SET=HOST[:PORT][;..]",
            "A destination of the set SET (a gateway, media server or PBX): SET=HOST[:PORT][;transport=udp|tcp|tls]"
                    + "[;connection=persistent|per-call][;priority=0-65535][;weight=1-1000], e.g."
                    + " gw=10.0.0.2:5060;priority=1;weight=50. A route (DOMAIN=set:SET), the default route (set:SET) or"
                    + " a router (RouteDecision.proxyToSet) sends a request to the set: to one destination, and on 408,"
                    + " 503, a timeout or a failed connect to the next, until one answers otherwise or none is left."
                    + " Read again, with the routes, by POST /admin/routes/reload (a destination that stays keeps its"
                    + " state).",
            c -> strings(c.destinations().destinations()),
            (b, k, v) -> b.destinations().destinations(items(k, v, t -> DestinationConfig.parse(t, b.tcpConnection)))),
    DESTINATIONS_ALGORITHM("destinations.algorithm", Kind.SINGLE, "priority|hash-callid|hash-from",
            "How a set orders its live destinations for a request: priority (lowest value first, weighted random"
                    + " among equals), hash-callid or hash-from (one Call-ID, or one From URI, always to the same"
                    + " destination while it is up; weights are not used). Read again by POST /admin/routes/reload.",
            c -> List.of(c.destinations().algorithm().configName()),
            (b, k, v) -> b.destinations().algorithm(parsed(k, one(k, v), DestinationAlgorithm::parse))),
    DESTINATIONS_PROBE_INTERVAL("destinations.probeInterval", Kind.SINGLE, "DURATION",
            "How often each destination is sent an OPTIONS (100ms to 1h; 0 for none, every destination then stays"
                    + " up); a probe unanswered by the next one, or answered 408 or 503, has failed. Fixed at start.",
            c -> shown(c.destinations().probeInterval()),
            (b, k, v) -> b.destinations().probeInterval(duration(k, one(k, v), true))),
    DESTINATIONS_PROBE_DOWN_AFTER("destinations.probeDownAfter", Kind.SINGLE, "N",
            "Failed probes in a row after which a destination is down: sets skip it until it is up again. Read"
                    + " again by POST /admin/routes/reload.",
            c -> shown(c.destinations().probeDownAfter()),
            (b, k, v) -> b.destinations().probeDownAfter(integer(k, one(k, v), 1, DestinationsConfig.MAX_PROBES_IN_A_ROW))),
    DESTINATIONS_PROBE_UP_AFTER("destinations.probeUpAfter", Kind.SINGLE, "N",
            "Answered probes in a row after which a down destination is up again. Read again by POST"
                    + " /admin/routes/reload.",
            c -> shown(c.destinations().probeUpAfter()),
            (b, k, v) -> b.destinations().probeUpAfter(integer(k, one(k, v), 1, DestinationsConfig.MAX_PROBES_IN_A_ROW))),
    ROUTING_ROUTER("routing.router", Kind.REPEATABLE, "NAME",
            "A CallRouter (the routing SPI, found on the class path or in the WAR's WEB-INF/lib) that sees each new"
                    + " out-of-dialog request the proxy routes, by the name it reports; several run in the order"
                    + " given. A name no router on the class path has fails the start. None: the proxy routes as"
                    + " without the SPI.",
            c -> c.routing().routers(), (b, k, v) -> b.routing().routers(items(k, v, String::trim))),
    ROUTING_TIMEOUT("routing.timeout", Kind.SINGLE, "DURATION",
            "How long the routers may take to decide a request (10ms to 60s); a request still undecided then gets"
                    + " 504, counted as routing.decisions{decision=timeout}.",
            c -> shown(c.routing().timeout()), (b, k, v) -> b.routing().timeout(duration(k, one(k, v), false))),
    ROUTING_OPTION("routing.option", Kind.REPEATABLE, "KEY=VALUE",
            "An option the routers read (RouterContext.options), e.g. lcr.strip=00; keys of a-z 0-9 . _ -,"
                    + " each once; values of keys naming a password, secret or token are masked in the start-up line.",
            c -> c.routing().optionTexts(), (b, k, v) -> b.routing().options(routingOptions(v))),
    DNS_SERVERS("dns.servers", Kind.REPEATABLE, "HOST:PORT",
            "Name servers the proxy asks, in order, to locate the next hop of a Request-URI or Route whose host is a"
                    + " name (RFC 3263: NAPTR, SRV, then A/AAAA), e.g. 10.0.0.53:53. None: those of /etc/resolv.conf."
                    + " IP addresses in URIs are never looked up.",
            c -> strings(c.dns().servers()), (b, k, v) -> b.dns().servers(items(k, v, t -> HostPort.parse(t.trim(), -1)))),
    DNS_TIMEOUT("dns.timeout", Kind.SINGLE, "DURATION",
            "How long one DNS query may take (50ms to 30s) before the next server is asked; a name still unresolved"
                    + " then ends its branch as 503, counted as dns.resolutions{result=timeout}.",
            c -> shown(c.dns().timeout()), (b, k, v) -> b.dns().timeout(duration(k, one(k, v), false))),
    DNS_CACHE_MAX_TTL("dns.cacheMaxTtl", Kind.SINGLE, "DURATION",
            "The longest a resolved next hop is kept (0s to 24h): each answer is kept for its records' smallest TTL,"
                    + " at most this long; 0s keeps none. At most 10,000 names are kept.",
            c -> shown(c.dns().cacheMaxTtl()), (b, k, v) -> b.dns().cacheMaxTtl(duration(k, one(k, v), true))),
    DOMAIN("domain", Kind.REPEATABLE, "DOMAIN", "Extra domain served, besides the listener addresses and localhost.",
            c -> c.domains(), (b, k, v) -> b.domains(items(k, v, ConfigValues::domainName))),
    RECORD_ROUTE("recordRoute", Kind.SINGLE, "BOOL", "Whether the proxy inserts Record-Route (RFC 3261 16.6 step 4).",
            c -> shown(c.recordRoute()), (b, k, v) -> b.recordRoute(bool(k, one(k, v)))),
    PROXY_TIMER_C("proxy.timerC", Kind.SINGLE, "DURATION",
            "An INVITE branch silent this long after its last provisional response is cancelled, or ends as 408"
                    + " if it never answered (RFC 3261 16.6 step 11).",
            c -> shown(c.timerC()), (b, k, v) -> b.timerC(duration(k, one(k, v), false))),
    TCP_CONNECTION("tcp.connection", Kind.SINGLE, "persistent|per-call",
            "Outgoing TCP connection pattern for targets without a route of their own.",
            c -> List.of(c.tcpConnection().configName()),
            (b, k, v) -> b.tcpConnection(parsed(k, one(k, v), ConnectionPattern::parse))),
    TCP_IDLE_TIMEOUT("tcp.idleTimeout", Kind.SINGLE, "DURATION", "A TCP connection idle this long is closed.",
            c -> shown(c.tcpIdleTimeout()), (b, k, v) -> b.tcpIdleTimeout(duration(k, one(k, v), false))),
    TCP_MAX_CONNECTIONS("tcp.maxConnections", Kind.SINGLE, "N", "Cap on open TCP connections, inbound and outbound.",
            c -> shown(c.tcpMaxConnections()), (b, k, v) -> b.tcpMaxConnections(integer(k, one(k, v), 1, 1_000_000))),
    TCP_CONNECT_TIMEOUT("tcp.connectTimeout", Kind.SINGLE, "DURATION", "How long an outgoing TCP connect may take.",
            c -> shown(c.tcpConnectTimeout()), (b, k, v) -> b.tcpConnectTimeout(duration(k, one(k, v), false))),
    TCP_CONNECT_FAILURE_HOLD("tcp.connectFailureHold", Kind.SINGLE, "DURATION",
            "An address that refused a TCP connect, or had no route, is not dialled again for this long (a timed-out"
                    + " connect does not hold); sends to it fail at once, counted as"
                    + " transport.connections.closed{reason=connect_held}; 0 dials every time.",
            c -> shown(c.tcpConnectFailureHold()),
            (b, k, v) -> b.tcpConnectFailureHold(duration(k, one(k, v), true))),
    TCP_MAX_CONNECTIONS_PER_SOURCE("tcp.maxConnectionsPerSource", Kind.SINGLE, "N",
            "Most inbound TCP/TLS connections from one IP address; more are reset on accept, before any TLS work"
                    + " (auth.trustedPeers exempt).",
            c -> shown(c.tcpLimits().maxConnectionsPerSource()),
            (b, k, v) -> b.tcpLimits().maxConnectionsPerSource(integer(k, one(k, v), 1, 1_000_000))),
    TCP_FIRST_MESSAGE_TIMEOUT("tcp.firstMessageTimeout", Kind.SINGLE, "DURATION",
            "An inbound connection without a complete SIP message this long after opening (after TLS handshake) is"
                    + " closed; keep-alives do not count.",
            c -> shown(c.tcpLimits().firstMessageTimeout()),
            (b, k, v) -> b.tcpLimits().firstMessageTimeout(duration(k, one(k, v), false))),
    TCP_MESSAGE_TIMEOUT("tcp.messageTimeout", Kind.SINGLE, "DURATION",
            "A message must be complete this long after its first byte, else its connection is closed (slowloris);"
                    + " independent of tcp.idleTimeout.",
            c -> shown(c.tcpLimits().messageTimeout()),
            (b, k, v) -> b.tcpLimits().messageTimeout(duration(k, one(k, v), false))),
    TCP_MAX_PARTIAL_BYTES("tcp.maxPartialBytes", Kind.SINGLE, "BYTES",
            "Most bytes of incomplete messages over all connections; beyond it the connections with the oldest"
                    + " incomplete messages are closed. At least sip.maxMessageBytes.",
            c -> shown(c.tcpLimits().maxPartialBytes()),
            (b, k, v) -> b.tcpLimits().maxPartialBytes(integer(k, one(k, v), 1024, Integer.MAX_VALUE))),
    SIP_MAX_MESSAGE_BYTES("sip.maxMessageBytes", Kind.SINGLE, "BYTES",
            "Largest SIP message accepted (1024 to 16 MiB); a larger one is dropped (UDP) or closes its connection"
                    + " (TCP, TLS).",
            c -> shown(c.maxMessageBytes()), (b, k, v) -> b.maxMessageBytes(integer(k, one(k, v), 1024, 16 * 1024 * 1024))),
    WS_ALLOWED_ORIGINS("ws.allowedOrigins", Kind.REPEATABLE, "ORIGIN",
            "Origins (https://phone.example.com) whose WebSocket upgrades the ws and wss listeners accept, or * for"
                    + " any; none by default, so a browser is refused (403) until its page's origin is listed. An"
                    + " upgrade without Origin (not a browser) is accepted.",
            c -> c.webSocket().allowedOrigins(),
            (b, k, v) -> b.webSocket().allowedOrigins(items(k, v, Setting::origin))),
    WS_MAX_FRAME_BYTES("ws.maxFrameBytes", Kind.SINGLE, "BYTES",
            "Largest WebSocket message (one frame, or the frames of a fragmented one together); a larger one closes"
                    + " its connection with status 1009. sip.maxMessageBytes bounds it too.",
            c -> shown(c.webSocket().maxFrameBytes()),
            (b, k, v) -> b.webSocket().maxFrameBytes(integer(k, one(k, v), 1024, 16 * 1024 * 1024))),
    WS_PING_INTERVAL("ws.pingInterval", Kind.SINGLE, "DURATION",
            "A WebSocket connection silent this long (at least 1s) gets a ping; one silent for another interval is closed.",
            c -> shown(c.webSocket().pingInterval()),
            (b, k, v) -> b.webSocket().pingInterval(duration(k, one(k, v), false))),
    SIP_WORKERS("sip.workers", Kind.SINGLE, "N",
            "SIP worker lanes, one thread each; the messages of one call stay on one lane. More lanes than cores"
                    + " costs CPU per call: each message then mostly wakes an idle lane.",
            c -> shown(c.sipWorkers()), (b, k, v) -> b.sipWorkers(integer(k, one(k, v), 1, 1024))),
    SIP_QUEUE_CAPACITY("sip.queueCapacity", Kind.SINGLE, "N", "Bound of each lane's queue; messages beyond it are dropped.",
            c -> shown(c.sipQueueCapacity()), (b, k, v) -> b.sipQueueCapacity(integer(k, one(k, v), 1, 10_000_000))),
    SIP_FAST_PATH("sip.fastPath", Kind.SINGLE, "on|off",
            "on: sipcrypt's transport (transport.impl netty) settles messages from their bytes, before JAIN-SIP's"
                    + " parse: the digest challenge of an INVITE without credentials, the ACK for a 2xx, BYE and"
                    + " the 1xx, 2xx and BYE responses relayed statelessly, and over UDP retransmissions and ACKs"
                    + " absorbed by kept transactions. off: every message is parsed and goes through the stack's"
                    + " transactions and the proxy (kept transactions still answer retransmissions and ACKs, after"
                    + " the parse); for stepping around a fault in those byte paths, at a CPU cost per call.",
            c -> List.of(c.fastPath() ? "on" : "off"), (b, k, v) -> b.fastPath(bool(k, one(k, v)))),
    IO_THREADS("io.threads", Kind.SINGLE, "N", "Event-loop threads; 0 means twice the number of cores.",
            c -> shown(c.ioThreads()), (b, k, v) -> b.ioThreads(integer(k, one(k, v), 0, 1024))),
    TRANSPORT_IMPL("transport.impl", Kind.SINGLE, "netty|jain-nio|jain-oio",
            "Transport under JAIN-SIP: sipcrypt's Netty one, or JAIN-SIP's own NIO one or its blocking-socket one"
                    + " (the stack's own default), for comparison.",
            c -> List.of(c.transportImpl().configName()),
            (b, k, v) -> b.transportImpl(parsed(k, one(k, v), TransportImpl::parse))),
    REGISTRAR_MIN_EXPIRES("registrar.minExpires", Kind.SINGLE, "DURATION",
            "Registrations asking for less get 423 Interval Too Brief.",
            c -> shown(c.minExpires()), (b, k, v) -> b.minExpires(expires(k, one(k, v)))),
    REGISTRAR_MAX_EXPIRES("registrar.maxExpires", Kind.SINGLE, "DURATION",
            "Registrations asking for more are shortened to this.",
            c -> shown(c.maxExpires()), (b, k, v) -> b.maxExpires(expires(k, one(k, v)))),
    REGISTRAR_DEFAULT_EXPIRES("registrar.defaultExpires", Kind.SINGLE, "DURATION",
            "Registrations that ask for no expiry get this.",
            c -> shown(c.defaultExpires()), (b, k, v) -> b.defaultExpires(expires(k, one(k, v)))),
    REGISTRAR_MAX_CONTACTS("registrar.maxContacts", Kind.SINGLE, "N",
            "Most contacts one address-of-record may register: a REGISTER adding more gets 403 Too Many Contacts;"
                    + " also the most branches a request forks to and the most contacts in a 302 or a REGISTER's 200"
                    + " (the most preferred ones).",
            c -> shown(c.maxContacts()), (b, k, v) -> b.maxContacts(integer(k, one(k, v), 1, 10_000))),
    REGISTRAR_MAX_BINDINGS("registrar.maxBindings", Kind.SINGLE, "N",
            "Most bindings held in all; a REGISTER adding one beyond it gets 503 Registrar Full with Retry-After"
                    + " (refreshes and removals still pass).",
            c -> shown(c.maxBindings()), (b, k, v) -> b.maxBindings(integer(k, one(k, v), 1, 1_000_000_000))),
    LOCATION_CACHE("location.cache", Kind.SINGLE, "auto|on|off",
            "Keep the bindings read from the database in memory, so a call to a registered user needs no query;"
                    + " auto: with the embedded database only, as servers sharing a database would not see each"
                    + " other's registrations.",
            c -> List.of(c.locationCache().configName()),
            (b, k, v) -> b.locationCache(parsed(k, one(k, v), LocationCacheMode::parse))),
    LOCATION_CACHE_SIZE("location.cacheSize", Kind.SINGLE, "N",
            "Most addresses-of-record whose bindings the location cache keeps (least used dropped first).",
            c -> shown(c.locationCacheSize()), (b, k, v) -> b.locationCacheSize(integer(k, one(k, v), 1, 10_000_000))),
    SHUTDOWN_GRACE("shutdown.grace", Kind.SINGLE, "DURATION",
            "How long shutdown waits for open transactions and established calls; it ends earlier once none is left.",
            c -> shown(c.shutdownGrace()), (b, k, v) -> b.shutdownGrace(duration(k, one(k, v), true))),
    STATS_INTERVAL("stats.interval", Kind.SINGLE, "DURATION", "How often counters are logged; 0 turns it off.",
            c -> shown(c.statsInterval()), (b, k, v) -> b.statsInterval(duration(k, one(k, v), true))),
    OVERLOAD_QUEUE_THRESHOLD("overload.queueThreshold", Kind.SINGLE, "N",
            "New requests get 503 while their lane holds this many messages; at most sip.queueCapacity, whose"
                    + " rest is kept for responses and in-dialog requests.",
            c -> shown(c.overload().queueThreshold()),
            (b, k, v) -> b.overload().queueThreshold(integer(k, one(k, v), 1, 10_000_000))),
    OVERLOAD_MAX_QUEUE_DELAY("overload.maxQueueDelay", Kind.SINGLE, "DURATION",
            "New requests get 503 while the oldest message in their lane has waited longer; 0 turns it off.",
            c -> shown(c.overload().maxQueueDelay()), (b, k, v) -> b.overload().maxQueueDelay(duration(k, one(k, v), true))),
    OVERLOAD_QUEUE_TARGET("overload.queueTarget", Kind.SINGLE, "DURATION",
            "New requests get 503 while the oldest message in their lane has waited longer, once it has done so for"
                    + " overload.queueInterval (a standing queue; a burst that drains sooner refuses nothing); 0 turns it off.",
            c -> shown(c.overload().queueTarget()), (b, k, v) -> b.overload().queueTarget(duration(k, one(k, v), true))),
    OVERLOAD_QUEUE_INTERVAL("overload.queueInterval", Kind.SINGLE, "DURATION",
            "How long the oldest message's wait must stay above overload.queueTarget before new requests get 503;"
                    + " the lane is served again once that wait falls under half the target.",
            c -> shown(c.overload().queueInterval()), (b, k, v) -> b.overload().queueInterval(duration(k, one(k, v), false))),
    OVERLOAD_MAX_TRANSACTIONS("overload.maxTransactions", Kind.SINGLE, "N",
            "New requests get 503 while this many requests await their final response; 0 turns it off.",
            c -> shown(c.overload().maxTransactions()),
            (b, k, v) -> b.overload().maxTransactions(integer(k, one(k, v), 0, 100_000_000))),
    OVERLOAD_MAX_HEAP_AFTER_GC("overload.maxHeapAfterGc", Kind.SINGLE, "PERCENT",
            "New requests get 503 while the heap used after the last GC is above this percentage of the maximum"
                    + " (sampled each second); 0 turns it off.",
            c -> shown(c.overload().maxHeapAfterGc()),
            (b, k, v) -> b.overload().maxHeapAfterGc(integer(k, one(k, v), 0, 100))),
    OVERLOAD_RETRY_AFTER("overload.retryAfter", Kind.SINGLE, "DURATION",
            "Retry-After of a 503 for overload or shutdown, plus a random part of up to as much again.",
            c -> shown(c.overload().retryAfter()), (b, k, v) -> b.overload().retryAfter(expires(k, one(k, v)))),
    OVERLOAD_MAX_KEPT_BYTES("overload.maxKeptBytes", Kind.SINGLE, "BYTES",
            "Most bytes of answers kept for retransmissions over UDP (Timer J, and Timer H for a rejected INVITE"
                    + " such as a 407); beyond it the oldest go (sip.kept.evicted{reason=bytes}), and all go while the"
                    + " heap after GC is above overload.maxHeapAfterGc.",
            c -> shown(c.overload().maxKeptBytes()),
            (b, k, v) -> b.overload().maxKeptBytes(integer(k, one(k, v), 65_536, Integer.MAX_VALUE))),
    OVERLOAD_MAX_QUEUED_BYTES("overload.maxQueuedBytes", Kind.SINGLE, "BYTES",
            "Most bytes of messages waiting in all SIP worker lanes together; new requests get 503 from three"
                    + " quarters of it, and beyond it a request gets 503 and anything else is dropped.",
            c -> shown(c.overload().maxQueuedBytes()),
            (b, k, v) -> b.overload().maxQueuedBytes(integer(k, one(k, v), 65_536, Integer.MAX_VALUE))),
    SHUTDOWN_MAX_DIALOGS("shutdown.maxDialogs", Kind.SINGLE, "N",
            "Most established calls remembered (about 250 bytes each, 1 to 2 KB more with admin.token set, which"
                    + " keeps what listing and ending a call needs; beyond it the oldest is forgotten) so that"
                    + " shutdown waits for their BYE and a signed route proves a live call; 0 keeps none: shutdown"
                    + " waits for transactions only, in-dialog requests are challenged.",
            c -> shown(c.overload().maxDialogs()),
            (b, k, v) -> b.overload().maxDialogs(integer(k, one(k, v), 0, 100_000_000))),
    SHUTDOWN_DIALOG_LIFETIME("shutdown.dialogLifetime", Kind.SINGLE, "DURATION",
            "A remembered call without in-dialog traffic for this long is forgotten (its BYE may have gone"
                    + " elsewhere); its signed route then proves nothing.",
            c -> shown(c.overload().dialogLifetime()),
            (b, k, v) -> b.overload().dialogLifetime(duration(k, one(k, v), false))),
    LIMITS_REQUESTS_PER_SECOND("limits.requestsPerSecond", Kind.SINGLE, "N",
            "New requests outside a dialog one source address (an IPv6 /64) may send per second, sustained; beyond"
                    + " it 503 with Retry-After, and past twice limits.burst of refusals nothing (dropped);"
                    + " 0 turns the rate limit off. ACK, CANCEL, responses and requests in calls the proxy holds are"
                    + " never limited.",
            c -> shown(c.limits().requestsPerSecond()),
            (b, k, v) -> b.limits().requestsPerSecond(integer(k, one(k, v), 0, 10_000_000))),
    LIMITS_BURST("limits.burst", Kind.SINGLE, "N",
            "New requests one source may send at once above limits.requestsPerSecond (its bucket's size).",
            c -> shown(c.limits().burst()), (b, k, v) -> b.limits().burst(integer(k, one(k, v), 1, 10_000_000))),
    LIMITS_AUTH_FAILURES("limits.authFailures", Kind.SINGLE, "N",
            "Failed digest authentications (wrong password, unknown user) from one source within"
                    + " limits.authFailureWindow that ban it for limits.banTime: its new requests then get 403 without"
                    + " a database lookup; 0 turns bans off.",
            c -> shown(c.limits().authFailures()),
            (b, k, v) -> b.limits().authFailures(integer(k, one(k, v), 0, 1_000_000))),
    LIMITS_AUTH_FAILURE_WINDOW("limits.authFailureWindow", Kind.SINGLE, "DURATION",
            "How long authentication failures are counted, from the first of a series.",
            c -> shown(c.limits().authFailureWindow()),
            (b, k, v) -> b.limits().authFailureWindow(duration(k, one(k, v), false))),
    LIMITS_BAN_TIME("limits.banTime", Kind.SINGLE, "DURATION", "How long a ban lasts.",
            c -> shown(c.limits().banTime()), (b, k, v) -> b.limits().banTime(duration(k, one(k, v), false))),
    LIMITS_ALLOW("limits.allow", Kind.REPEATABLE, "ADDRESS[/PREFIX]|none",
            "Sources (IP or CIDR) never rate-limited nor banned, besides auth.trustedPeers; none for no exception."
                    + " Loopback by default: only this host can send from it.",
            c -> strings(c.limits().allow()), (b, k, v) -> b.limits().allow(addressBlocksOrNone(k, v))),
    LIMITS_MAX_SOURCES("limits.maxSources", Kind.SINGLE, "N",
            "Most sources whose rate and failures are kept (about 200 bytes each); while it is full, new sources"
                    + " share one bucket of limits.requestsPerSecond and are not banned.",
            c -> shown(c.limits().maxSources()),
            (b, k, v) -> b.limits().maxSources(integer(k, one(k, v), 1, 10_000_000))),
    CDR_SINK("cdr.sink", Kind.SINGLE, "none|jsonl|database",
            "Call detail records, one per INVITE call through the proxy: none (off), jsonl (one JSON object a line"
                    + " in cdr.file) or database (the cdrs table of the server's database, through its pool).",
            c -> List.of(c.cdr().sink().configName()),
            (b, k, v) -> b.cdr().sink(parsed(k, one(k, v), CdrConfig.Sink::parse))),
    CDR_FILE("cdr.file", Kind.SINGLE, "FILE",
            "The JSON-lines file of cdr.sink=jsonl, appended to (created if missing); required with that sink.",
            c -> optional(c.cdr().file()), (b, k, v) -> b.cdr().file(path(k, one(k, v)))),
    CDR_QUEUE_SIZE("cdr.queueSize", Kind.SINGLE, "N",
            "Most finished call records waiting for the writer thread; while it is full, records are dropped and"
                    + " counted as cdr.records{result=dropped}. The SIP path never waits for a write.",
            c -> shown(c.cdr().queueSize()), (b, k, v) -> b.cdr().queueSize(integer(k, one(k, v), 1, 10_000_000))),
    HTTP("http", Kind.SINGLE, "HOST:PORT",
            "HTTP listener for /metrics (Prometheus) and /health; port 0 picks a free one, off means none. Bind it"
                    + " to loopback or a management network only: it answers anyone who reaches it.",
            c -> List.of(c.http().enabled() ? c.http().listen().toString() : "off"),
            (b, k, v) -> b.http().listen(ConfigValues.httpListen(k, one(k, v)))),
    HTTP_MAX_REQUEST_BYTES("http.maxRequestBytes", Kind.SINGLE, "BYTES",
            "Most bytes of an HTTP request's line and headers (431 beyond), and of its body (413 beyond).",
            c -> shown(c.http().maxRequestBytes()),
            (b, k, v) -> b.http().maxRequestBytes(integer(k, one(k, v), 256, 1024 * 1024))),
    HTTP_MAX_CONNECTIONS("http.maxConnections", Kind.SINGLE, "N",
            "Most HTTP connections open at once; more are closed as they arrive.",
            c -> shown(c.http().maxConnections()), (b, k, v) -> b.http().maxConnections(integer(k, one(k, v), 1, 10_000))),
    HTTP_IDLE_TIMEOUT("http.idleTimeout", Kind.SINGLE, "DURATION",
            "An HTTP connection that has not sent a whole request within this is closed.",
            c -> shown(c.http().idleTimeout()), (b, k, v) -> b.http().idleTimeout(duration(k, one(k, v), false))),
    HTTP_HEALTH_TIMEOUT("http.healthTimeout", Kind.SINGLE, "DURATION",
            "How long /health's database check may take; a slower or failing database makes the server not"
                    + " ready. Used by the WAR's /health too.",
            c -> shown(c.http().healthTimeout()), (b, k, v) -> b.http().healthTimeout(duration(k, one(k, v), false))),
    ADMIN_TOKEN("admin.token", Kind.SECRET, "TOKEN",
            "Bearer token of the management API under /admin/ on the http listener and in the WAR (32+ characters,"
                    + " e.g. openssl rand -hex 16; never logged). Unset: /admin/ answers 404.",
            c -> List.of(c.http().adminToken()), (b, k, v) -> b.http().adminToken(one(k, v))),
    AUTH_PRESET("auth.preset", Kind.SINGLE, "secure|lab-legacy-digest",
            "Digest authentication as a whole: secure (auth on with the defaults) or lab-legacy-digest (lab only,"
                    + " for old SIPp clients: auth on, MD5 only, auth.legacyNoQop and auth.lab.skipUriCheck on, logged"
                    + " as warnings). A preset sets auth, auth.methods, auth.algorithms, auth.legacyNoQop,"
                    + " auth.onFailure, auth.matchIdentity and auth.lab.skipUriCheck; those keys given too change it.",
            c -> optional(c.auth().presetName().orElse(null)),
            (b, k, v) -> b.auth().preset(parsed(k, one(k, v), AuthConfig.PRESETS::parse))),
    AUTH("auth", Kind.FLAG, "BOOL", "Digest authentication (RFC 3261 22): challenge the methods of auth.methods.",
            c -> shown(c.auth().enabled()), (b, k, v) -> b.auth().enabled(bool(k, one(k, v)))),
    AUTH_METHODS("auth.methods", Kind.REPEATABLE, "METHOD",
            "Methods challenged when auth is on (* = all): REGISTER gets 401, others 407; ACK and CANCEL never are."
                    + " Narrowing it lets the rest reach local users unauthenticated (logged as a warning); requests"
                    + " leaving our domains are challenged anyway.",
            c -> c.auth().methods(), (b, k, v) -> b.auth().methods(items(k, v, ConfigValues::challengedMethod))),
    REALM("realm", Kind.SINGLE, "NAME",
            "Digest realm; unset means the advertised host of the first listener, else its host (the users command"
                    + " has the same default).",
            c -> List.of(c.effectiveRealm()), (b, k, v) -> b.auth().realm(nonBlank(k, one(k, v), "a realm"))),
    AUTH_ALGORITHMS("auth.algorithms", Kind.REPEATABLE, "sha-256|md5",
            "Digest algorithms offered, one challenge each, most preferred first (RFC 8760).",
            c -> c.auth().algorithms().stream().map(a -> a.configName()).toList(),
            (b, k, v) -> b.auth().algorithms(items(k, v, ConfigValues::digestAlgorithm))),
    AUTH_LEGACY_NO_QOP("auth.legacyNoQop", Kind.SINGLE, "BOOL",
            "Lab only: accept credentials without qop (RFC 2069 form); they have no nonce count, so captured"
                    + " ones can be replayed (logged as a warning).",
            c -> shown(c.auth().legacyNoQop()), (b, k, v) -> b.auth().legacyNoQop(bool(k, one(k, v)))),
    AUTH_NONCE_LIFETIME("auth.nonceLifetime", Kind.SINGLE, "DURATION",
            "Older nonces get a new challenge with stale=true.",
            c -> shown(c.auth().nonceLifetime()), (b, k, v) -> b.auth().nonceLifetime(duration(k, one(k, v), false))),
    AUTH_NONCE_SECRET("auth.nonceSecret", Kind.SECRET, "SECRET",
            "HMAC key of nonces (16+ characters; never logged); servers sharing it accept each other's nonces."
                    + " Unset means random per start.",
            c -> List.of(c.auth().nonceSecret()), (b, k, v) -> b.auth().nonceSecret(one(k, v))),
    AUTH_NONCE_BINDS_ADDRESS("auth.nonceBindsAddress", Kind.SINGLE, "BOOL",
            "A nonce is valid only from the IP address it was sent to.",
            c -> shown(c.auth().nonceBindsAddress()), (b, k, v) -> b.auth().nonceBindsAddress(bool(k, one(k, v)))),
    AUTH_ON_FAILURE("auth.onFailure", Kind.SINGLE, "forbid|challenge",
            "Answer to a wrong password or unknown user (the same for both): 403, or a new challenge.",
            c -> List.of(c.auth().onFailure().configName()),
            (b, k, v) -> b.auth().onFailure(parsed(k, one(k, v), AuthConfig.FailureAnswer::parse))),
    AUTH_MATCH_IDENTITY("auth.matchIdentity", Kind.SINGLE, "BOOL",
            "The digest user must be the To user of a REGISTER and the From user of other requests, in the realm or a local domain.",
            c -> shown(c.auth().matchIdentity()), (b, k, v) -> b.auth().matchIdentity(bool(k, one(k, v)))),
    AUTH_IN_DIALOG("auth.inDialog", Kind.SINGLE, "BOOL",
            "Challenge requests inside a dialog too, even those carrying this proxy's signed Record-Route.",
            c -> shown(c.auth().inDialog()), (b, k, v) -> b.auth().inDialog(bool(k, one(k, v)))),
    AUTH_TRUSTED_PEERS("auth.trustedPeers", Kind.REPEATABLE, "ADDRESS[/PREFIX]",
            "Addresses (IP or CIDR: 192.0.2.10, 10.0.0.0/8, 2001:db8::/32) whose requests are never challenged,"
                    + " e.g. the proxies next in a chain.",
            c -> strings(c.auth().trustedPeers()), (b, k, v) -> b.auth().trustedPeers(items(k, v, AddressBlock::parse))),
    AUTH_PATH_PEERS("auth.pathPeers", Kind.REPEATABLE, "ADDRESS[/PREFIX]",
            "Edge proxies (IP or CIDR) whose REGISTERs' Path headers (RFC 3327) the registrar stores, so that calls"
                    + " to those phones go through the edge; their REGISTERs are still challenged. auth.trustedPeers"
                    + " and TLS clients checked by tls.clientAuth need are trusted for Path too; from anyone else it is ignored.",
            c -> strings(c.auth().pathPeers()), (b, k, v) -> b.auth().pathPeers(items(k, v, AddressBlock::parse))),
    AUTH_LAB_SKIP_URI_CHECK("auth.lab.skipUriCheck", Kind.SINGLE, "BOOL",
            "Lab only: accept a digest uri other than the Request-URI, so credentials captured for one target"
                    + " work for another (logged as a warning).",
            c -> shown(c.auth().labSkipUriCheck()), (b, k, v) -> b.auth().labSkipUriCheck(bool(k, one(k, v)))),
    AUTH_BATCH_SIZE("auth.batchSize", Kind.SINGLE, "N", "Most user names fetched by one credential query.",
            c -> shown(c.auth().batchSize()), (b, k, v) -> b.auth().batchSize(integer(k, one(k, v), 1, 1000))),
    AUTH_BATCH_WAIT("auth.batchWait", Kind.SINGLE, "DURATION",
            "Longest a credential lookup waits for its batch to fill; 0 sends at once.",
            c -> shown(c.auth().batchWait()), (b, k, v) -> b.auth().batchWait(duration(k, one(k, v), true))),
    AUTH_QUEUE_CAPACITY("auth.queueCapacity", Kind.SINGLE, "N",
            "Most credential lookups waiting; beyond it requests get 503.",
            c -> shown(c.auth().queueCapacity()), (b, k, v) -> b.auth().queueCapacity(integer(k, one(k, v), 1, 10_000_000))),
    AUTH_CACHE_SIZE("auth.cacheSize", Kind.SINGLE, "N", "Subscribers cached in memory; 0 turns the cache off.",
            c -> shown(c.auth().cacheSize()), (b, k, v) -> b.auth().cacheSize(integer(k, one(k, v), 0, 10_000_000))),
    AUTH_CACHE_TTL("auth.cacheTtl", Kind.SINGLE, "DURATION", "How long a cached subscriber is trusted.",
            c -> shown(c.auth().cacheTtl()), (b, k, v) -> b.auth().cacheTtl(duration(k, one(k, v), false))),
    AUTH_REPLAY_NONCES("auth.replayNonces", Kind.SINGLE, "N",
            "Most nonces whose counts are remembered to reject replays.",
            c -> shown(c.auth().replayNonces()), (b, k, v) -> b.auth().replayNonces(integer(k, one(k, v), 1, 100_000_000))),
    TLS_PRESET("tls.preset", Kind.SINGLE, "modern|compatible|lab-insecure",
            "Suites and versions as a whole: modern (TLS 1.3 and ECDHE-ECDSA/ECDHE-RSA AES-GCM suites only: forward secrecy),"
                    + " compatible (every AES suite, down to RFC 3261's TLS_RSA_WITH_AES_128_CBC_SHA; the default) or"
                    + " lab-insecure (lab only: 3DES and RC4 too, logged as a warning at start and on the listener)."
                    + " A preset sets tls.ciphers, tls.versions and tls.allowInsecure; those keys given too change it.",
            c -> optional(c.tls().presetName().orElse(null)),
            (b, k, v) -> b.tls().preset(parsed(k, one(k, v), TlsConfig.PRESETS::parse))),
    TLS_CERT("tls.cert", Kind.SINGLE, "FILE",
            "PEM certificate (chain), or a PKCS#12 file (.p12, .pfx) with its key, of the tls listener, also"
                    + " presented on outgoing TLS when a peer asks.",
            c -> optional(c.tls().cert()), (b, k, v) -> b.tls().cert(path(k, one(k, v)))),
    TLS_KEY("tls.key", Kind.SINGLE, "FILE", "PEM private key of a PEM tls.cert (none with a .p12 file).",
            c -> optional(c.tls().key()), (b, k, v) -> b.tls().key(path(k, one(k, v)))),
    TLS_TRUST("tls.trust", Kind.SINGLE, "FILE",
            "PEM CA certificates peers must chain to (client certificates, and servers dialled); unset means the"
                    + " JDK's trust store for outgoing TLS.",
            c -> optional(c.tls().trust()), (b, k, v) -> b.tls().trust(path(k, one(k, v)))),
    TLS_CIPHERS("tls.ciphers", Kind.REPEATABLE, "NAME",
            "Cipher-suite providers (aes, chacha20, 3des, camellia, seed, rc4) or suite names, most preferred first (the"
                    + " server's order wins).",
            c -> c.tls().ciphers(), (b, k, v) -> b.tls().ciphers(List.copyOf(v))),
    TLS_CLIENT_AUTH("tls.clientAuth", Kind.SINGLE, "none|want|need",
            "Client certificates on the tls listener: not asked for, asked for, or required; want and need"
                    + " require tls.trust.",
            c -> List.of(c.tls().clientAuth().configName()),
            (b, k, v) -> b.tls().clientAuth(parsed(k, one(k, v), TlsConfig.ClientAuth::parse))),
    TLS_ALLOW_INSECURE("tls.allowInsecure", Kind.FLAG, "BOOL",
            "Lab only: allow the insecure RC4 and 3DES suites in tls.ciphers (logged as a warning).",
            c -> shown(c.tls().allowInsecure()), (b, k, v) -> b.tls().allowInsecure(bool(k, one(k, v)))),
    TLS_HANDSHAKE_TIMEOUT("tls.handshakeTimeout", Kind.SINGLE, "DURATION",
            "A TLS connection whose handshake takes longer is closed.",
            c -> shown(c.tls().handshakeTimeout()), (b, k, v) -> b.tls().handshakeTimeout(duration(k, one(k, v), false))),
    TLS_ENGINE("tls.engine", Kind.SINGLE, "auto|bc|jsse|openssl",
            "TLS engine of the listener and outgoing TLS: bc (Bouncy Castle; Camellia, SEED), jsse (SunJSSE; RC4),"
                    + " openssl (BoringSSL, native, linux-x86_64; AES, ChaCha20), or auto (the first of openssl, jsse, bc"
                    + " that runs every suite in tls.ciphers; openssl only where its library loads).",
            c -> List.of(c.tls().engineName()), (b, k, v) -> b.tls().engine(tlsEngine(k, one(k, v)))),
    TLS_CRYPTO("tls.crypto", Kind.REPEATABLE, "ENGINE|PROVIDER:ENGINE",
            "On the bc engine, where bulk ciphers run: jca (the JVM's providers; AES-NI) or bc (Bouncy Castle's"
                    + " lightweight engines), for every provider that has it or for one (e.g. aes:bc); a provider with"
                    + " one engine uses it.",
            c -> c.tls().crypto(), (b, k, v) -> b.tls().crypto(List.copyOf(v))),
    TLS_SESSION_REUSE("tls.sessionReuse", Kind.SINGLE, "on|off",
            "Whether TLS sessions are resumed: the listener's session cache and session tickets (TLS 1.2 on every"
                    + " engine, TLS 1.3 on jsse and openssl) and the sessions offered to peers dialled.",
            c -> List.of(c.tls().sessionReuse() ? "on" : "off"), (b, k, v) -> b.tls().sessionReuse(bool(k, one(k, v)))),
    TLS_SESSION_CACHE_SIZE("tls.sessionCacheSize", Kind.SINGLE, "N",
            "Most TLS sessions kept for resumption, on each side.", c -> shown(c.tls().sessionCacheSize()),
            (b, k, v) -> b.tls().sessionCacheSize(integer(k, one(k, v), 1, 10_000_000))),
    TLS_SESSION_LIFETIME("tls.sessionLifetime", Kind.SINGLE, "DURATION",
            "How long a TLS session or ticket may be resumed after its full handshake.",
            c -> shown(c.tls().sessionLifetime()), (b, k, v) -> b.tls().sessionLifetime(duration(k, one(k, v), false))),
    TLS_HANDSHAKE_THREADS("tls.handshakeThreads", Kind.SINGLE, "N",
            "bc engine: threads sipcrypt-tls-N that process TLS handshake records (the RSA work); 0 keeps them on"
                    + " the event loops.",
            c -> shown(c.tls().handshakeThreads()), (b, k, v) -> b.tls().handshakeThreads(integer(k, one(k, v), 0, 256))),
    TLS_HANDSHAKE_QUEUE("tls.handshakeQueue", Kind.SINGLE, "N",
            "bc engine with tls.handshakeThreads: most handshake records waiting for a thread (one per connection"
                    + " in its handshake); a connection whose record finds the queue full fails its handshake and is"
                    + " closed, counted as tls.handshakes.failed{reason=overload}.",
            c -> shown(c.tls().handshakeQueue()), (b, k, v) -> b.tls().handshakeQueue(integer(k, one(k, v), 1, 1_000_000))),
    TLS_VERIFY_PEERS("tls.verifyPeers", Kind.SINGLE, "on|off",
            "Lab only when off: accept any certificate from peers (servers dialled, clients), logged as a warning.",
            c -> List.of(c.tls().verifyPeers() ? "on" : "off"), (b, k, v) -> b.tls().verifyPeers(bool(k, one(k, v)))),
    TLS_VERSIONS("tls.versions", Kind.REPEATABLE, "1.2|1.3",
            "TLS versions offered, each when tls.ciphers has a suite of it (TLS 1.3 suites: TLS_AES_*, TLS_CHACHA20_*).",
            c -> c.tls().versions(), (b, k, v) -> b.tls().versions(List.copyOf(v))),
    TLS_GROUPS("tls.groups", Kind.REPEATABLE, "GROUP",
            "Key-exchange groups offered by the listener and on outgoing TLS, most preferred first (the server's"
                    + " order wins): x25519, secp256r1, secp384r1, ffdhe2048, and the ML-KEM hybrids x25519mlkem768,"
                    + " secp256r1mlkem768, secp384r1mlkem1024 (bc engine only; refused at start on jsse and openssl);"
                    + " a bc client sends its TLS 1.3 key share for the first. None given: each engine's defaults."
                    + " On jsse under Java 17 to 19 (no SSLParameters.setNamedGroups) the list is set JVM-wide as"
                    + " jdk.tls.namedGroups before SunJSSE is first used; ffdhe2048 is not given to openssl.",
            c -> c.tls().groups(), (b, k, v) -> b.tls().groups(List.copyOf(v))),
    TLS_KEY_PASSWORD("tls.keyPassword", Kind.SECRET, "PASSWORD", "Password of a PKCS#12 tls.cert (never logged).",
            c -> List.of(c.tls().keyPassword()), (b, k, v) -> b.tls().keyPassword(one(k, v))),
    TLS_DOMAIN("tls.domain", Kind.REPEATABLE, "NAME;cert=FILE;key=FILE[;ciphers=A+B][;clientAuth=none|want|need]",
            "A further domain of the tls listener with its own PEM certificate and key, chosen by the server_name"
                    + " of the client's ClientHello (SNI); NAME is a host name or *.example.com (one label)."
                    + " tls.cert/tls.key stay the default; e.g. sip.example.org;cert=org.pem;key=org.key."
                    + " Optional: ciphers (providers or suites joined with +) narrows tls.ciphers for that name,"
                    + " clientAuth replaces tls.clientAuth for it; left out, the listener's.",
            c -> strings(c.tls().domains()), (b, k, v) -> b.tls().domains(items(k, v, TlsDomainConfig::parse))),
    TLS_UNKNOWN_SERVER_NAME("tls.unknownServerName", Kind.SINGLE, "default|refuse",
            "What a ClientHello whose server_name matches no tls.domain gets: the tls.cert certificate (default)"
                    + " or a fatal unrecognized_name alert (refuse), counted as"
                    + " tls.handshakes.failed{reason=unrecognized_name}. No server_name always gets tls.cert.",
            c -> List.of(c.tls().unknownServerName().configName()),
            (b, k, v) -> b.tls().unknownServerName(parsed(k, one(k, v), TlsConfig.UnknownServerName::parse))),
    TLS_WATCH_INTERVAL("tls.watchInterval", Kind.SINGLE, "DURATION",
            "How often the TLS files (tls.cert, tls.key, tls.domain, tls.trust, tls.crl, and each tls.peer's cert,"
                    + " key and trust) are checked for"
                    + " a new modification time, size or file (replaced by a rename); a change that holds for one more"
                    + " interval is reloaded as"
                    + " POST /admin/tls/reload and SIGHUP do. 0s: never (reload on demand only).",
            c -> shown(c.tls().watchInterval()), (b, k, v) -> b.tls().watchInterval(duration(k, one(k, v), true))),
    TLS_CRL("tls.crl", Kind.REPEATABLE, "FILE",
            "Certificate revocation list (PEM or DER; a PEM file may hold several) that peers' certificates are"
                    + " checked against with tls.revocation crl; read again, all or none, whenever the certificates"
                    + " and trust files are (POST /admin/tls/reload, SIGHUP, tls.watchInterval).",
            c -> strings(c.tls().crl()), (b, k, v) -> b.tls().crl(paths(k, v))),
    TLS_REVOCATION("tls.revocation", Kind.SINGLE, "off|crl|ocsp|both",
            "Whether peers' certificates (client certificates, servers dialled) are checked for revocation, the"
                    + " end-entity certificate only: off; crl, against the tls.crl lists; ocsp, by asking the OCSP"
                    + " responder (RFC 6960) its authorityInfoAccess names or tls.ocspResponder, answers cached;"
                    + " both, OCSP first and the tls.crl lists when OCSP has no answer. The handshake never waits"
                    + " for a responder: a certificate not in the cache yet has its status fetched meanwhile and is"
                    + " treated as unknown (tls.revocationFailure). Off by default: a CA that publishes no"
                    + " revocation information would leave every status unknown.",
            c -> List.of(c.tls().revocation().configName()),
            (b, k, v) -> b.tls().revocation(parsed(k, one(k, v), TlsConfig.Revocation::parse))),
    TLS_REVOCATION_FAILURE("tls.revocationFailure", Kind.SINGLE, "soft|hard",
            "A peer certificate whose revocation status cannot be learned (no tls.crl list of its issuer, or one past"
                    + " its nextUpdate; no OCSP answer yet, a responder down, slow or answering unknown or with a"
                    + " response that fails its checks): accepted (soft) or refused (hard); counted as"
                    + " tls.revocation.checks{result=unknown} either way. Under hard a peer whose status was being"
                    + " fetched is accepted when it tries again once the answer is in.",
            c -> List.of(c.tls().revocationFailure().configName()),
            (b, k, v) -> b.tls().revocationFailure(parsed(k, one(k, v), TlsConfig.RevocationFailure::parse))),
    TLS_OCSP_RESPONDER("tls.ocspResponder", Kind.SINGLE, "URL",
            "The OCSP responder (http:// or https://) asked about every certificate, peers' and, with"
                    + " tls.ocspStapling, the server's own, instead of the one each certificate's authorityInfoAccess"
                    + " names. Unset: each certificate's own; one that names none has an unknown status.",
            c -> optional(c.tls().ocspResponder()), (b, k, v) -> b.tls().ocspResponder(ocspUrl(k, one(k, v)))),
    TLS_OCSP_TIMEOUT("tls.ocspTimeout", Kind.SINGLE, "DURATION",
            "Longest wait for an OCSP responder's answer, connection included; a fetch that takes longer is"
                    + " counted as tls.ocsp.fetches{result=timeout} and leaves the status unknown.",
            c -> shown(c.tls().ocspTimeout()), (b, k, v) -> b.tls().ocspTimeout(duration(k, one(k, v), false))),
    TLS_OCSP_CACHE_TIME("tls.ocspCacheTime", Kind.SINGLE, "DURATION",
            "Longest an OCSP answer (good, revoked, unknown) is kept and used; an answer's own nextUpdate ends it"
                    + " sooner. A fetch that failed is kept 10 s (at most this), so a responder that is down is"
                    + " not asked at handshake rate. At most 10,000 certificates are kept, the least used leave first.",
            c -> shown(c.tls().ocspCacheTime()), (b, k, v) -> b.tls().ocspCacheTime(duration(k, one(k, v), false))),
    TLS_OCSP_STAPLING("tls.ocspStapling", Kind.SINGLE, "on|off",
            "Whether the tls listener staples an OCSP response for its own certificate to handshakes whose client"
                    + " asks (status_request, RFC 6066 §8): on the openssl engine, and on bc for TLS 1.2 handshakes"
                    + " (refused at start on jsse and auto), not with tls.domain. The response is fetched from the responder the certificate names (or"
                    + " tls.ocspResponder) at start and again before its nextUpdate, off the event loops; the"
                    + " certificate's issuer must follow it in tls.cert. Off by default.",
            c -> List.of(c.tls().ocspStapling() ? "on" : "off"), (b, k, v) -> b.tls().ocspStapling(bool(k, one(k, v)))),
    TLS_PEER("tls.peer", Kind.REPEATABLE, "HOST:PORT;NAME=VALUE...",
            "TLS for connections the proxy opens to one peer, overriding tls.*: engine, ciphers, crypto, versions"
                    + " (lists joined with +), cert, key, trust, reuse, verify;"
                    + " e.g. 10.0.0.2:5061;engine=bc;ciphers=seed.",
            c -> strings(c.tls().peers()), (b, k, v) -> b.tls().peers(items(k, v, TlsPeerConfig::parse)));

    private final String key;
    private final Kind kind;
    private final String paramLabel;
    private final String description;
    private final Function<ServerConfig, List<String>> render;
    private final Applier applier;

    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");
    private static final String MASK = "<masked>";

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
        return "--" + key.replace('.', '-').replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
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
        List<String> values = render.apply(Defaults.CONFIG);
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

    /** Parses {@code values} given for this setting into {@code builder}. */
    void apply(ServerConfig.Builder builder, List<String> values) throws ConfigException {
        applier.apply(builder, key, values);
    }

    private enum Kind { SINGLE, FLAG, REPEATABLE, SECRET }

    /** The defaults, built (and checked) once, when help first asks. */
    private static final class Defaults {
        static final ServerConfig CONFIG = ServerConfig.defaults();
    }

    @FunctionalInterface
    private interface Applier {
        void apply(ServerConfig.Builder builder, String key, List<String> values) throws ConfigException;
    }

    /** Address blocks, or none at all when the one value is {@code none}. */
    /** An entry of {@code ws.allowedOrigins}: {@code *}, or an origin as browsers send it, kept in lower case. */
    private static String origin(String text) {
        if (text.trim().equals(WebSocketLimits.ANY_ORIGIN)) {
            return WebSocketLimits.ANY_ORIGIN;
        }
        String o = WebSocketLimits.origin(text);
        if (o == null) {
            throw new IllegalArgumentException("\"" + text + "\" is not an origin (expected SCHEME://HOST[:PORT],"
                    + " no path, e.g. https://phone.example.com, or *)");
        }
        return o;
    }

    private static java.util.Map<String, String> routingOptions(List<String> values) throws ConfigException {
        try {
            return RoutingConfig.parseOptions(values);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    private static List<AddressBlock> addressBlocksOrNone(String key, List<String> values) throws ConfigException {
        if (values.size() == 1 && values.get(0).trim().equalsIgnoreCase("none")) {
            return List.of();
        }
        return items(key, values, AddressBlock::parse);
    }

    /** A value as help and the start-up line show it: durations in their shortest exact form. */
    private static List<String> shown(Object value) {
        return List.of(value instanceof Duration d ? format(d) : String.valueOf(value));
    }

    private static List<String> optional(Object valueOrNull) {
        return valueOrNull == null ? List.of() : List.of(valueOrNull.toString());
    }

    private static List<java.nio.file.Path> paths(String key, List<String> texts) throws ConfigException {
        List<java.nio.file.Path> out = new java.util.ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            out.add(path(key + "[" + i + "]", texts.get(i)));
        }
        return out;
    }

    /** An OCSP responder's address: an absolute http or https URL. */
    private static java.net.URI ocspUrl(String key, String text) throws ConfigException {
        return parsed(key, text, t -> {
            java.net.URI u = java.net.URI.create(t.trim());
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(java.util.Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
                throw new IllegalArgumentException("\"" + t + "\" is not an OCSP responder URL (expected"
                        + " http://HOST[:PORT]/PATH or https://...)");
            }
            return u;
        });
    }

    private static List<String> strings(List<?> values) {
        return values.stream().map(Object::toString).toList();
    }
}
