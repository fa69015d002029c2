package org.sipcrypt.server.transport.netty;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.Transport;

/**
 * A UDP message channel: a peer address on the processor's one datagram socket. One is made per
 * received datagram (its sender is the peer, where answers go back to) and per destination the stack sends to.
 * Threading: thread-safe; sending never blocks.
 */
final class NettyUdpMessageChannel extends NettyMessageChannel {

    private final NettyUdpMessageProcessor udp;

    NettyUdpMessageChannel(NettyUdpMessageProcessor processor, InetSocketAddress peer) {
        super(processor, peer);
        this.udp = processor;
    }

    @Override
    Transport transportKind() {
        return Transport.UDP;
    }

    @Override
    void writeBack(byte[] bytes) throws IOException {
        udp.send(bytes, peer());
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
