package org.sipcrypt.server.transport.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.WebSocketLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the HTTP request that opens a SIP WebSocket before Netty's handshaker answers it: a
 * WebSocket upgrade ({@code GET} with {@code Upgrade: websocket}, else 400), offering the {@code sip}
 * subprotocol (RFC 7118 §4.1: a server must not accept a SIP WebSocket without it; else 400),
 * from an origin {@code ws.allowedOrigins} accepts (RFC 6455 §10.2; else 403). A refused request
 * gets its status with {@code Connection: close}, is counted as {@code transport.ws.refused{reason}}
 * and closes that connection only. Once the upgrade has succeeded the pipeline no longer holds it.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class WebSocketUpgradeCheck extends ChannelInboundHandlerAdapter {

    /** The subprotocol of SIP over WebSocket (RFC 7118 §4.1, IANA WebSocket Subprotocol Name Registry). */
    static final String SUBPROTOCOL = "sip";

    private static final Logger log = LoggerFactory.getLogger(WebSocketUpgradeCheck.class);
    private static final RateLimitedLog refusals = new RateLimitedLog(log);

    private final WebSocketLimits limits;
    private final TransportCounters counters;
    private final String listener;
    private final java.util.function.Consumer<String> closeReason;

    /**
     * @param listener    the listener, for the log ({@code ws:127.0.0.1:8080})
     * @param closeReason told why the connection closes when a request is refused
     */
    WebSocketUpgradeCheck(WebSocketLimits limits, TransportCounters counters, String listener,
                          java.util.function.Consumer<String> closeReason) {
        this.limits = limits;
        this.counters = counters;
        this.listener = listener;
        this.closeReason = closeReason;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            if (msg instanceof HttpObject) {
                // a request the aggregator could not complete (too large, or not HTTP at all)
                ReferenceCountUtil.release(msg);
                refuse(ctx, HttpResponseStatus.BAD_REQUEST, "not_websocket", "not an HTTP request");
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        String reason = problem(request);
        if (reason == null) {
            ctx.fireChannelRead(msg);
            return;
        }
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        ReferenceCountUtil.release(msg);
        switch (reason) {
            case "origin" -> refuse(ctx, HttpResponseStatus.FORBIDDEN, reason, "origin " + origin + " is not in ws.allowedOrigins");
            case "subprotocol" -> refuse(ctx, HttpResponseStatus.BAD_REQUEST, reason, "no \"sip\" subprotocol offered (RFC 7118 §4.1)");
            default -> refuse(ctx, HttpResponseStatus.BAD_REQUEST, reason, "not a WebSocket upgrade");
        }
    }

    /**
     * What is wrong with an upgrade request, as the {@code reason} tag, or null when it may proceed:
     * {@code not_websocket}, {@code subprotocol} or {@code origin}.
     */
    String problem(FullHttpRequest request) {
        if (!request.decoderResult().isSuccess() || !HttpMethod.GET.equals(request.method())
                || !request.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
                || !request.headers().contains(HttpHeaderNames.SEC_WEBSOCKET_KEY)) {
            return "not_websocket";
        }
        if (!offersSip(request.headers().getAll(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL))) {
            return "subprotocol";
        }
        if (!limits.originAllowed(request.headers().get(HttpHeaderNames.ORIGIN))) {
            return "origin";
        }
        return null;
    }

    /** Whether the {@code Sec-WebSocket-Protocol} values list {@code sip} (RFC 6455 §11.3.4: comma-separated tokens). */
    static boolean offersSip(java.util.List<String> values) {
        for (String v : values) {
            for (String token : v.split(",")) {
                if (token.trim().equals(SUBPROTOCOL)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String reason, String detail) {
        counters.webSocketRefused(reason);
        closeReason.accept("ws_" + reason);
        refusals.warn("ws_" + reason, "{} {}: refused WebSocket upgrade: {}", listener, ctx.channel().remoteAddress(), detail);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(detail + "\r\n", StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
