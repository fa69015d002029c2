package org.sipcrypt.lab.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * The first stage of every stream connection's pipeline: counts the bytes that cross the socket
 * into one side's {@link LegCounters}, so TLS records with their overhead are counted the same way
 * on both TLS engines.
 * Threading: {@code @Sharable}, one instance per side; event loops only; never blocks.
 */
@ChannelHandler.Sharable
final class ByteCountingHandler extends ChannelDuplexHandler {

    private final LegCounters counters;

    ByteCountingHandler(LegCounters counters) {
        this.counters = counters;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) {
            counters.bytesReceived.add(b.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf b) {
            counters.bytesSent.add(b.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
