package org.sipcrypt.server.transport.netty;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.WebSocketLimits;

/**
 * The stages a {@code ws} or {@code wss} connection has where a TCP one has its framer (RFC 7118):
 * the HTTP codec for the upgrade request (headers bounded at 8 KiB, no body), the
 * {@link WebSocketUpgradeCheck}, Netty's WebSocket handshaker and frame codec (subprotocol
 * {@code sip}, any path, masked client frames required, {@code ws.maxFrameBytes} per frame, or {@code sip.maxMessageBytes} when smaller, pings
 * answered, the upgrade due within 10 s), the frame aggregator (fragmented messages, the same bound
 * in all) and the {@link WebSocketSipHandler}, with a reader-idle timer of {@code ws.pingInterval}
 * for its pings. The SIP connection handler follows, as on TCP.
 * Threading: stateless; called from a channel initializer on the channel's event loop.
 */
final class WebSocketStage {

    /** Largest upgrade request (request line and headers); browsers send about 1 KiB. */
    static final int MAX_UPGRADE_BYTES = 8192;
    /** How long a connection may take to send its upgrade request and complete the handshake. */
    static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;

    private WebSocketStage() {
    }

    /**
     * Adds the WebSocket stages at the end of {@code p}.
     *
     * @param maxMessageBytes the bound on one WebSocket message: {@code ws.maxFrameBytes}, or
     *                        {@code sip.maxMessageBytes} when that is smaller
     */
    static void addTo(ChannelPipeline p, WebSocketLimits limits, int maxMessageBytes, TransportCounters counters,
                      String listener, Consumer<String> closeReason) {
        p.addLast("ws-ping", new IdleStateHandler(limits.pingInterval().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
        p.addLast("http", new HttpServerCodec(4096, MAX_UPGRADE_BYTES, 8192));
        p.addLast("http-aggregator", new HttpObjectAggregator(0));
        p.addLast("ws-check", new WebSocketUpgradeCheck(limits, counters, listener, closeReason));
        WebSocketServerProtocolConfig config = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath("/")
                .checkStartsWith(true)
                .subprotocols(WebSocketUpgradeCheck.SUBPROTOCOL)
                .handshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS)
                .handleCloseFrames(true)
                .dropPongFrames(true)
                .decoderConfig(WebSocketDecoderConfig.newBuilder()
                        .maxFramePayloadLength(maxMessageBytes)
                        .expectMaskedFrames(true)
                        .allowMaskMismatch(false)
                        .allowExtensions(false)
                        .closeOnProtocolViolation(true)
                        .withUTF8Validator(true)
                        .build())
                .build();
        p.addLast("ws", new WebSocketServerProtocolHandler(config));
        p.addLast("ws-aggregator", new WebSocketFrameAggregator(maxMessageBytes));
        p.addLast("ws-sip", new WebSocketSipHandler(counters, listener, closeReason));
    }
}
