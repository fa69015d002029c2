package org.sipcrypt.server.transport.netty;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.Transport;

/**
 * A UDP message channel: a peer address on the processor's one datagram socket. One is made per
 * received datagram (remembering where it came from) and per destination the stack sends to.
 * Threading: thread-safe; sending never blocks.
 */
final class NettyUdpMessageChannel extends NettyMessageChannel {

    private final NettyUdpMessageProcessor udp;
    private final InetSocketAddress source;

    NettyUdpMessageChannel(NettyUdpMessageProcessor processor, InetSocketAddress peer, InetSocketAddress source) {
        super(processor, peer);
        this.udp = processor;
        this.source = source;
    }

    @Override
    Transport transportKind() {
        return Transport.UDP;
    }

    @Override
    InetSocketAddress source() {
        return source;
    }

    @Override
    void writeBack(byte[] bytes) throws IOException {
        udp.send(bytes, source);
    }

    @Override
    void countDropped(String reason) {
        counters.datagramDropped(reason);
    }

    @Override
    void send(byte[] message, InetSocketAddress to) throws IOException {
        udp.send(message, to);
    }

    @Override
    public void close() {
        // the socket belongs to the processor; a UDP channel has nothing of its own to close
    }
}
