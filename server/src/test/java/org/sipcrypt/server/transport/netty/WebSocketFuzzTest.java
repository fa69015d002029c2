package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.WebSocketLimits;

/**
 * Seeded fuzzing of what a WebSocket client controls: random and mutated frame bytes through the
 * WebSocket decoder, aggregator and {@link WebSocketSipHandler} with the bounds the listeners use,
 * and random {@code Origin} texts through {@link WebSocketLimits#origin}. Nothing may escape the
 * pipeline, a connection ends either open or closed with a counted reason, nothing longer than the
 * bound comes out as a SIP message, and an origin read back reads the same.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketFuzzTest {

    private static final long SEED = 0x5157_7e57L;
    private static final int CASES = 2000;
    private static final int MAX_FRAME_BYTES = 1024;

    @Test
    void randomFramesNeverEscapeThePipeline() {
        Random random = new Random(SEED);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TransportCounters counters = new TransportCounters(registry);
        int closed = 0;
        for (int i = 0; i < CASES; i++) {
            List<String> reasons = new ArrayList<>();
            EmbeddedChannel ch = new EmbeddedChannel(
                    new WebSocket08FrameDecoder(WebSocketDecoderConfig.newBuilder().maxFramePayloadLength(MAX_FRAME_BYTES)
                            .expectMaskedFrames(true).allowExtensions(false).closeOnProtocolViolation(true).build()),
                    new WebSocketFrameAggregator(MAX_FRAME_BYTES),
                    new WebSocketSipHandler(counters, "ws:127.0.0.1:8080", reasons::add));
            byte[] input = random.nextInt(3) == 0 ? randomBytes(random) : mutatedFrame(random);
            ch.writeInbound(Unpooled.wrappedBuffer(input));
            Object out;
            while ((out = ch.readInbound()) != null) {
                if (out instanceof SipFrame.Message m) {
                    assertTrue(m.bytes().length <= MAX_FRAME_BYTES, "case " + i + ": " + m.bytes().length + " bytes");
                }
                ReferenceCountUtil.release(out);
            }
            ch.checkException();
            if (!ch.isOpen()) {
                closed++;
            }
            ch.finishAndReleaseAll();
        }
        double counted = registry.find("transport.ws.refused").counters().stream().mapToDouble(c -> c.count()).sum();
        assertTrue(closed > 0 && counted > 0, "some inputs are refused: " + closed + " closed, " + counted + " counted");
    }

    @Test
    void originsReadBackTheSame() {
        Random random = new Random(SEED);
        String alphabet = "httpsHTTPS:/.?#@[]-_0123456789abcxyz%";
        int parsed = 0;
        for (int i = 0; i < CASES; i++) {
            StringBuilder sb = new StringBuilder(random.nextBoolean() ? "https://" : "");
            int n = random.nextInt(30);
            for (int j = 0; j < n; j++) {
                sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String origin = WebSocketLimits.origin(sb.toString());
            if (origin != null) {
                parsed++;
                assertEquals(origin, WebSocketLimits.origin(origin), sb.toString());
            }
        }
        assertTrue(parsed > 0, "some generated texts are origins");
    }

    private static byte[] randomBytes(Random random) {
        byte[] b = new byte[random.nextInt(64)];
        random.nextBytes(b);
        return b;
    }

    /** A well-formed masked text or binary frame, then some of its bytes changed or cut. */
    private static byte[] mutatedFrame(Random random) {
        int length = random.nextInt(random.nextInt(8) == 0 ? 4 * MAX_FRAME_BYTES : 200);
        byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (random.nextBoolean() ? 'A' + random.nextInt(26) : random.nextInt(256));
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write((random.nextBoolean() ? 0x80 : 0x00) | (random.nextBoolean() ? 0x1 : 0x2));
        if (length < 126) {
            out.write(0x80 | length);
        } else {
            out.write(0x80 | 126);
            out.write(length >>> 8);
            out.write(length & 0xff);
        }
        byte[] mask = new byte[4];
        random.nextBytes(mask);
        out.writeBytes(mask);
        for (int i = 0; i < length; i++) {
            out.write(payload[i] ^ mask[i % 4]);
        }
        byte[] frame = out.toByteArray();
        int changes = random.nextInt(3);
        for (int i = 0; i < changes; i++) {
            frame[random.nextInt(frame.length)] = (byte) random.nextInt(256);
        }
        return random.nextInt(4) == 0 ? java.util.Arrays.copyOf(frame, random.nextInt(frame.length + 1)) : frame;
    }
}
