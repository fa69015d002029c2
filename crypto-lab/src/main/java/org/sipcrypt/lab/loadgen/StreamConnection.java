package org.sipcrypt.lab.loadgen;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.Transport;

/**
 * One TCP, TLS, WS or WSS connection of the generator or the UAS: a Netty channel on the event loops of its
 * role ({@link LabEventLoops}), whose pipeline ({@link ByteCountingHandler}, the TLS stage, the
 * WebSocket stage, {@link SipStreamHandler}) counts, decrypts, unwraps and frames what it reads and hands each SIP message to
 * the {@link Listener} on the channel's event loop. {@link #send} only queues the write; a write that
 * fails closes the connection, which the listener hears as {@link Listener#closed}.
 * Threading: thread-safe; never blocks.
 */
public final class StreamConnection implements Closeable {

    static final int MAX_MESSAGE_BYTES = 65535;

    /** Receives what a connection reads; both methods run on the connection's event loop and must not block. */
    public interface Listener {
        /** A whole SIP message arrived. */
        void message(StreamConnection from, SipMessage message);

        /** The connection is closed; {@code reason} is {@code eof}, {@code closed}, or what failed. */
        void closed(StreamConnection connection, String reason);
    }

    private final Channel channel;
    private final Transport transport;
    private volatile boolean resumed;

    StreamConnection(Channel channel, Transport transport) {
        this.channel = channel;
        this.transport = transport;
    }

    /** The transport name for Via headers: {@code TCP}, {@code TLS}, {@code WS} or {@code WSS}. */
    public String viaTransport() {
        return transport.sipName();
    }

    /** The transport parameter of a SIP URI for this connection: {@code tcp}, {@code tls}, {@code ws} or {@code wss}. */
    public String uriTransport() {
        return transport.configName();
    }

    /**
     * Queues one whole SIP message for sending.
     *
     * @throws IOException the connection is closed
     */
    public void send(byte[] message) throws IOException {
        if (!channel.isActive()) {
            throw new IOException(this + " is closed");
        }
        channel.writeAndFlush(Unpooled.wrappedBuffer(message)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    /** Whether this connection's TLS handshake resumed a session (false for TCP). */
    public boolean resumed() {
        return resumed;
    }

    void resumed(boolean value) {
        resumed = value;
    }

    /** The event loop this connection's reads and writes run on. */
    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /** The local address. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The peer's address. */
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) channel.remoteAddress();
    }

    /** Whether {@link #close} was called or the connection failed. */
    public boolean isClosed() {
        return !channel.isOpen();
    }

    /** Closes the connection (TLS: after close_notify); returns at once. */
    @Override
    public void close() {
        channel.close();
    }

    @Override
    public String toString() {
        return transport.configName() + " " + channel.localAddress() + "->" + channel.remoteAddress();
    }
}
