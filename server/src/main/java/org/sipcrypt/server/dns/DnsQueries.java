package org.sipcrypt.server.dns;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.sipcrypt.server.config.DnsConfig;
import org.sipcrypt.server.config.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One query at a time to the name servers of {@code dns.servers} (or {@code /etc/resolv.conf}),
 * through Netty's {@link DnsNameResolver} on an event loop of its own ({@code sipcrypt-dns}), with
 * Netty's caches off (the locator keeps answers itself) and no search domains: a name is asked as
 * it is. A query's records are read and released on the loop.
 * Threading: thread-safe; {@link #query} may be called from any thread and completes its future on
 * the DNS event loop; never blocks.
 */
final class DnsQueries implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DnsQueries.class);

    /** Most queries one name may take, CNAMEs and retries on other servers included. */
    private static final int MAX_QUERIES_PER_NAME = 8;

    private final EventLoopGroup group;
    private final EventLoop loop;
    private final DnsNameResolver resolver;

    DnsQueries(DnsConfig config) {
        DnsServerAddressStreamProvider servers = config.servers().isEmpty()
                ? DnsServerAddressStreamProviders.platformDefault()
                : new SequentialDnsServerAddressStreamProvider(addresses(config.servers()));
        this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("sipcrypt-dns", true));
        this.loop = group.next();
        this.resolver = new DnsNameResolverBuilder(loop)
                .datagramChannelType(NioDatagramChannel.class)
                .queryTimeoutMillis(config.timeout().toMillis())
                .maxQueriesPerResolve(MAX_QUERIES_PER_NAME)
                .resolveCache(NoopDnsCache.INSTANCE)
                .cnameCache(NoopDnsCnameCache.INSTANCE)
                .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
                .nameServerProvider(servers)
                .searchDomains(List.of())
                .ndots(1)
                .recursionDesired(true)
                .build();
    }

    private static List<InetSocketAddress> addresses(List<HostPort> servers) {
        List<InetSocketAddress> out = new ArrayList<>(servers.size());
        for (HostPort s : servers) {
            // once, at start: a name server given by name is looked up by the system here
            InetSocketAddress a = new InetSocketAddress(s.host(), s.port());
            if (a.isUnresolved()) {
                throw new IllegalArgumentException("dns.servers: \"" + s + "\" does not resolve");
            }
            out.add(a);
        }
        return out;
    }

    /** Runs {@code task} on the DNS event loop; refused once closed. */
    void execute(Runnable task) {
        loop.execute(task);
    }

    boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /**
     * One DNS query, its records of {@code type} read by {@code reader} (records it declines are
     * left out); empty when the name or the records do not exist; fails with a
     * {@link ResolutionFailure} on a timeout or another resolver failure.
     */
    <T> CompletableFuture<Found<T>> query(String name, DnsRecordType type, BiFunction<ByteBuf, Long, T> reader) {
        CompletableFuture<Found<T>> result = new CompletableFuture<>();
        resolver.resolveAll(new DefaultDnsQuestion(name, type)).addListener(f -> {
            if (!f.isSuccess()) {
                Throwable cause = f.cause();
                if (timedOut(cause)) {
                    result.completeExceptionally(new ResolutionFailure(ResolutionFailure.Reason.TIMEOUT,
                            name + " " + type.name() + ": no answer within dns.timeout", cause));
                } else if (cause instanceof UnknownHostException) {
                    result.complete(new Found<>(List.of(), Long.MAX_VALUE));
                } else {
                    result.completeExceptionally(new ResolutionFailure(ResolutionFailure.Reason.ERROR,
                            name + " " + type.name() + ": " + cause, cause));
                }
                return;
            }
            @SuppressWarnings("unchecked")
            List<DnsRecord> records = (List<DnsRecord>) f.getNow();
            List<T> out = new ArrayList<>(records.size());
            long ttl = Long.MAX_VALUE;
            try {
                for (DnsRecord r : records) {
                    if (r.type() != type || !(r instanceof DnsRawRecord raw)) {
                        continue;
                    }
                    T value = reader.apply(raw.content(), r.timeToLive());
                    if (value == null) {
                        log.debug("{} {}: a record whose data cannot be read, left out", name, type.name());
                        continue;
                    }
                    out.add(value);
                    ttl = Math.min(ttl, r.timeToLive());
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(new ResolutionFailure(ResolutionFailure.Reason.ERROR,
                        name + " " + type.name() + ": " + e, e));
                return;
            } finally {
                for (DnsRecord r : records) {
                    ReferenceCountUtil.release(r);
                }
            }
            result.complete(new Found<>(out, ttl));
        });
        return result;
    }

    private static boolean timedOut(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof DnsNameResolverTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** Stops the event loop; queries still running fail. */
    @Override
    public void close() {
        resolver.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /**
     * The values read from one query's records, with their smallest TTL (seconds).
     * Threading: immutable.
     */
    record Found<T>(List<T> values, long ttl) {
        Found {
            values = List.copyOf(values);
        }
    }
}
