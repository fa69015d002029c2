package org.sipcrypt.server.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one HTTP request per connection from {@link HttpEndpoints}, then closes it. A request
 * the codec could not read gets 431 (line or headers too long) or 400; the answer to
 * {@code /health}, which completes on the health thread, is written back on the event loop.
 * Threading: one instance per connection, event loop only (not @Sharable).
 */
final class HttpEndpointHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger log = LoggerFactory.getLogger(HttpEndpointHandler.class);

    private final HttpEndpoints endpoints;
    private boolean answered;

    HttpEndpointHandler(HttpEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (answered) {
            return;
        }
        answered = true;
        if (request.decoderResult().isFailure()) {
            boolean tooLong = request.decoderResult().cause() instanceof TooLongFrameException;
            write(ctx, new HttpEndpoints.Answer(tooLong ? 431 : 400, "text/plain; charset=utf-8",
                    tooLong ? "request line or headers too long (http.maxRequestBytes)\n" : "bad request\n", null));
            return;
        }
        byte[] body = new byte[request.content().readableBytes()];
        request.content().getBytes(request.content().readerIndex(), body);
        endpoints.answer(request.method().name(), request.uri(), request.headers().get(HttpHeaderNames.AUTHORIZATION),
                body, String.valueOf(ctx.channel().remoteAddress())).whenComplete((answer, e) ->
                ctx.channel().eventLoop().execute(() -> {
                    if (e != null) {
                        log.warn("http {}: {} failed: {}", ctx.channel().remoteAddress(), request.uri(), e.toString());
                        write(ctx, new HttpEndpoints.Answer(500, "text/plain; charset=utf-8", "internal error\n", null));
                    } else {
                        write(ctx, answer);
                    }
                }));
    }

    private static void write(ChannelHandlerContext ctx, HttpEndpoints.Answer answer) {
        assert ctx.channel().eventLoop().inEventLoop();
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        if (answer.allow() != null) {
            response.headers().set(HttpHeaderNames.ALLOW, answer.allow());
        }
        if (answer.wwwAuthenticate() != null) {
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, answer.wwwAuthenticate());
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            log.debug("http {}: closed, idle (http.idleTimeout)", ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("http {}: closed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
