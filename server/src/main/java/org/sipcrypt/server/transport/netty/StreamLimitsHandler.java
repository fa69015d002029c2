package org.sipcrypt.server.transport.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.sipcrypt.server.transport.PartialMessages;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.StreamLimits;
import org.slf4j.LoggerFactory;

/**
 * Sits just in front of the {@link SipStreamFramer} and closes connections that hold the server's
 * resources without sending SIP: an inbound connection that has not completed its first message
 * within {@code firstMessageTimeout} of opening (of its TLS handshake, for TLS), any connection
 * whose message is not complete {@code messageTimeout} after its first byte (slowloris: each byte
 * resets the idle timer, not this deadline), and the connections with the oldest incomplete
 * messages when the bytes held in incomplete messages over all connections pass
 * {@code maxPartialBytes} ({@link PartialMessages}). Closes are counted in
 * {@code transport.connections.closed{reason}} as {@code first_message_timeout},
 * {@code message_timeout} and {@code partial_bytes}, and logged once a minute per reason.
 * Keep-alives (RFC 5626 §3.5.1) are no message: they neither start a deadline nor count as the first message.
 * At most one timer per kind is pending per connection, and only while a deadline is running.
 * Threading: one instance per channel, event loop only (not @Sharable); the eviction action may run
 * on another connection's event loop and only hands the close to this one's.
 */
final class StreamLimitsHandler extends ChannelInboundHandlerAdapter {

    private static final RateLimitedLog rateLimited = new RateLimitedLog(LoggerFactory.getLogger(StreamLimitsHandler.class));

    private final StreamLimits limits;
    private final PartialMessages partials;
    private final SipStreamFramer framer;
    private final Consumer<String> closeReason;
    private final boolean inbound;
    private final boolean tls;

    private long framedSeen;
    private boolean sawMessage;
    private boolean closed;
    private ScheduledFuture<?> firstMessageTimer;
    /** The incomplete message the framer holds, or null between messages. */
    private PartialMessages.Message partial;
    /** Messages begun on this connection; the current one's number while {@link #partial} is set. */
    private long messageNumber;
    /** The message the pending {@link #messageTimer} runs for. */
    private long timedMessage;
    /**
     * When a message began while the timer of an earlier one was pending: how long after that timer
     * fires the later message's deadline falls.
     */
    private long laterDeadlineNanos;
    private ScheduledFuture<?> messageTimer;

    /**
     * @param inbound whether the connection was accepted (the first-message deadline applies to those only)
     * @param tls     whether a TLS stage precedes this one (the first-message deadline starts after its handshake)
     * @param closeReason told why before this stage closes the connection (the last stage counts it)
     */
    StreamLimitsHandler(StreamLimits limits, PartialMessages partials, SipStreamFramer framer,
                        Consumer<String> closeReason, boolean inbound, boolean tls) {
        this.limits = limits;
        this.partials = partials;
        this.framer = framer;
        this.closeReason = closeReason;
        this.inbound = inbound;
        this.tls = tls;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (inbound && !tls) {
            startFirstMessageTimer(ctx);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e && e.isSuccess() && inbound) {
            startFirstMessageTimer(ctx);
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void startFirstMessageTimer(ChannelHandlerContext ctx) {
        if (sawMessage || closed || firstMessageTimer != null) {
            return;
        }
        firstMessageTimer = ctx.executor().schedule(() -> {
            if (!sawMessage) {
                close(ctx, "first_message_timeout",
                        "no complete SIP message within " + limits.firstMessageTimeout().toMillis() + " ms");
            }
        }, limits.firstMessageTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        // the framer frames synchronously: once this returns, its buffer holds what is still incomplete
        ctx.fireChannelRead(msg);
        if (closed) {
            return;
        }
        long framed = framer.messagesFramed();
        boolean completed = framed != framedSeen;
        framedSeen = framed;
        if (completed && !sawMessage) {
            sawMessage = true;
            if (firstMessageTimer != null) {
                firstMessageTimer.cancel(false);
                firstMessageTimer = null;
            }
        }
        int bytes = framer.partialMessageBytes();
        if (bytes == 0) {
            endPartial();
            return;
        }
        if (partial == null || completed) {
            // a message began in this read (possibly right after one it completed)
            endPartial();
            messageNumber++;
            partial = partials.begin(bytes, () -> ctx.executor().execute(() -> close(ctx, "partial_bytes",
                    "incomplete messages over all connections beyond " + partials.maxBytes() + " bytes; this one the oldest")));
            if (messageTimer == null) {
                armMessageTimer(ctx, limits.messageTimeout().toNanos());
            } else {
                // one timer per connection: when the pending one fires, it re-arms for this message
                laterDeadlineNanos = limits.messageTimeout().toNanos() - messageTimer.getDelay(TimeUnit.NANOSECONDS);
            }
        } else {
            partials.update(partial, bytes);
        }
    }

    private void endPartial() {
        if (partial != null) {
            partials.end(partial);
            partial = null;
        }
    }

    /** Arms the message deadline for the current message; the event loop's clock, no other. */
    private void armMessageTimer(ChannelHandlerContext ctx, long delayNanos) {
        timedMessage = messageNumber;
        messageTimer = ctx.executor().schedule(() -> {
            messageTimer = null;
            if (partial == null || closed) {
                return;
            }
            if (timedMessage == messageNumber) {
                close(ctx, "message_timeout",
                        "message incomplete " + limits.messageTimeout().toMillis() + " ms after its first byte");
            } else {
                // the message that armed the timer completed; a later one began after it
                armMessageTimer(ctx, Math.max(0, laterDeadlineNanos));
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void close(ChannelHandlerContext ctx, String reason, String detail) {
        if (closed) {
            return;
        }
        closeReason.accept(reason);
        rateLimited.warn(reason, "{} {}: closing, {}: {}", tls ? "tls" : "tcp", ctx.channel().remoteAddress(),
                reason, detail);
        release();
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    private void release() {
        closed = true;
        endPartial();
        if (firstMessageTimer != null) {
            firstMessageTimer.cancel(false);
            firstMessageTimer = null;
        }
        if (messageTimer != null) {
            messageTimer.cancel(false);
            messageTimer = null;
        }
    }
}
