package org.sipcrypt.server.dns;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.sipcrypt.server.config.DnsConfig;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locates the SIP server a URI names (RFC 3263 §4): an ordered list of {@link Destination}s to try
 * in turn (§4.3). An IP address is taken as it is, without DNS. A name with a port, or a transport,
 * skips NAPTR; with a port, SRV too (§4.1, §4.2). Otherwise NAPTR records with the services
 * {@code SIP+D2U}, {@code SIP+D2T} and {@code SIPS+D2T} of the transports the server listens on, by
 * order and preference, each followed by its SRV records; without any, SRV at {@code _sip._udp},
 * {@code _sip._tcp} ({@code _sips._tcp} for a sips URI); without those, A and AAAA at the default port.
 * SRV records are tried by priority and weight (RFC 2782). A name of the hosts file is taken from
 * it, without DNS. Answers are kept for their records'
 * smallest TTL, at most {@code dns.cacheMaxTtl}, for at most {@value #MAX_CACHED_NAMES} names; failures
 * are not kept. Every lookup is counted in {@code dns.resolutions{result}} (resolved, cached, timeout,
 * not_found, no_usable_hop, error) and timed in {@code dns.resolution.duration}.
 * Threading: thread-safe; never blocks; lookups run on its own {@code sipcrypt-dns} event loop and
 * complete the futures there (callers hop back to their own thread).
 */
public final class SipServerLocator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SipServerLocator.class);

    /** Most names whose answers are kept. */
    public static final int MAX_CACHED_NAMES = 10_000;
    private final DnsQueries dns;
    private final Set<Transport> transports;
    private final Predicate<Destination> sendable;
    private final long cacheMaxTtlSeconds;
    private final Cache<Key, Hops> cache;
    /** Lookups under way, so that requests for one name wait for one lookup. */
    private final Map<Key, CompletableFuture<Hops>> pending = new ConcurrentHashMap<>();
    private final RandomGenerator random;
    private final HostsFileEntriesResolver hosts;
    private final MeterRegistry registry;
    private final Timer duration;
    private final Map<String, Counter> results = new ConcurrentHashMap<>();

    /**
     * @param transports the transports the server has listeners for: only those are offered
     * @param sendable   whether the server can send to a destination (a listener of its transport and
     *                   address family); others are left out of answers
     * @param ticker     the clock of the cache's expiry
     */
    public SipServerLocator(DnsConfig config, Set<Transport> transports, Predicate<Destination> sendable,
                            MeterRegistry registry, Ticker ticker) {
        this(config, transports, sendable, registry, ticker, RandomGenerator.getDefault(),
                HostsFileEntriesResolver.DEFAULT);
    }

    SipServerLocator(DnsConfig config, Set<Transport> transports, Predicate<Destination> sendable,
                     MeterRegistry registry, Ticker ticker, RandomGenerator random, HostsFileEntriesResolver hosts) {
        Objects.requireNonNull(config, "config");
        this.transports = Set.copyOf(Objects.requireNonNull(transports, "transports"));
        this.sendable = Objects.requireNonNull(sendable, "sendable");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.random = Objects.requireNonNull(random, "random");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.cacheMaxTtlSeconds = config.cacheMaxTtl().toSeconds();
        this.cache = Caffeine.newBuilder().maximumSize(MAX_CACHED_NAMES).ticker(Objects.requireNonNull(ticker, "ticker"))
                .executor(Runnable::run).expireAfter(new TtlExpiry()).build();
        this.duration = Timer.builder("dns.resolution.duration")
                .description("Time to locate a SIP server by DNS (RFC 3263), answers from the cache left out")
                .register(registry);
        this.dns = new DnsQueries(config);
    }

    /**
     * The destinations of a SIP or SIPS URI's host, port and transport parameter, most preferred
     * first; fails with a {@link ResolutionFailure} naming the reason.
     *
     * @param host      the URI's host (or its {@code maddr}): a name, an IPv4 address or an IPv6
     *                  reference with or without brackets
     * @param port      its port, or 0 or less when it names none
     * @param transport its {@code transport} parameter, or null when it names none
     * @param secure    whether it is a sips URI (TLS only)
     */
    public CompletableFuture<List<Destination>> locate(String host, int port, Transport transport, boolean secure) {
        Objects.requireNonNull(host, "host");
        Transport given = secure ? Transport.TLS : transport;
        InetAddress literal = literal(host);
        if (literal != null) {
            // RFC 3263 §4.1, §4.2: a numeric address is used as it is, never looked up
            Transport t = given != null ? given : Transport.UDP;
            return CompletableFuture.completedFuture(List.of(new Destination(t,
                    new InetSocketAddress(literal, port > 0 ? port : t.defaultPort()))));
        }
        Key key = new Key(bare(host).toLowerCase(Locale.ROOT), Math.max(port, 0), transport, secure);
        Hops known = cache.getIfPresent(key);
        if (known != null) {
            count("cached");
            return CompletableFuture.completedFuture(known.list());
        }
        long start = System.nanoTime();
        CompletableFuture<Hops> answer = pending.computeIfAbsent(key, k -> {
            CompletableFuture<Hops> r = new CompletableFuture<>();
            try {
                dns.execute(() -> resolve(k).whenComplete((h, failure) -> {
                    // on the DNS loop: kept before the lookup is no longer pending, so no request misses both
                    if (failure == null) {
                        cache.put(k, h);
                    }
                    pending.remove(k, r);
                    if (failure != null) {
                        r.completeExceptionally(unwrap(failure));
                    } else {
                        r.complete(h);
                    }
                }));
            } catch (RejectedExecutionException e) {
                r.completeExceptionally(new ResolutionFailure(ResolutionFailure.Reason.ERROR,
                        "DNS resolver closed", e));
            }
            return r;
        });
        if (answer.isCompletedExceptionally()) {
            // refused by a closed loop: nothing will remove it
            pending.remove(key, answer);
        }
        CompletableFuture<List<Destination>> out = new CompletableFuture<>();
        answer.whenComplete((h, failure) -> {
            duration.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            if (failure != null) {
                Throwable cause = unwrap(failure);
                ResolutionFailure rf = cause instanceof ResolutionFailure f ? f
                        : new ResolutionFailure(ResolutionFailure.Reason.ERROR, host + ": " + cause, cause);
                count(rf.reason().tag());
                log.debug("{}: not located: {}", host, rf.getMessage());
                out.completeExceptionally(rf);
            } else {
                count("resolved");
                out.complete(h.list());
            }
        });
        return out;
    }

    /** Every step for one name, on the DNS event loop. */
    private CompletableFuture<Hops> resolve(Key k) {
        assert dns.inEventLoop();
        CompletableFuture<Hops> found;
        Transport given = k.secure() ? Transport.TLS : k.transport();
        InetAddress fromFile = hosts.address(k.host(), ResolvedAddressTypes.IPV4_PREFERRED);
        if (fromFile != null) {
            // a name of the hosts file (localhost) is the machine's own: no NAPTR or SRV is asked of DNS
            Transport t = given != null ? given : defaultTransport(false);
            found = CompletableFuture.completedFuture(new Hops(List.of(new Destination(t,
                    new InetSocketAddress(fromFile, k.port() > 0 ? k.port() : t.defaultPort()))), Long.MAX_VALUE));
        } else if (given != null && k.port() > 0) {
            // §4.2: a port given: A/AAAA only
            found = addresses(k.host(), k.port(), given, Long.MAX_VALUE);
        } else if (given != null) {
            // §4.2: a transport given, no port: SRV for that transport, else A/AAAA on its default port
            found = srv(given, k.host()).thenCompose(h -> h.list().isEmpty()
                    ? addresses(k.host(), given.defaultPort(), given, Long.MAX_VALUE) : CompletableFuture.completedFuture(h));
        } else if (k.port() > 0) {
            // §4.1: a port but no transport: UDP for sip (TCP when the server has no UDP listener)
            Transport t = defaultTransport(false);
            found = addresses(k.host(), k.port(), t, Long.MAX_VALUE);
        } else {
            found = naptr(k).thenCompose(h -> h.list().isEmpty() ? srvFallback(k) : CompletableFuture.completedFuture(h));
        }
        return found.thenApply(h -> usable(k, h));
    }

    /** The hops the server can send to; fails when there are none. */
    private Hops usable(Key k, Hops h) {
        if (h.list().isEmpty()) {
            throw new CompletionException(new ResolutionFailure(ResolutionFailure.Reason.NOT_FOUND,
                    k.host() + ": no NAPTR, SRV or A/AAAA record", null));
        }
        List<Destination> ok = h.list().stream().filter(sendable).distinct().toList();
        if (ok.isEmpty()) {
            throw new CompletionException(new ResolutionFailure(ResolutionFailure.Reason.NO_USABLE_HOP,
                    k.host() + ": no listener to send to any of " + h.list(), null));
        }
        return new Hops(ok, Math.min(h.ttl(), cacheMaxTtlSeconds));
    }

    /** §4.1: the NAPTR records of services we listen for, by order and preference, each through its SRV records. */
    private CompletableFuture<Hops> naptr(Key k) {
        return dns.query(k.host(), DnsRecordType.NAPTR, DnsRdata::naptr).thenCompose(records -> {
            List<NaptrRecord> usable = records.values().stream()
                    .filter(r -> r.sipTransport() != null && transports.contains(r.sipTransport())
                            && (!k.secure() || r.sipTransport() == Transport.TLS))
                    .sorted(Comparator.comparingInt(NaptrRecord::order).thenComparingInt(NaptrRecord::preference))
                    .toList();
            List<CompletableFuture<Hops>> steps = new ArrayList<>(usable.size());
            for (NaptrRecord r : usable) {
                steps.add(srvAt(r.replacement(), r.sipTransport()).thenApply(h -> h.ttlAtMost(r.ttl())));
            }
            return combine(steps);
        });
    }

    /** §4.1 without NAPTR: SRV for each transport we listen on, then A/AAAA at the default port. */
    private CompletableFuture<Hops> srvFallback(Key k) {
        List<Transport> order = k.secure() ? List.of(Transport.TLS) : List.of(Transport.UDP, Transport.TCP);
        List<CompletableFuture<Hops>> steps = new ArrayList<>();
        for (Transport t : order) {
            if (transports.contains(t)) {
                steps.add(srv(t, k.host()));
            }
        }
        return combine(steps).thenCompose(h -> {
            if (!h.list().isEmpty()) {
                return CompletableFuture.completedFuture(h);
            }
            Transport t = defaultTransport(k.secure());
            return addresses(k.host(), t.defaultPort(), t, Long.MAX_VALUE);
        });
    }

    private Transport defaultTransport(boolean secure) {
        if (secure) {
            return Transport.TLS;
        }
        return transports.contains(Transport.UDP) || !transports.contains(Transport.TCP) ? Transport.UDP : Transport.TCP;
    }

    /** The SRV records of {@code _sip._udp.host}, {@code _sip._tcp.host} or {@code _sips._tcp.host}. */
    private CompletableFuture<Hops> srv(Transport t, String host) {
        String service = switch (t) {
            case TLS -> "_sips._tcp.";
            case TCP -> "_sip._tcp.";
            default -> "_sip._udp.";
        };
        return srvAt(service + host, t);
    }

    /** The addresses of the SRV records at {@code name}, in RFC 2782's order. */
    private CompletableFuture<Hops> srvAt(String name, Transport t) {
        return dns.query(name, DnsRecordType.SRV, DnsRdata::srv).thenCompose(records -> {
            List<CompletableFuture<Hops>> steps = new ArrayList<>();
            for (SrvRecord r : SrvRecord.ordered(records.values().stream().filter(s -> !s.unavailable()).toList(), random)) {
                steps.add(addresses(r.target(), r.port(), t, r.ttl()));
            }
            return combine(steps);
        });
    }

    /** The A and AAAA addresses of {@code host} (the hosts file first), at {@code port} over {@code t}. */
    private CompletableFuture<Hops> addresses(String host, int port, Transport t, long ttl) {
        InetAddress fromFile = hosts.address(host, ResolvedAddressTypes.IPV4_PREFERRED);
        if (fromFile != null) {
            return CompletableFuture.completedFuture(new Hops(
                    List.of(new Destination(t, new InetSocketAddress(fromFile, port))), ttl));
        }
        BiFunction<ByteBuf, Long, InetAddress> address = (rdata, unused) -> ip(host, rdata);
        CompletableFuture<Hops> a = dns.query(host, DnsRecordType.A, address).thenApply(list -> hops(list, port, t, ttl));
        CompletableFuture<Hops> aaaa = dns.query(host, DnsRecordType.AAAA, address).thenApply(list -> hops(list, port, t, ttl));
        return combine(List.of(a, aaaa));
    }

    private static Hops hops(DnsQueries.Found<InetAddress> found, int port, Transport t, long ttl) {
        List<Destination> list = new ArrayList<>(found.values().size());
        for (InetAddress a : found.values()) {
            list.add(new Destination(t, new InetSocketAddress(a, port)));
        }
        return new Hops(list, Math.min(ttl, found.ttl()));
    }

    /** An A or AAAA record's address; null for data of another length. */
    private static InetAddress ip(String host, ByteBuf rdata) {
        if (rdata.readableBytes() != 4 && rdata.readableBytes() != 16) {
            return null;
        }
        byte[] bytes = new byte[rdata.readableBytes()];
        rdata.getBytes(rdata.readerIndex(), bytes);
        try {
            return InetAddress.getByAddress(host, bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("address of " + bytes.length + " bytes", e);
        }
    }

    /**
     * The steps' hops in the steps' order: what was found, even when some steps failed; a failure
     * only when nothing was found and one failed (the first such failure).
     */
    private static CompletableFuture<Hops> combine(List<CompletableFuture<Hops>> steps) {
        return CompletableFuture.allOf(steps.stream().map(s -> s.exceptionally(e -> null)).toArray(CompletableFuture[]::new))
                .thenApply(unused -> {
                    List<Destination> all = new ArrayList<>();
                    long ttl = Long.MAX_VALUE;
                    Throwable failure = null;
                    for (CompletableFuture<Hops> s : steps) {
                        if (s.isCompletedExceptionally()) {
                            if (failure == null) {
                                failure = s.handle((h, e) -> e).join();
                            }
                            continue;
                        }
                        Hops h = s.join();
                        all.addAll(h.list());
                        if (!h.list().isEmpty()) {
                            ttl = Math.min(ttl, h.ttl());
                        }
                    }
                    if (all.isEmpty() && failure != null) {
                        throw failure instanceof CompletionException ce ? ce : new CompletionException(failure);
                    }
                    return new Hops(all, ttl);
                });
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    private void count(String result) {
        results.computeIfAbsent(result, r -> Counter.builder("dns.resolutions")
                .description("Lookups of SIP servers by DNS (RFC 3263), by result").tag("result", r)
                .register(registry)).increment();
    }

    /** Whether {@code host} is an IPv4 or IPv6 address (brackets allowed), which is never looked up. */
    public static boolean isAddress(String host) {
        return literal(host) != null;
    }

    /** The address of an IPv4 or IPv6 literal (brackets allowed), read without any lookup; null for a name. */
    static InetAddress literal(String host) {
        String h = bare(host);
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(h);
        if (bytes == null) {
            return null;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("address of " + bytes.length + " bytes", e);
        }
    }

    private static String bare(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return h.length() > 1 && h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

    /** Stops the DNS event loop; lookups still running fail. */
    @Override
    public void close() {
        dns.close();
    }

    /** What was asked: the cache key. */
    private record Key(String host, int port, Transport transport, boolean secure) {
    }

    /** Destinations found, with the smallest TTL (seconds) of the records that led to them. */
    private record Hops(List<Destination> list, long ttl) {
        Hops ttlAtMost(long seconds) {
            return new Hops(list, Math.min(ttl, seconds));
        }
    }

    /** Each answer expires after its TTL, capped by {@code dns.cacheMaxTtl}. */
    private final class TtlExpiry implements Expiry<Key, Hops> {
        @Override
        public long expireAfterCreate(Key key, Hops value, long currentTime) {
            return TimeUnit.SECONDS.toNanos(Math.max(0, Math.min(value.ttl(), cacheMaxTtlSeconds)));
        }

        @Override
        public long expireAfterUpdate(Key key, Hops value, long currentTime, long currentDuration) {
            return expireAfterCreate(key, value, currentTime);
        }

        @Override
        public long expireAfterRead(Key key, Hops value, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
