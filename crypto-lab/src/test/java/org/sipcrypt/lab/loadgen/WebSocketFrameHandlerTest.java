package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.Transport;

/**
 * The WebSocket framing of the lab's ws and wss legs (RFC 7118 §5) in an {@link EmbeddedChannel}
 * with the stream handler above it: a SIP message goes out as one text frame, a text or binary
 * message comes in as one SIP message, control frames carry none, and a seeded fuzz of mangled
 * messages never lets an exception out of the pipeline: each frame gives whole messages or closes
 * that connection, with the listener told.
 * Threading: JUnit's test thread only (the embedded channel's loop).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WebSocketFrameHandlerTest {

    private static final String INVITE = "INVITE sip:lab-uas@lab.test SIP/2.0\r\n"
            + "Via: SIP/2.0/WS 127.0.0.1:40000;branch=z9hG4bK-1\r\nFrom: <sip:a@lab.test>;tag=1\r\n"
            + "To: <sip:lab-uas@lab.test>\r\nCall-ID: call-1\r\nCSeq: 1 INVITE\r\nContent-Length: 4\r\n\r\nv=0\n";

    /** What the stream handler handed up or said on one channel. */
    private static final class Heard implements StreamConnection.Listener {
        final List<SipMessage> messages = new ArrayList<>();
        String closed;

        @Override
        public void message(StreamConnection from, SipMessage message) {
            messages.add(message);
        }

        @Override
        public void closed(StreamConnection connection, String reason) {
            closed = reason;
        }
    }

    private static EmbeddedChannel channel(Heard heard) {
        EmbeddedChannel ch = new EmbeddedChannel();
        StreamConnection c = new StreamConnection(ch, Transport.WS);
        ch.pipeline().addLast(WebSocketFrameHandler.INSTANCE);
        ch.pipeline().addLast(new SipStreamHandler(c, false, true, null, new LegCounters(), heard,
                new CompletableFuture<>()));
        return ch;
    }

    @Test
    void aMessageSentIsOneTextFrame() {
        EmbeddedChannel ch = new EmbeddedChannel(WebSocketFrameHandler.INSTANCE);
        assertTrue(ch.writeOutbound(Unpooled.copiedBuffer(INVITE, StandardCharsets.UTF_8)));
        TextWebSocketFrame f = assertInstanceOf(TextWebSocketFrame.class, ch.readOutbound());
        assertEquals(INVITE, f.text());
        f.release();
        assertFalse(ch.finish());
    }

    @Test
    void aTextOrBinaryMessageReadIsOneSipMessageAndAPingNone() {
        Heard heard = new Heard();
        EmbeddedChannel ch = channel(heard);
        ch.writeInbound(new TextWebSocketFrame(INVITE));
        ch.writeInbound(new PingWebSocketFrame(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII)));
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.copiedBuffer(INVITE.replace("call-1", "call-2"),
                StandardCharsets.UTF_8)));
        assertEquals(List.of("call-1", "call-2"), heard.messages.stream().map(SipMessage::callId).toList());
        assertEquals("v=0\n", heard.messages.get(0).body());
        assertTrue(ch.isOpen());
        ch.finishAndReleaseAll();
    }

    @Test
    void aMessageWithoutAUsableContentLengthClosesThatConnection() {
        Heard heard = new Heard();
        EmbeddedChannel ch = channel(heard);
        ch.writeInbound(new TextWebSocketFrame(INVITE.replace("Content-Length: 4", "Content-Length: x")));
        assertFalse(ch.isOpen());
        assertTrue(heard.closed.startsWith("framing: bad Content-Length"), heard.closed);
        assertTrue(heard.messages.isEmpty());
    }

    /**
     * 3,000 frames, seeded: the INVITE with bytes changed, cut, repeated or inserted. No input lets an
     * exception out; every frame either leaves the connection open or closes it with the listener told why.
     */
    @Test
    void mangledMessagesNeverEscapeThePipeline() {
        Random random = new Random(7118);
        byte[] base = INVITE.getBytes(StandardCharsets.UTF_8);
        int delivered = 0;
        int closed = 0;
        for (int i = 0; i < 3000; i++) {
            byte[] b = mangle(base, random);
            Heard heard = new Heard();
            EmbeddedChannel ch = channel(heard);
            ByteBuf content = Unpooled.wrappedBuffer(b);
            ch.writeInbound(random.nextBoolean() ? new BinaryWebSocketFrame(content) : new TextWebSocketFrame(content));
            ch.checkException();
            delivered += heard.messages.size();
            if (!ch.isOpen()) {
                closed++;
                assertTrue(heard.closed != null, "the listener heard of the close: input " + i);
            }
            ch.finishAndReleaseAll();
        }
        assertTrue(delivered > 0 && closed > 0, "both outcomes reached: " + delivered + " delivered, " + closed + " closed");
    }

    private static byte[] mangle(byte[] base, Random random) {
        byte[] b = base.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                for (int k = random.nextInt(4); k >= 0; k--) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length + 1));
            case 2 -> {
                byte[] twice = new byte[b.length * 2];
                System.arraycopy(b, 0, twice, 0, b.length);
                System.arraycopy(b, 0, twice, b.length, b.length);
                b = twice;
            }
            default -> {
                int at = random.nextInt(b.length);
                byte[] more = new byte[b.length + 1];
                System.arraycopy(b, 0, more, 0, at);
                more[at] = (byte) random.nextInt(256);
                System.arraycopy(b, at, more, at + 1, b.length - at);
                b = more;
            }
        }
        return b;
    }
}
