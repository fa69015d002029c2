package org.sipcrypt.server.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Consumer;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.TransportCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries SIP over an upgraded WebSocket (RFC 7118 §5): each text or binary WebSocket message
 * received is one SIP message for the {@link SipConnectionHandler} behind it (a message of only CR
 * and LF is a keep-alive, as on a stream: four bytes a ping, two a pong); each SIP message written is
 * one WebSocket message, of the kind the client last sent (text until it has sent one), so a client
 * that speaks binary is answered in binary. Keeps the connection alive the WebSocket way: when the
 * client has sent nothing for {@code ws.pingInterval} it gets a ping, and when it stays silent for
 * another interval the connection closes ({@code transport.ws.refused{reason=ping_timeout}}); one that
 * has sent no upgrade request within the interval is closed at once ({@code reason=handshake_timeout}). A
 * message beyond {@code ws.maxFrameBytes} or a broken frame closes the connection (the WebSocket
 * decoder has sent close status 1009 or 1002), counted as {@code transport.ws.refused{reason}}; a
 * connection that closes inside a fragmented message is counted as
 * {@code sip.messages.dropped{reason=ws_incomplete}}, and an empty message as {@code reason=ws_empty}.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class WebSocketSipHandler extends ChannelDuplexHandler {

    private static final Logger log = LoggerFactory.getLogger(WebSocketSipHandler.class);
    private static final RateLimitedLog badInput = new RateLimitedLog(log);

    private final TransportCounters counters;
    private final String listener;
    private final Consumer<String> closeReason;
    private boolean binary;
    private boolean upgraded;

    /**
     * @param listener    the listener, for the log ({@code wss:127.0.0.1:8443})
     * @param closeReason told why the connection closes when this handler closes it
     */
    WebSocketSipHandler(TransportCounters counters, String listener, Consumer<String> closeReason) {
        this.counters = counters;
        this.listener = listener;
        this.closeReason = closeReason;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof TextWebSocketFrame) && !(msg instanceof BinaryWebSocketFrame)) {
            // pings are answered and closes handled by the protocol handler before this one
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            binary = msg instanceof BinaryWebSocketFrame;
            SipFrame frame = frame(((WebSocketFrame) msg).content());
            if (frame != null) {
                ctx.fireChannelRead(frame);
            } else {
                counters.messageDropped("ws_empty");
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    /**
     * What one WebSocket message's payload is to the SIP layer: a keep-alive when it is only CR and
     * LF ({@code \r\n\r\n} a ping, anything shorter a pong), else one SIP message; null when empty.
     */
    static SipFrame frame(ByteBuf payload) {
        int n = payload.readableBytes();
        if (n == 0) {
            return null;
        }
        if (n <= 4 && payload.forEachByte(b -> b == '\r' || b == '\n') < 0) {
            return new SipFrame.KeepAlive(n == 4);
        }
        return new SipFrame.Message(ByteBufUtil.getBytes(payload));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            ctx.write(binary ? new BinaryWebSocketFrame(buf) : new TextWebSocketFrame(buf), promise);
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete done) {
            upgraded = true;
            if (ctx.pipeline().get(WebSocketUpgradeCheck.class) != null) {
                ctx.pipeline().remove(WebSocketUpgradeCheck.class);
            }
            log.debug("{} {}: WebSocket open, subprotocol {}", listener, ctx.channel().remoteAddress(),
                    done.selectedSubprotocol());
        } else if (evt == WebSocketServerProtocolHandler.ServerHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
            refused(ctx, "handshake_timeout", "no WebSocket upgrade in time");
        } else if (evt instanceof IdleStateEvent idle && idle.state() == IdleState.READER_IDLE) {
            if (!upgraded) {
                // connected, but no upgrade request within an interval: not a WebSocket client
                refused(ctx, "handshake_timeout", "no WebSocket upgrade request within ws.pingInterval");
                ctx.close();
            } else if (idle.isFirst()) {
                ctx.writeAndFlush(new PingWebSocketFrame());
            } else {
                // silent for a whole interval after the ping: the client is gone (RFC 6455 §5.5.2)
                refused(ctx, "ping_timeout", "no answer to a WebSocket ping");
                ctx.close();
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PrematureChannelClosureException) {
            // the client closed in the middle of a fragmented message: nothing to answer
            counters.messageDropped("ws_incomplete");
            log.debug("{} {}: closed inside a fragmented message", listener, ctx.channel().remoteAddress());
            return;
        }
        String reason = frameError(cause);
        if (reason == null) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        refused(ctx, reason, cause.getMessage());
        if (cause instanceof TooLongFrameException && ctx.channel().isActive()) {
            // fragments adding up past the bound: the decoder passed each one, so the close is sent here
            ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.MESSAGE_TOO_BIG))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            // the WebSocket decoder has sent its close frame (1009 or 1002) already
            ctx.close();
        }
    }

    /** The reason tag of a WebSocket framing failure, or null when {@code cause} is none. */
    static String frameError(Throwable cause) {
        if (cause instanceof CorruptedWebSocketFrameException c) {
            return c.closeStatus() != null && c.closeStatus().code() == WebSocketCloseStatus.MESSAGE_TOO_BIG.code()
                    ? "frame_too_large" : "bad_frame";
        }
        if (cause instanceof TooLongFrameException) {
            return "frame_too_large";
        }
        if (cause instanceof CorruptedFrameException || cause instanceof io.netty.handler.codec.MessageAggregationException) {
            return "bad_frame";
        }
        return null;
    }

    private void refused(ChannelHandlerContext ctx, String reason, String detail) {
        counters.webSocketRefused(reason);
        closeReason.accept("ws_" + reason);
        badInput.warn("ws_" + reason, "{} {}: closing WebSocket, {}: {}", listener, ctx.channel().remoteAddress(), reason, detail);
    }
}
