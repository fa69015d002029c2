package org.sipcrypt.server.transport.netty.tls;

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
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.sipcrypt.server.tls.bc.BcTlsConnection;

/**
 * The TLS stage of a connection on the bc engine: network bytes go through Bouncy Castle's
 * non-blocking TLS protocol, decrypted bytes go on up the pipeline, writes are encrypted (held
 * until the handshake completes). Fires the same {@link SslHandshakeCompletionEvent}s as Netty's
 * {@code SslHandler}, so counting and closing work alike on both engines. A failed handshake sends
 * its alert and closes this connection only; a handshake not done within the timeout is closed, and
 * so is a connection whose peer tries to renegotiate.
 * With a handshake executor, handshake records are processed there (reads paused meanwhile) and
 * only records after the handshake on the event loop.
 * The crypto lab's generator and UAS use it too ({@link #onEventLoop}), so both ends of a lab
 * connection run the same TLS stage.
 * Threading: one instance per channel; event loop only, except the handshake work handed to the
 * executor, during which the event loop does not touch the TLS state.
 */
public final class BcTlsHandler extends ChannelDuplexHandler {

    private final BcTlsConnection tls;
    private final long handshakeTimeoutMillis;
    private final Executor handshakeExecutor;
    private final ArrayDeque<Object[]> pendingWrites = new ArrayDeque<>();
    private final ArrayDeque<byte[]> pendingInput = new ArrayDeque<>();
    private ScheduledFuture<?> timeout;
    private boolean started;
    private boolean done;
    private boolean failed;
    private boolean inFlight;

    /** @param handshakeExecutor where handshake records are processed; null for the event loop */
    BcTlsHandler(BcTlsConnection tls, long handshakeTimeoutMillis, Executor handshakeExecutor) {
        this.tls = tls;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.handshakeExecutor = handshakeExecutor;
    }

    /** A stage whose handshake runs on the channel's event loop, failed when not done within {@code handshakeTimeout}. */
    public static BcTlsHandler onEventLoop(BcTlsConnection tls, java.time.Duration handshakeTimeout) {
        return new BcTlsHandler(tls, handshakeTimeout.toMillis(), null);
    }

    /** The connection's TLS state (resumption, suite), for the handshake counters. */
    public BcTlsConnection connection() {
        return tls;
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
        timeout = ctx.executor().schedule(() -> {
            if (!done) {
                fail(ctx, new SslHandshakeTimeoutException("handshake timed out after " + handshakeTimeoutMillis + "ms"));
            }
        }, handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
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
        if (failed || tls.isClosed()) {
            return;
        }
        if (inFlight) {
            pendingInput.add(bytes);
            return;
        }
        if (!done && handshakeExecutor != null) {
            offerElsewhere(ctx, bytes);
            return;
        }
        IOException error = offer(bytes);
        afterOffer(ctx, error);
    }

    private IOException offer(byte[] bytes) {
        try {
            tls.offer(bytes, 0, bytes.length);
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    /** Handshake records on the handshake executor; reads pause until the result is back. */
    private void offerElsewhere(ChannelHandlerContext ctx, byte[] bytes) {
        inFlight = true;
        ctx.channel().config().setAutoRead(false);
        try {
            handshakeExecutor.execute(() -> {
                IOException error = offer(bytes);
                ctx.executor().execute(() -> {
                    inFlight = false;
                    ctx.channel().config().setAutoRead(true);
                    afterOffer(ctx, error);
                    byte[] next;
                    while (!inFlight && !failed && !tls.isClosed() && (next = pendingInput.poll()) != null) {
                        channelRead(ctx, Unpooled.wrappedBuffer(next));
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            // the handshake threads' queue is full (tls.handshakeQueue): this connection goes, the others wait
            inFlight = false;
            fail(ctx, new TlsHandshakeFailure("overload", "handshake queue full (tls.handshakeQueue)", e));
        }
    }

    private void afterOffer(ChannelHandlerContext ctx, IOException error) {
        if (error != null) {
            fail(ctx, error);
            return;
        }
        if (failed) {
            return;
        }
        if (tls.renegotiationRefused()) {
            fail(ctx, new SSLException("the peer tried to renegotiate"));
            return;
        }
        sendOutput(ctx);
        if (!done && tls.handshakeComplete()) {
            done = true;
            timeout.cancel(false);
            ctx.fireUserEventTriggered(SslHandshakeCompletionEvent.SUCCESS);
            Object[] w;
            while ((w = pendingWrites.poll()) != null) {
                encrypt(ctx, (ByteBuf) w[0], (ChannelPromise) w[1]);
            }
        }
        ctx.flush();
        byte[] in;
        while ((in = tls.takeInput()) != null) {
            ctx.fireChannelRead(Unpooled.wrappedBuffer(in));
        }
        if (tls.isClosed()) {
            ctx.close();
        }
    }

    private void sendOutput(ChannelHandlerContext ctx) {
        byte[] out = tls.takeOutput();
        if (out != null) {
            ctx.write(Unpooled.wrappedBuffer(out), ctx.voidPromise());
        }
    }

    /** Ends the connection: during the handshake with the alert Bouncy Castle prepared, counted as a failure. */
    private void fail(ChannelHandlerContext ctx, Exception cause) {
        if (failed) {
            return;
        }
        failed = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (!inFlight) {
            sendOutput(ctx);
            ctx.flush();
        }
        if (!done) {
            done = true;
            Exception reported = cause instanceof SslHandshakeTimeoutException || cause instanceof TlsHandshakeFailure
                    ? cause : new TlsHandshakeFailure(tls.failureReason(), tls.lastAlert(), cause);
            ctx.fireUserEventTriggered(new SslHandshakeCompletionEvent(reported));
        } else {
            ctx.fireExceptionCaught(new SSLException("TLS record layer failed: " + tls.lastAlert(), cause));
        }
        failPendingWrites(cause);
        ctx.close();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.write(msg, promise);
            return;
        }
        if (failed || tls.isClosed()) {
            ReferenceCountUtil.release(buf);
            promise.tryFailure(new ClosedChannelException());
        } else if (!done || inFlight) {
            pendingWrites.add(new Object[] {buf, promise});
        } else {
            encrypt(ctx, buf, promise);
        }
    }

    private void encrypt(ChannelHandlerContext ctx, ByteBuf buf, ChannelPromise promise) {
        byte[] plain;
        try {
            plain = ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
        try {
            tls.write(plain, 0, plain.length);
            ctx.write(Unpooled.wrappedBuffer(tls.takeOutput()), promise);
        } catch (IOException e) {
            promise.tryFailure(e);
            fail(ctx, e);
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (done && !failed && !inFlight && !tls.isClosed()) {
            try {
                tls.close();
                sendOutput(ctx);
                ctx.flush();
            } catch (IOException e) {
                // the connection is going anyway; close_notify is a courtesy
            }
        }
        ctx.close(promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (!done) {
            done = true;
            failed = true;
            ctx.fireUserEventTriggered(new SslHandshakeCompletionEvent(
                    new TlsHandshakeFailure("closed", "connection closed during the handshake", new ClosedChannelException())));
        }
        failPendingWrites(new ClosedChannelException());
        pendingInput.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        failPendingWrites(new ClosedChannelException());
    }

    private void failPendingWrites(Throwable cause) {
        Object[] w;
        while ((w = pendingWrites.poll()) != null) {
            ReferenceCountUtil.release(w[0]);
            ((ChannelPromise) w[1]).tryFailure(cause);
        }
    }
}
