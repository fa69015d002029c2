package org.sipcrypt.server.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sipcrypt.server.config.HttpConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jar's HTTP listener ({@code --http HOST:PORT}) for {@link HttpEndpoints}: one event-loop
 * thread of its own ({@code sipcrypt-http}), so scrapes never delay SIP; requests bounded to
 * {@code http.maxRequestBytes} of line and headers (431 beyond) and no more body than that (413),
 * at most {@code http.maxConnections} connections, each closed after one answer or after
 * {@code http.idleTimeout} without a whole request.
 * Threading: start and close from the control thread; the handlers run on {@code sipcrypt-http}.
 */
public final class NettyHttpListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NettyHttpListener.class);

    private final EventLoopGroup group;
    private final Channel channel;

    private NettyHttpListener(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    /** Binds the listener; fails with the address when it cannot. */
    public static NettyHttpListener start(HttpConfig config, HttpEndpoints endpoints) throws IOException {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(endpoints, "endpoints");
        if (!config.enabled()) {
            throw new IllegalArgumentException("http: no listener configured");
        }
        EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("sipcrypt-http", true));
        ConnectionCap cap = new ConnectionCap(config.maxConnections());
        int max = config.maxRequestBytes();
        long idleMillis = config.idleTimeout().toMillis();
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast("cap", cap);
                        ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
                        ch.pipeline().addLast("codec", new HttpServerCodec(max, max, 8192));
                        ch.pipeline().addLast("aggregate", new HttpObjectAggregator(max));
                        ch.pipeline().addLast("endpoints", new HttpEndpointHandler(endpoints));
                    }
                });
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(config.listen().host()),
                config.listen().port());
        try {
            Channel ch = b.bind(address).sync().channel();
            NettyHttpListener listener = new NettyHttpListener(group, ch);
            log.info("http endpoints on http://{}/metrics and /health (http; keep it off public networks)",
                    org.sipcrypt.server.config.HostPort.format(listener.address().getAddress().getHostAddress(),
                            listener.address().getPort()));
            return listener;
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("http: cannot listen on " + config.listen() + ": " + e.getMessage(), e);
        }
    }

    /** The bound address, with the actual port when 0 was asked. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Closes the listener and its connections and stops its thread, waiting a bounded time. */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /**
     * Closes connections beyond {@code http.maxConnections} as they arrive.
     * Threading: shared by every connection; on {@code sipcrypt-http} only.
     */
    @ChannelHandler.Sharable
    private static final class ConnectionCap extends ChannelInboundHandlerAdapter {

        private final int max;
        private final AtomicInteger open = new AtomicInteger();

        ConnectionCap(int max) {
            this.max = max;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            int now = open.incrementAndGet();
            ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
            if (now > max) {
                log.debug("http {}: closed, {} connections open (http.maxConnections)", ctx.channel().remoteAddress(),
                        max);
                ctx.close();
                return;
            }
            super.channelActive(ctx);
        }
    }
}
