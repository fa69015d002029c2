package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stream delay stage in an {@link EmbeddedChannel} on the real clock: order kept both ways,
 * nothing released before the delay, a close behind the writes before it, a connection this side
 * opens reported open after a round trip, and the bound on what is held.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OneWayDelayHandlerTest {

    private static final Duration D = Duration.ofMillis(40);

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    /** Runs the channel's tasks until {@code done} holds, polling against a deadline. */
    private static void runUntil(EmbeddedChannel ch, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not done within 20 s");
            ch.runPendingTasks();
            ch.runScheduledPendingTasks();
            Thread.sleep(2);
        }
    }

    /** Records what reaches the top of the pipeline. */
    private static final class Top extends ChannelInboundHandlerAdapter {
        final List<String> reads = new ArrayList<>();
        long activeNanos;
        long firstReadNanos;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            activeNanos = System.nanoTime();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (reads.isEmpty()) {
                firstReadNanos = System.nanoTime();
            }
            ByteBuf b = (ByteBuf) msg;
            reads.add(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
    }

    @Test
    void writesLeaveInOrderAfterTheDelayAndACloseWaitsBehindThem() throws Exception {
        Top top = new Top();
        EmbeddedChannel ch = new EmbeddedChannel(new OneWayDelayHandler(D, false, new LegCounters()), top);
        long start = System.nanoTime();
        List<ChannelFuture> writes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            writes.add(ch.writeAndFlush(text("w" + i)));
        }
        // through the pipeline: EmbeddedChannel's own close() cancels the scheduled tasks
        ChannelFuture closed = ch.pipeline().close();
        assertNull(ch.readOutbound(), "nothing leaves at once");
        assertTrue(ch.isOpen(), "the close waits behind the writes");
        List<String> out = new ArrayList<>();
        runUntil(ch, () -> {
            ByteBuf b;
            while ((b = ch.readOutbound()) != null) {
                out.add(b.toString(StandardCharsets.US_ASCII));
                b.release();
            }
            return !ch.isOpen();
        });
        assertTrue(System.nanoTime() - start >= D.toNanos(), "held for the delay");
        assertEquals(List.of("w0", "w1", "w2", "w3", "w4"), out, "every write out, in order, before the close");
        assertTrue(writes.stream().allMatch(ChannelFuture::isSuccess));
        assertTrue(closed.isSuccess());
    }

    @Test
    void readsArePassedUpInOrderNotBeforeTheAcceptedPeersFirstBytesCouldArrive() throws Exception {
        Top top = new Top();
        long accepted = System.nanoTime();
        EmbeddedChannel ch = new EmbeddedChannel(new OneWayDelayHandler(D, false, new LegCounters()), top);
        for (int i = 0; i < 5; i++) {
            ch.writeInbound(text("r" + i));
        }
        assertTrue(top.reads.isEmpty(), "nothing passed up at once");
        runUntil(ch, () -> top.reads.size() == 5);
        assertEquals(List.of("r0", "r1", "r2", "r3", "r4"), top.reads);
        // SYN in, SYN-ACK out, the first bytes in
        assertTrue(top.firstReadNanos - accepted >= 3 * D.toNanos(), "first read after "
                + (top.firstReadNanos - accepted) / 1e6 + " ms");
        ch.finishAndReleaseAll();
    }

    @Test
    void aConnectionThisSideOpensIsReportedOpenAfterOneRoundTrip() throws Exception {
        Top top = new Top();
        long connected = System.nanoTime();
        EmbeddedChannel ch = new EmbeddedChannel(new OneWayDelayHandler(D, true, new LegCounters()), top);
        assertEquals(0, top.activeNanos, "not yet open for the stages above");
        runUntil(ch, () -> top.activeNanos != 0);
        assertTrue(top.activeNanos - connected >= 2 * D.toNanos(), "open after " + (top.activeNanos - connected) / 1e6 + " ms");
        ch.finishAndReleaseAll();
    }

    @Test
    void aWritePastTheBoundFailsAndClosesTheConnection() throws Exception {
        List<Throwable> caught = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(new OneWayDelayHandler(D, false, new LegCounters()), new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                caught.add(cause);
                ctx.close();
            }
        });
        ChannelFuture small = ch.writeAndFlush(text("first"));
        ByteBuf big = Unpooled.buffer(OneWayDelayHandler.MAX_HELD_BYTES).writeZero(OneWayDelayHandler.MAX_HELD_BYTES);
        ChannelFuture tooMuch = ch.writeAndFlush(big);
        assertTrue(tooMuch.isDone() && !tooMuch.isSuccess(), "the write past the bound fails at once");
        assertEquals(0, big.refCnt(), "and its bytes are released");
        assertEquals(1, caught.size());
        runUntil(ch, () -> !ch.isOpen());
        assertTrue(small.isSuccess(), "the write before it still went out, before the close");
        ByteBuf first = ch.readOutbound();
        assertEquals("first", first.toString(StandardCharsets.US_ASCII));
        first.release();
        assertFalse(ch.finishAndReleaseAll());
    }
}
