package org.sipcrypt.server.transport.netty;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.Transport;

/**
 * A UDP message channel: a peer address on the processor's one datagram socket. One is made per
 * received datagram (remembering where it came from) and per destination the stack sends to.
 * Threading: thread-safe; sending never blocks.
 */
final class NettyUdpMessageChannel extends NettyMessageChannel {

    private final NettyUdpMessageProcessor udp;
    private final InetSocketAddress peer;
    private final InetSocketAddress source;

    NettyUdpMessageChannel(NettyUdpMessageProcessor processor, InetSocketAddress peer, InetSocketAddress source) {
        super(processor);
        this.udp = processor;
        this.peer = peer;
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
    InetSocketAddress peer() {
        return peer;
    }

    @Override
    void reply(byte[] bytes) {
        try {
            udp.send(bytes, source);
        } catch (IOException e) {
            counters.datagramDropped("send_failed");
        }
    }

    @Override
    void countDropped(String reason) {
        counters.datagramDropped(reason);
    }

    @Override
    protected void sendMessage(byte[] message, InetAddress address, int port, boolean retry) throws IOException {
        InetSocketAddress to = new InetSocketAddress(address, port);
        dumpSent(message, to);
        udp.send(message, to);
    }

    @Override
    public void close() {
        // the socket belongs to the processor; a UDP channel has nothing of its own to close
    }

    @Override
    public String toString() {
        return "udp " + udp.getIpAddress().getHostAddress() + ":" + udp.getPort() + "<->"
                + peer.getAddress().getHostAddress() + ":" + peer.getPort();
    }
}
