package org.sipcrypt.server.transport.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * Sends datagrams from one bound datagram channel. On the epoll transport the calling thread (a SIP
 * worker lane, mostly) writes each datagram with one non-blocking {@code sendto} on the channel's
 * own socket, so a message leaves without waking the channel's event loop; when the socket's send
 * buffer is full, and on the NIO transport, the datagram goes through the channel's pipeline as
 * before. Either way it leaves from the same socket, so the peer sees the listening port as source.
 * Threading: thread-safe; never blocks (the socket is non-blocking); each sending thread keeps one
 * direct buffer of a datagram's maximum size.
 */
final class DatagramSender {

    /** The largest datagram payload over IPv4 (65,535 less the IP and UDP headers). */
    static final int MAX_PAYLOAD = 65_535 - 28;

    private static final ThreadLocal<ByteBuffer> BUFFER = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(MAX_PAYLOAD));

    private final Channel channel;
    private final Socket socket;
    private final BiConsumer<InetSocketAddress, Throwable> failed;
    private final LongAdder direct = new LongAdder();
    private final LongAdder queued = new LongAdder();

    /**
     * @param channel    the bound datagram channel
     * @param sendDirect whether to write on the socket from the calling thread where the transport
     *                   allows it (epoll); false sends everything through the pipeline
     * @param failed     told of every datagram that could not be sent: its target and the reason
     */
    DatagramSender(Channel channel, boolean sendDirect, BiConsumer<InetSocketAddress, Throwable> failed) {
        this.channel = channel;
        this.socket = sendDirect && channel instanceof EpollDatagramChannel e ? (Socket) e.fd() : null;
        this.failed = failed;
    }

    /** Sends one datagram of at most {@link #MAX_PAYLOAD} bytes to {@code target}. */
    void send(byte[] bytes, InetSocketAddress target) throws IOException {
        if (bytes.length > MAX_PAYLOAD) {
            throw new IOException("message of " + bytes.length + " bytes does not fit a UDP datagram");
        }
        if (socket != null && !target.isUnresolved() && sentOnSocket(bytes, target)) {
            direct.increment();
            return;
        }
        queued.increment();
        channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(bytes), target))
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        failed.accept(target, f.cause());
                    }
                });
    }

    /**
     * One {@code sendto} from the calling thread. False when the socket's buffer is full (the
     * pipeline queues the datagram until the event loop can write it); a failure the pipeline
     * would also meet (an unreachable peer, a closed socket) counts as sent and is reported.
     */
    private boolean sentOnSocket(byte[] bytes, InetSocketAddress target) {
        ByteBuffer buf = BUFFER.get();
        buf.clear();
        buf.put(bytes);
        try {
            return socket.sendTo(buf, 0, bytes.length, target.getAddress(), target.getPort()) > 0;
        } catch (IOException e) {
            failed.accept(target, e);
            return true;
        }
    }

    /** Datagrams written on the socket by the sending thread. */
    long sentDirect() {
        return direct.sum();
    }

    /** Datagrams handed to the channel's event loop. */
    long sentThroughPipeline() {
        return queued.sum();
    }
}
