package org.sipcrypt.server.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small authoritative DNS server for tests, on a loopback address and a free UDP port: A, AAAA,
 * SRV and NAPTR records set by the test, NXDOMAIN for a name without records, an empty answer for
 * a name without records of the type asked; {@link #silent} makes it read queries and answer none.
 * Counts the queries it got by name and type.
 * Threading: thread-safe; answers on its own event loop.
 */
public final class TestDnsServer implements AutoCloseable {

    private record Entry(DnsRecordType type, long ttl, byte[] rdata) {
    }

    private final Map<String, List<Entry>> zone = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> queries = new ConcurrentHashMap<>();
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Channel channel;
    private volatile boolean silent;

    private TestDnsServer(String bindAddress) throws InterruptedException {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                new Answerer());
                    }
                }).bind(bindAddress, 0).sync().channel();
    }

    /** A server on {@code bindAddress} (127.0.0.x) and a free port. */
    public static TestDnsServer start(String bindAddress) throws InterruptedException {
        return new TestDnsServer(bindAddress);
    }

    /** {@code 127.0.0.1:40123}, as {@code dns.servers} takes it. */
    public String hostPort() {
        InetSocketAddress a = (InetSocketAddress) channel.localAddress();
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** Whether to read queries and answer none (a name server that has gone away). */
    public void silent(boolean on) {
        silent = on;
    }

    public TestDnsServer a(String name, String address, long ttl) {
        return add(name, DnsRecordType.A, ttl, ip(address, 4));
    }

    public TestDnsServer aaaa(String name, String address, long ttl) {
        return add(name, DnsRecordType.AAAA, ttl, ip(address, 16));
    }

    public TestDnsServer srv(String name, int priority, int weight, int port, String target, long ttl) {
        ByteBuf b = Unpooled.buffer();
        b.writeShort(priority).writeShort(weight).writeShort(port);
        writeName(b, target);
        return add(name, DnsRecordType.SRV, ttl, bytes(b));
    }

    public TestDnsServer naptr(String name, int order, int preference, String flags, String service, String regexp,
                               String replacement, long ttl) {
        ByteBuf b = Unpooled.buffer();
        b.writeShort(order).writeShort(preference);
        for (String s : new String[] {flags, service, regexp}) {
            byte[] t = s.getBytes(StandardCharsets.US_ASCII);
            b.writeByte(t.length).writeBytes(t);
        }
        writeName(b, replacement);
        return add(name, DnsRecordType.NAPTR, ttl, bytes(b));
    }

    /** The queries received for {@code name} of {@code type}. */
    public int queries(String name, DnsRecordType type) {
        AtomicInteger n = queries.get(key(name, type));
        return n == null ? 0 : n.get();
    }

    /** The queries received, all names and types. */
    public int queries() {
        return queries.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    private TestDnsServer add(String name, DnsRecordType type, long ttl, byte[] rdata) {
        zone.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new CopyOnWriteArrayList<>())
                .add(new Entry(type, ttl, rdata));
        return this;
    }

    private static String key(String name, DnsRecordType type) {
        String n = name.toLowerCase(Locale.ROOT);
        return (n.endsWith(".") ? n.substring(0, n.length() - 1) : n) + " " + type.name();
    }

    private static byte[] ip(String address, int length) {
        try {
            byte[] b = InetAddress.getByName(address).getAddress();
            if (b.length != length) {
                throw new IllegalArgumentException(address + " is not an address of " + length + " bytes");
            }
            return b;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(address, e);
        }
    }

    private static void writeName(ByteBuf b, String name) {
        if (!name.equals(".")) {
            for (String label : name.split("\\.")) {
                byte[] l = label.getBytes(StandardCharsets.US_ASCII);
                b.writeByte(l.length).writeBytes(l);
            }
        }
        b.writeByte(0);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Answers each query from the zone. */
    private final class Answerer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
            DnsQuestion q = query.recordAt(DnsSection.QUESTION);
            String name = q.name().toLowerCase(Locale.ROOT);
            name = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
            queries.computeIfAbsent(key(name, q.type()), k -> new AtomicInteger()).incrementAndGet();
            if (silent) {
                return;
            }
            DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setAuthoritativeAnswer(true).setRecursionAvailable(true).setRecursionDesired(query.isRecursionDesired());
            response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(q.name(), q.type()));
            List<Entry> entries = zone.get(name);
            if (entries == null) {
                response.setCode(DnsResponseCode.NXDOMAIN);
            } else {
                List<Entry> matching = new ArrayList<>();
                for (Entry e : entries) {
                    if (e.type().equals(q.type())) {
                        matching.add(e);
                    }
                }
                for (Entry e : matching) {
                    response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(q.name(), e.type(), e.ttl(),
                            Unpooled.wrappedBuffer(e.rdata())));
                }
            }
            ctx.writeAndFlush(response);
        }
    }
}
