package org.sipcrypt.server.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
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
 * pong (RFC 5626 §4.4.1; not while the send queue is past its high-water mark), and closes the
 * connection on framing errors, idleness or I/O errors, counting each close under its reason.
 * Nothing thrown here reaches the event loop.
 * <p>
 * A framing error right after a complete request (more bytes in the same read that do not frame)
 * does not cost that request its answer: reading stops, and the connection closes once a final
 * response (or a request) has been written on it, or after {@link #ANSWER_LINGER} at most.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class SipConnectionHandler extends ChannelDuplexHandler {

    /** Longest a connection with broken framing stays open for the answer to a request framed before the break. */
    static final java.time.Duration ANSWER_LINGER = java.time.Duration.ofSeconds(5);

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
    /** A request was handed to the SIP layer and nothing final has been written since. */
    private boolean awaitingAnswer;
    /** Framing broke: the connection closes once {@link #awaitingAnswer} clears. */
    private boolean closingAfterAnswer;

    SipConnectionHandler(NettyTcpMessageProcessor processor, PeerKey outboundKey,
                         CompletableFuture<NettyTcpMessageChannel> future) {
        this.processor = processor;
        this.outboundKey = outboundKey;
        this.future = future != null ? future : new CompletableFuture<>();
    }

    /**
     * The message channel of an outgoing connection, made when it was dialled so that sends can wait
     * for its set-up; before the channel is registered.
     */
    void dialled(NettyTcpMessageChannel channel) {
        this.sipChannel = channel;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (sipChannel != null) {
            sipChannel.attach(ctx.channel());
        }
    }

    /** Whether this connection was dialled by this server (else accepted from its peer). */
    boolean dialledOut() {
        return outboundKey != null;
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
        if (sipChannel == null) {
            sipChannel = new NettyTcpMessageChannel(processor, ctx.channel(), this);
        }
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
            if (!startsWith(m.bytes(), RESPONSE_PREFIX)) {
                awaitingAnswer = true;
            }
            processor.dispatch(sipChannel, m.bytes());
        } else if (frame instanceof SipFrame.KeepAlive k) {
            // RFC 5626 §4.4.1: a double CRLF is a ping, answered with a single CRLF; a single CRLF is a pong
            if (k.ping() && !ctx.channel().isWritable()) {
                // a peer that pings without reading: its pongs must not pile up in the send queue
                processor.transport().counters().keepAliveDropped(processor.kind(), "backlog");
            } else if (k.ping()) {
                processor.transport().counters().keepAliveAnswered(processor.kind(), "crlf");
                ctx.writeAndFlush(Unpooled.wrappedBuffer(PONG));
            } else {
                processor.transport().counters().keepAliveDropped(processor.kind(), "pong");
            }
        } else if (frame instanceof SipFrame.Error e) {
            closeReason(e.reason().tag());
            rateLimited.warn("framing_" + e.reason().tag(), "{}: closing, {}: {}", sipChannel, e.reason().tag(), e.detail());
            if (!awaitingAnswer) {
                ctx.close();
                return;
            }
            // RFC 3261 §18.3: the request framed before the break is still answered; nothing more is read.
            closingAfterAnswer = true;
            ctx.channel().config().setAutoRead(false);
            ctx.executor().schedule(() -> {
                ctx.close();
            }, ANSWER_LINGER.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    private static final byte[] RESPONSE_PREFIX = "SIP/2.0 ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PROVISIONAL_PREFIX = "SIP/2.0 1".getBytes(StandardCharsets.US_ASCII);

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        if (bytes.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean startsWith(ByteBuf buf, byte[] prefix) {
        if (buf.readableBytes() < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (buf.getByte(buf.readerIndex() + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Notes final answers written; after broken framing, the first one closes the connection once sent. */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean finalAnswer = msg instanceof ByteBuf buf && buf.isReadable() && !startsWith(buf, PROVISIONAL_PREFIX);
        if (finalAnswer) {
            awaitingAnswer = false;
        }
        if (finalAnswer && closingAfterAnswer) {
            ctx.write(msg, promise.unvoid()).addListener(f -> ctx.close());
            ctx.flush();
            return;
        }
        ctx.write(msg, promise);
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
            processor.closed(key, future, sipChannel);
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
