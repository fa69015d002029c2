package org.sipcrypt.lab.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.sipcrypt.server.tls.bc.BcTlsConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS stage of a lab connection on the server's bc engine: network bytes go through the
 * connection's {@link BcTlsConnection} (Bouncy Castle's non-blocking protocol), decrypted bytes go on
 * up the pipeline, writes are encrypted (held until the handshake completes), and the end of the
 * handshake is fired as Netty's {@link SslHandshakeCompletionEvent}, as {@code SslHandler} does on
 * SunJSSE, so the stages above work alike on both engines. A failed handshake sends its alert and
 * closes the connection; so does one not done within the handshake timeout.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class BcTlsStreamHandler extends ChannelDuplexHandler {

    private static final Logger log = LoggerFactory.getLogger(BcTlsStreamHandler.class);

    private final BcTlsConnection tls;
    private final Duration handshakeTimeout;
    private final ArrayDeque<Object[]> pendingWrites = new ArrayDeque<>();
    private ScheduledFuture<?> timeout;
    private boolean started;
    private boolean settled;

    BcTlsStreamHandler(BcTlsConnection tls, Duration handshakeTimeout) {
        this.tls = tls;
        this.handshakeTimeout = handshakeTimeout;
    }

    /** Whether the handshake resumed a session. */
    boolean resumed() {
        return tls.resumed();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            begin(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        begin(ctx);
        ctx.fireChannelActive();
    }

    private void begin(ChannelHandlerContext ctx) {
        if (started) {
            return;
        }
        started = true;
        timeout = ctx.executor().schedule(() -> fail(ctx,
                new SslHandshakeTimeoutException("handshake not done after " + handshakeTimeout)),
                handshakeTimeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            tls.start();
            sendOutput(ctx);
            ctx.flush();
        } catch (IOException e) {
            fail(ctx, e);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        byte[] bytes;
        try {
            bytes = ByteBufUtil.getBytes((ByteBuf) msg);
        } finally {
            ReferenceCountUtil.release(msg);
        }
        if (tls.isClosed() || !ctx.channel().isOpen()) {
            return;
        }
        try {
            tls.offer(bytes, 0, bytes.length);
        } catch (IOException e) {
            fail(ctx, new SSLException(tls.failureReason() + " (" + tls.lastAlert() + ")", e));
            return;
        }
        sendOutput(ctx);
        if (!settled && tls.handshakeComplete()) {
            settled = true;
            timeout.cancel(false);
            ctx.fireUserEventTriggered(SslHandshakeCompletionEvent.SUCCESS);
            Object[] w;
            while ((w = pendingWrites.poll()) != null) {
                encrypt(ctx, (ByteBuf) w[0], (ChannelPromise) w[1]);
            }
        }
        ctx.flush();
        byte[] app = tls.takeInput();
        if (app != null) {
            ctx.fireChannelRead(Unpooled.wrappedBuffer(app));
        }
        if (tls.isClosed()) {
            ctx.close();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!settled) {
            pendingWrites.add(new Object[] {msg, promise});
            return;
        }
        encrypt(ctx, (ByteBuf) msg, promise);
    }

    private void encrypt(ChannelHandlerContext ctx, ByteBuf msg, ChannelPromise promise) {
        try {
            byte[] plain = ByteBufUtil.getBytes(msg);
            tls.write(plain, 0, plain.length);
        } catch (IOException e) {
            promise.setFailure(e);
            return;
        } finally {
            ReferenceCountUtil.release(msg);
        }
        byte[] out = tls.takeOutput();
        if (out == null) {
            promise.setSuccess();
        } else {
            ctx.write(Unpooled.wrappedBuffer(out), promise);
        }
    }

    private void sendOutput(ChannelHandlerContext ctx) {
        byte[] out = tls.takeOutput();
        if (out != null) {
            ctx.write(Unpooled.wrappedBuffer(out));
        }
    }

    /** A handshake failure or timeout: the alert (if any) goes out, the event is fired, the channel closes. */
    private void fail(ChannelHandlerContext ctx, Exception cause) {
        if (settled) {
            return;
        }
        settled = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        sendOutput(ctx);
        ctx.flush();
        failPendingWrites(cause);
        ctx.fireUserEventTriggered(new SslHandshakeCompletionEvent(cause));
        ctx.close();
    }

    private void failPendingWrites(Throwable cause) {
        Object[] w;
        while ((w = pendingWrites.poll()) != null) {
            ReferenceCountUtil.release(w[0]);
            ((ChannelPromise) w[1]).tryFailure(cause);
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (!tls.isClosed() && tls.handshakeComplete()) {
            try {
                tls.close();
                sendOutput(ctx);
                ctx.flush();
            } catch (IOException e) {
                log.debug("{} close_notify not sent: {}", ctx.channel(), e.toString());
            }
        }
        ctx.close(promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!settled) {
            fail(ctx, new SSLException("closed before the handshake completed"));
        }
        failPendingWrites(new SSLException("closed"));
        if (timeout != null) {
            timeout.cancel(false);
        }
        ctx.fireChannelInactive();
    }
}
