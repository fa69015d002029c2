package org.sipcrypt.server.transport.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.sipcrypt.server.transport.PeerKey;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last stage of a TCP connection's pipeline: registers the connection (an outgoing TLS one
 * becomes usable once its handshake succeeded, and fails its senders when it did not), enforces the
 * connection cap, hands framed messages to the SIP lanes, answers CRLF keep-alive pings with a
 * pong (RFC 5626 §3.5.1), and closes the connection on framing errors, idleness or I/O errors,
 * counting each close under its reason. Nothing thrown here reaches the event loop.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class SipConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(SipConnectionHandler.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);
    private static final byte[] PONG = "\r\n".getBytes(StandardCharsets.US_ASCII);

    private final NettyTcpMessageProcessor processor;
    private final PeerKey outboundKey;
    private final CompletableFuture<NettyTcpMessageChannel> future;
    private NettyTcpMessageChannel sipChannel;
    private PeerKey key;
    private boolean counted;
    private volatile String closeReason;
    private boolean awaitingHandshake;

    SipConnectionHandler(NettyTcpMessageProcessor processor, PeerKey outboundKey,
                         CompletableFuture<NettyTcpMessageChannel> future) {
        this.processor = processor;
        this.outboundKey = outboundKey;
        this.future = future != null ? future : new CompletableFuture<>();
    }

    /** Sets why the connection is being closed, unless a reason is already set. */
    void closeReason(String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        var counters = processor.transport().counters();
        int open = counters.openConnections().incrementAndGet();
        counted = true;
        if (outboundKey == null && open > processor.transport().settings().maxConnections()) {
            closeReason("cap");
            rateLimited.warn("cap", "tcp {}: connection cap of {} reached; closing new connection from {}",
                    processor, processor.transport().settings().maxConnections(), ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        counters.connectionOpened(outboundKey == null ? "inbound" : "outbound");
        sipChannel = new NettyTcpMessageChannel(processor, ctx.channel(), this);
        key = outboundKey != null ? outboundKey
                : PeerKey.shared(processor.kind(), (InetSocketAddress) ctx.channel().remoteAddress());
        // an outgoing TLS connection is ready for SIP once its handshake has succeeded
        awaitingHandshake = outboundKey != null && processor.kind() == Transport.TLS;
        if (!awaitingHandshake) {
            future.complete(sipChannel);
        }
        processor.opened(key, future);
        log.debug("{} open", sipChannel);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof SipFrame frame) || sipChannel == null) {
            return;
        }
        if (frame instanceof SipFrame.Message m) {
            processor.dispatch(sipChannel, m.bytes());
        } else if (frame instanceof SipFrame.KeepAlive k) {
            if (k.ping()) {
                processor.transport().counters().keepAlive("ping");
                ctx.writeAndFlush(Unpooled.wrappedBuffer(PONG));
            } else {
                processor.transport().counters().keepAlive("pong");
            }
        } else if (frame instanceof SipFrame.Error e) {
            closeReason(e.reason().tag());
            rateLimited.warn("framing_" + e.reason().tag(), "{}: closing, {}: {}", sipChannel, e.reason().tag(), e.detail());
            ctx.close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e && awaitingHandshake) {
            awaitingHandshake = false;
            if (e.isSuccess()) {
                future.complete(sipChannel);
            } else {
                future.completeExceptionally(new java.io.IOException("TLS handshake with " + outboundKey.remote()
                        + " failed: " + e.cause().getMessage(), e.cause()));
            }
            ctx.fireUserEventTriggered(evt);
        } else if (evt instanceof IdleStateEvent) {
            closeReason("idle");
            log.debug("{} idle, closing", sipChannel);
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    private static boolean isTls(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException || c instanceof io.netty.handler.ssl.NotSslRecordException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        var counters = processor.transport().counters();
        if (counted) {
            counters.openConnections().decrementAndGet();
            counted = false;
        }
        counters.connectionClosed(closeReason != null ? closeReason : "peer_closed");
        if (key != null) {
            processor.closed(key, future);
        }
        future.completeExceptionally(new java.io.IOException("connection closed"));
        log.debug("{} closed: {}", sipChannel != null ? sipChannel : ctx.channel(), closeReason);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (isTls(cause)) {
            // counted and logged by the TLS events stage; the TLS stage has sent its alert
            closeReason("tls");
            ctx.close();
            return;
        }
        closeReason("io_error");
        rateLimited.warn("tcp_io", "tcp {}: {}; closing that connection", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
