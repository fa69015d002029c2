package org.sipcrypt.lab.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.util.List;

/**
 * The WebSocket framing of a lab stream connection (RFC 7118 §5): each SIP message the connection
 * sends goes out as one text frame, and each whole text or binary message read (continuations
 * already joined by Netty's frame aggregator before it) is passed up as its bytes, for the same
 * Content-Length framer as TCP and TLS ({@link SipStreamHandler}). That reading is lenient where
 * RFC 7118 is strict: a SIP message cut over two WebSocket messages is joined, and two in one are
 * both taken (the server under test sends one per message); a message without a usable
 * Content-Length closes the connection as on TCP. Control frames are the protocol handler's (it
 * answers pings).
 * Threading: stateless and @Sharable; event loop only.
 */
@ChannelHandler.Sharable
final class WebSocketFrameHandler extends MessageToMessageCodec<WebSocketFrame, ByteBuf> {

    static final WebSocketFrameHandler INSTANCE = new WebSocketFrameHandler();

    private WebSocketFrameHandler() {
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, List<Object> out) {
        out.add(new TextWebSocketFrame(msg.retain()));
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, WebSocketFrame msg, List<Object> out) {
        if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
            out.add(msg.content().retain());
        }
    }
}
