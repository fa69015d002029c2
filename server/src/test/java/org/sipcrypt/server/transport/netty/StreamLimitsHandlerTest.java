package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.PartialMessages;
import org.sipcrypt.server.transport.StreamLimits;

/** The flood deadlines and the partial-bytes bound on one pipeline, with the event loop's clock frozen and advanced. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StreamLimitsHandlerTest {

    private static final String OPTIONS = "OPTIONS sip:127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.1:5999;branch=z9hG4bK-1\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:a@127.0.0.1>;tag=1\r\n"
            + "To: <sip:127.0.0.1>\r\n"
            + "Call-ID: limits-1\r\n"
            + "CSeq: 1 OPTIONS\r\n"
            + "Content-Length: 0\r\n\r\n";

    private final List<String> reasons = new ArrayList<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final PartialMessages partials = new PartialMessages(1 << 20);

    @AfterEach
    void closeChannels() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    private static StreamLimits limits(Duration firstMessage, Duration message) {
        return new StreamLimits(10, a -> false, firstMessage, message, 1 << 20);
    }

    /** An active connection: this stage in front of a framer of {@code maxMessageBytes}, time frozen. */
    private EmbeddedChannel channel(StreamLimits limits, PartialMessages partials, boolean inbound, int maxMessageBytes) {
        SipStreamFramer framer = new SipStreamFramer(maxMessageBytes);
        EmbeddedChannel ch = new EmbeddedChannel(false, false,
                new StreamLimitsHandler(limits, partials, framer, reasons::add, inbound, false), framer);
        ch.freezeTime();
        try {
            ch.register();
        } catch (Exception e) {
            throw new AssertionError("cannot register the embedded channel", e);
        }
        channels.add(ch);
        return ch;
    }

    /** An active connection sharing {@link #partials}, in front of a framer of 4096 bytes, time frozen. */
    private EmbeddedChannel channel(Duration firstMessage, Duration message, boolean inbound) {
        return channel(limits(firstMessage, message), partials, inbound, 4096);
    }

    private static void write(EmbeddedChannel ch, String text) {
        ch.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
    }

    private static void advance(EmbeddedChannel ch, long millis) {
        ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        ch.runPendingTasks();
    }

    /**
     * The channel is still open {@code millis - 1} ms from now and closed at {@code millis}, for
     * {@code reason} alone.
     */
    private void assertClosesAfter(EmbeddedChannel ch, long millis, String reason, String deadline) {
        advance(ch, millis - 1);
        assertTrue(ch.isOpen(), "closed before " + deadline);
        advance(ch, 1);
        assertFalse(ch.isOpen());
        assertEquals(List.of(reason), reasons);
    }

    @Test
    void aMessageInTwoReadsIsHeldUntilComplete() {
        EmbeddedChannel ch = channel(Duration.ofHours(1), Duration.ofSeconds(10), true);
        write(ch, OPTIONS.substring(0, 100));
        assertEquals(100, partials.heldBytes());
        assertNull(ch.readInbound());
        write(ch, OPTIONS.substring(100));
        assertEquals(0, partials.heldBytes());
        assertInstanceOf(SipFrame.Message.class, ch.readInbound());
    }

    @Test
    void aMessageIncompleteAtItsDeadlineClosesTheConnection() {
        EmbeddedChannel ch = channel(Duration.ofHours(1), Duration.ofSeconds(1), true);
        write(ch, OPTIONS.substring(0, 10));
        advance(ch, 500);
        write(ch, OPTIONS.substring(10, 20));
        assertClosesAfter(ch, 500, "message_timeout", "the deadline");
        assertEquals(0, partials.heldBytes());
    }

    @Test
    void aMessageBegunAfterAnotherGetsItsOwnFullDeadline() {
        EmbeddedChannel ch = channel(Duration.ofHours(1), Duration.ofSeconds(1), true);
        write(ch, OPTIONS.substring(0, 10));
        advance(ch, 600);
        // the first completes and the second begins in the same read
        write(ch, OPTIONS.substring(10) + OPTIONS.substring(0, 10));
        assertInstanceOf(SipFrame.Message.class, ch.readInbound());
        advance(ch, 400);
        assertTrue(ch.isOpen(), "the second message was timed from the first one's first byte");
        assertClosesAfter(ch, 600, "message_timeout", "the second message's deadline");
    }

    @Test
    void keepAlivesNeitherStartADeadlineNorCountAsTheFirstMessage() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(2), Duration.ofSeconds(1), true);
        write(ch, "\r\n\r\n");
        write(ch, "\r\n");
        assertEquals(0, partials.heldBytes());
        assertClosesAfter(ch, 2000, "first_message_timeout", "the first-message deadline");
    }

    @Test
    void aCompleteFirstMessageEndsTheFirstMessageDeadline() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(2), Duration.ofSeconds(1), true);
        write(ch, OPTIONS);
        advance(ch, 60_000);
        assertTrue(ch.isOpen());
        assertTrue(reasons.isEmpty(), reasons.toString());
    }

    @Test
    void outboundConnectionsHaveNoFirstMessageDeadline() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(2), Duration.ofSeconds(1), false);
        advance(ch, 60_000);
        assertTrue(ch.isOpen());
    }

    @Test
    void beyondTheGlobalBoundTheConnectionWithTheOldestMessageIsClosed() {
        PartialMessages bounded = new PartialMessages(2048);
        StreamLimits limits = limits(Duration.ofHours(1), Duration.ofHours(1));
        EmbeddedChannel oldest = channel(limits, bounded, true, 1024);
        EmbeddedChannel middle = channel(limits, bounded, true, 1024);
        EmbeddedChannel newest = channel(limits, bounded, true, 1024);
        String pad = "X-Pad: " + "p".repeat(800) + "\r\n";
        String message = OPTIONS.replace("Content-Length: 0", pad + "Content-Length: 0");
        String head = message.substring(0, 900);
        write(oldest, head);
        write(middle, head);
        write(newest, head);
        oldest.runPendingTasks();
        assertFalse(oldest.isOpen());
        assertEquals(List.of("partial_bytes"), reasons);
        assertEquals(1800, bounded.heldBytes());
        write(middle, message.substring(900));
        write(newest, message.substring(900));
        assertInstanceOf(SipFrame.Message.class, middle.readInbound());
        assertInstanceOf(SipFrame.Message.class, newest.readInbound());
        assertEquals(0, bounded.heldBytes());
    }
}
