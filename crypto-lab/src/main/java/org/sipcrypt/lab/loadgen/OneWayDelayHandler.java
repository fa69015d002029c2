package org.sipcrypt.lab.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The lab delay stage of a stream connection, at the socket end of its pipeline (below TLS, so
 * handshake flights wait too): each write's bytes are held for the one-way delay D before they go
 * to the socket, and each chunk read is held for D before it is passed up, so the connection's
 * round trip grows by 2·D as over a network with D each way. TCP's own handshake is counted too: a
 * connection this side opens is reported open 2·D after the kernel's connect (SYN out, SYN-ACK
 * back), and on one it accepts nothing is passed up before 3·D after the accept (SYN in, SYN-ACK out,
 * the peer's first bytes in). Order is kept in each direction; a close waits behind the writes
 * before it and is itself held for D. A close by the peer is passed up when it comes, after the reads
 * still held, which are passed up at once: Netty takes the pipeline down right after it.
 * Memory is bounded per direction by {@link #MAX_HELD_BYTES}: above it, reading stops (the kernel's
 * receive window then holds the peer back, as TCP's flow control does) until half of it has been
 * passed up, and a write that would pass it fails and closes the connection, which the call then
 * fails on. Below the bound what is held is what crossed the socket in the last D. The round trips
 * waited for are counted ({@link LegCounters#delayedRoundTrips()}).
 * Threading: one instance per channel, event loop only (not @Sharable); never blocks, holds by
 * scheduling on the channel's event loop.
 */
final class OneWayDelayHandler extends ChannelDuplexHandler {

    /** Bytes held at most per direction of one connection. */
    static final int MAX_HELD_BYTES = 4 << 20;

    private final long delayNanos;
    private final boolean opening;
    private final ArrayDeque<Held> out = new ArrayDeque<>();
    private final ArrayDeque<Held> in = new ArrayDeque<>();
    private long outBytes;
    private long inBytes;
    private long lastOutDue;
    private long lastInDue;
    private ScheduledFuture<?> outTask;
    private ScheduledFuture<?> inTask;
    private boolean readsPaused;
    /** Whether a write left since the last read was passed up: the next read ends a round trip. */
    private boolean awaitingAnswer;
    private final LegCounters counters;

    /** One write (msg with its promise), one read (msg), a close (no msg) or the connect (no msg, in). */
    private record Held(long due, Object msg, ChannelPromise promise, int bytes) {
    }

    /**
     * @param delay   the one-way delay D, more than zero
     * @param opening whether this side opens the connection (else it accepted it)
     * @param counters where the round trips waited for are counted ({@link LegCounters#delayedRoundTrips()})
     */
    OneWayDelayHandler(Duration delay, boolean opening, LegCounters counters) {
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay: " + delay + " (expected more than 0)");
        }
        this.delayNanos = delay.toNanos();
        this.opening = opening;
        this.counters = counters;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        long now = System.nanoTime();
        if (opening) {
            // the upper stages (TLS, the SIP handler) see the connection when SYN and SYN-ACK have crossed
            lastInDue = now + 2 * delayNanos;
            hold(ctx, new Held(lastInDue, null, null, 0));
        } else {
            // the peer sends its first bytes when the SYN-ACK reaches it, D after the accept; they take D more
            lastInDue = now + 3 * delayNanos;
            ctx.fireChannelActive();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        int n = msg instanceof ByteBuf b ? b.readableBytes() : 0;
        lastInDue = Math.max(System.nanoTime() + delayNanos, lastInDue);
        inBytes += n;
        hold(ctx, new Held(lastInDue, msg, null, n));
        if (inBytes > MAX_HELD_BYTES && !readsPaused) {
            readsPaused = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // passed up with each batch of held reads
    }

    private void hold(ChannelHandlerContext ctx, Held h) {
        in.add(h);
        if (inTask == null) {
            inTask = ctx.executor().schedule(() -> releaseIn(ctx), h.due - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
    }

    private void releaseIn(ChannelHandlerContext ctx) {
        inTask = null;
        long now = System.nanoTime();
        boolean read = false;
        Held h;
        while ((h = in.peek()) != null && h.due <= now) {
            in.poll();
            if (h.msg == null) {
                counters.delayedRoundTrips.increment();
                ctx.fireChannelActive();
            } else {
                inBytes -= h.bytes;
                read = true;
                if (awaitingAnswer) {
                    awaitingAnswer = false;
                    counters.delayedRoundTrips.increment();
                }
                ctx.fireChannelRead(h.msg);
            }
        }
        if (read) {
            ctx.fireChannelReadComplete();
        }
        if (readsPaused && inBytes <= MAX_HELD_BYTES / 2) {
            readsPaused = false;
            ctx.channel().config().setAutoRead(true);
        }
        if (h != null) {
            inTask = ctx.executor().schedule(() -> releaseIn(ctx), h.due - now, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // Netty removes the handlers right after this event: what is still held in goes up now, in order
        cancel();
        boolean read = false;
        Held h;
        while ((h = in.poll()) != null) {
            if (h.msg == null) {
                ctx.fireChannelActive();
            } else {
                read = true;
                ctx.fireChannelRead(h.msg);
            }
        }
        inBytes = 0;
        if (read) {
            ctx.fireChannelReadComplete();
        }
        failWrites(new IOException("connection closed with " + out.size() + " writes still in the delay stage"));
        ctx.fireChannelInactive();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        int n = msg instanceof ByteBuf b ? b.readableBytes() : 0;
        if (outBytes + n > MAX_HELD_BYTES) {
            ReferenceCountUtil.release(msg);
            IOException full = new IOException("the delay stage holds more than " + MAX_HELD_BYTES
                    + " bytes to send; closing the connection");
            promise.tryFailure(full);
            ctx.fireExceptionCaught(full);
            return;
        }
        outBytes += n;
        queue(ctx, msg, promise, n);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        // each write is flushed when it leaves the stage
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (!ctx.channel().isActive()) {
            ctx.close(promise);
            return;
        }
        queue(ctx, null, promise, 0);
    }

    private void queue(ChannelHandlerContext ctx, Object msg, ChannelPromise promise, int n) {
        lastOutDue = Math.max(System.nanoTime() + delayNanos, lastOutDue);
        out.add(new Held(lastOutDue, msg, promise, n));
        if (outTask == null) {
            outTask = ctx.executor().schedule(() -> releaseOut(ctx), delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void releaseOut(ChannelHandlerContext ctx) {
        outTask = null;
        long now = System.nanoTime();
        boolean wrote = false;
        Held h;
        while ((h = out.peek()) != null && h.due <= now) {
            out.poll();
            if (h.msg == null) {
                if (wrote) {
                    ctx.flush();
                    wrote = false;
                }
                ctx.close(h.promise);
            } else {
                outBytes -= h.bytes;
                wrote = true;
                awaitingAnswer = true;
                ctx.write(h.msg, h.promise);
            }
        }
        if (wrote) {
            ctx.flush();
        }
        if (h != null) {
            outTask = ctx.executor().schedule(() -> releaseOut(ctx), h.due - now, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
        Held h;
        while ((h = in.poll()) != null) {
            ReferenceCountUtil.release(h.msg);
        }
        failWrites(new IOException("connection gone with writes still in the delay stage"));
    }

    private void failWrites(IOException why) {
        Held h;
        while ((h = out.poll()) != null) {
            if (h.msg == null) {
                h.promise.trySuccess();
            } else {
                ReferenceCountUtil.release(h.msg);
                h.promise.tryFailure(why);
            }
        }
        outBytes = 0;
    }

    private void cancel() {
        if (inTask != null) {
            inTask.cancel(false);
            inTask = null;
        }
        if (outTask != null) {
            outTask.cancel(false);
            outTask = null;
        }
    }
}
