package org.sipcrypt.server.transport.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection as a JAIN-SIP message channel: messages to its peer are written on it;
 * messages to another address go to the processor's connection for that address.
 * Threading: thread-safe; writing never blocks (Netty queues writes from other threads).
 */
final class NettyTcpMessageChannel extends NettyMessageChannel {

    private static final Logger log = LoggerFactory.getLogger(NettyTcpMessageChannel.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);

    private final NettyTcpMessageProcessor tcp;
    private final Channel channel;
    private final SipConnectionHandler handler;

    NettyTcpMessageChannel(NettyTcpMessageProcessor processor, Channel channel, SipConnectionHandler handler) {
        super(processor, (InetSocketAddress) channel.remoteAddress());
        this.tcp = processor;
        this.channel = channel;
        this.handler = handler;
    }

    boolean isOpen() {
        return channel.isActive();
    }

    /** Closes the connection, counting it under {@code reason}. */
    void closeWith(String reason) {
        handler.closeReason(reason);
        channel.close();
    }

    @Override
    Transport transportKind() {
        return tcp.kind();
    }

    @Override
    void writeBack(byte[] bytes) throws IOException {
        write(bytes);
    }

    @Override
    void countDropped(String reason) {
        counters.messageDropped(reason);
    }

    void write(byte[] bytes) throws IOException {
        if (!channel.isActive()) {
            throw new IOException(this + " is closed");
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                counters.messageDropped("send_failed");
                rateLimited.warn("tcp_send", "{}: send failed: {}", this, f.cause().toString());
            }
        });
    }

    @Override
    void send(byte[] message, InetSocketAddress to) throws IOException {
        if (to.equals(peer()) && channel.isActive()) {
            write(message);
        } else {
            tcp.connection(to).write(message);
        }
    }

    @Override
    public void close() {
        closeWith("stack");
    }
}
