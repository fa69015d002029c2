package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.WebSocketLimits;

/**
 * The WebSocket stages of a {@code ws}/{@code wss} connection on an {@link EmbeddedChannel}: one
 * SIP message per WebSocket message, answers in the kind of frame the client sent, pings when the
 * client is silent, and the upgrade checks (subprotocol {@code sip}, Origin allow-list) with their
 * counts.
 * Threading: JUnit's test thread only.
 */
class WebSocketSipHandlerTest {

    private static final String OPTIONS = "OPTIONS sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/WS a.invalid;branch=z9hG4bK1\r\n"
            + "From: <sip:a@a.invalid>;tag=1\r\nTo: <sip:127.0.0.1>\r\nCall-ID: 1\r\nCSeq: 1 OPTIONS\r\n"
            + "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TransportCounters counters = new TransportCounters(registry);
    private final List<String> reasons = new ArrayList<>();

    private EmbeddedChannel sipChannel() {
        return new EmbeddedChannel(new WebSocketSipHandler(counters, "ws:127.0.0.1:8080", reasons::add));
    }

    @Test
    void textMessageIsOneSipMessageAndAnswersGoBackAsText() {
        EmbeddedChannel ch = sipChannel();
        ch.writeInbound(new TextWebSocketFrame(OPTIONS));
        SipFrame.Message m = assertInstanceOf(SipFrame.Message.class, ch.readInbound());
        assertArrayEquals(OPTIONS.getBytes(StandardCharsets.UTF_8), m.bytes());
        ch.writeOutbound(Unpooled.copiedBuffer("SIP/2.0 200 OK\r\n\r\n", StandardCharsets.US_ASCII));
        TextWebSocketFrame answer = assertInstanceOf(TextWebSocketFrame.class, ch.readOutbound());
        assertEquals("SIP/2.0 200 OK\r\n\r\n", answer.text());
        answer.release();
        assertFalse(ch.finishAndReleaseAll());
    }

    @Test
    void binaryMessageIsAnsweredInBinary() {
        EmbeddedChannel ch = sipChannel();
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.copiedBuffer(OPTIONS, StandardCharsets.UTF_8)));
        assertInstanceOf(SipFrame.Message.class, ch.readInbound());
        ch.writeOutbound(Unpooled.copiedBuffer("SIP/2.0 200 OK\r\n\r\n", StandardCharsets.US_ASCII));
        WebSocketFrame answer = ch.readOutbound();
        assertInstanceOf(BinaryWebSocketFrame.class, answer);
        answer.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void crlfMessagesAreKeepAlivesAndEmptyOnesAreCountedDrops() {
        EmbeddedChannel ch = sipChannel();
        ch.writeInbound(new TextWebSocketFrame("\r\n\r\n"));
        assertTrue(assertInstanceOf(SipFrame.KeepAlive.class, ch.readInbound()).ping());
        ch.writeInbound(new TextWebSocketFrame("\r\n"));
        assertFalse(assertInstanceOf(SipFrame.KeepAlive.class, ch.readInbound()).ping());
        ch.writeInbound(new TextWebSocketFrame(""));
        assertNull(ch.readInbound());
        assertEquals(1, counters.value("sip.messages.dropped", "reason", "ws_empty"));
        ch.finishAndReleaseAll();
    }

    @Test
    void silentClientGetsAPingThenIsClosed() {
        EmbeddedChannel ch = sipChannel();
        ch.pipeline().fireUserEventTriggered(new WebSocketServerProtocolHandler.HandshakeComplete("/",
                new io.netty.handler.codec.http.DefaultHttpHeaders(), "sip"));
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        WebSocketFrame ping = ch.readOutbound();
        assertInstanceOf(PingWebSocketFrame.class, ping);
        ping.release();
        assertTrue(ch.isOpen());
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertFalse(ch.isOpen());
        assertEquals(List.of("ws_ping_timeout"), reasons);
        assertEquals(1, counters.value("transport.ws.refused", "reason", "ping_timeout"));
    }

    @Test
    void connectionWithoutUpgradeRequestIsClosedAfterOneInterval() {
        EmbeddedChannel ch = sipChannel();
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        assertNull(ch.readOutbound());
        assertFalse(ch.isOpen());
        assertEquals(1, counters.value("transport.ws.refused", "reason", "handshake_timeout"));
    }

    @Test
    void upgradeChecksSubprotocolAndOrigin() {
        WebSocketLimits limits = new WebSocketLimits(4096, java.time.Duration.ofSeconds(30),
                List.of("https://phone.example.test"));
        WebSocketUpgradeCheck check = new WebSocketUpgradeCheck(limits, counters, "ws:127.0.0.1:8080", reasons::add);
        assertNull(check.problem(upgrade("sip", null)));
        assertNull(check.problem(upgrade("xmpp, sip", "https://PHONE.example.test")));
        assertEquals("subprotocol", check.problem(upgrade(null, null)));
        assertEquals("subprotocol", check.problem(upgrade("sips", null)));
        assertEquals("origin", check.problem(upgrade("sip", "https://elsewhere.example.test")));
        FullHttpRequest plain = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        assertEquals("not_websocket", check.problem(plain));
        plain.release();
    }

    @Test
    void refusedUpgradeIsAnsweredCountedAndClosed() {
        WebSocketUpgradeCheck check = new WebSocketUpgradeCheck(WebSocketLimits.defaults(), counters,
                "ws:127.0.0.1:8080", reasons::add);
        EmbeddedChannel ch = new EmbeddedChannel(check);
        ch.writeInbound(upgrade("sip", "https://phone.example.test"));
        FullHttpResponse response = ch.readOutbound();
        assertEquals(403, response.status().code());
        response.release();
        assertFalse(ch.isOpen());
        assertEquals(List.of("ws_origin"), reasons);
        assertEquals(1, counters.value("transport.ws.refused", "reason", "origin"));
    }

    private static FullHttpRequest upgrade(String protocols, String origin) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        r.headers().set("Host", "127.0.0.1:8080").set("Upgrade", "websocket").set("Connection", "Upgrade")
                .set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==").set("Sec-WebSocket-Version", "13");
        if (protocols != null) {
            r.headers().set("Sec-WebSocket-Protocol", protocols);
        }
        if (origin != null) {
            r.headers().set("Origin", origin);
        }
        return r;
    }

    static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }
}
