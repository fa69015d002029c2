package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.message.SIPRequest;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.tls.TlsEventsHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection as a JAIN-SIP message channel: messages to its peer are written on it;
 * messages to another address go to the processor's connection for that address. An outgoing
 * connection is a channel from the moment it is dialled: what is sent before its TCP connect (and
 * TLS handshake) completed waits, in order, and goes out once it has; if the set-up fails, the
 * waiting messages are dropped and the requests among them reported as not sent.
 * Threading: thread-safe; writing never blocks (Netty queues writes from other threads).
 */
final class NettyTcpMessageChannel extends NettyMessageChannel {

    /** Most messages an outgoing connection holds while it is set up; a send beyond fails at once. */
    static final int MAX_WAITING = 64;

    private static final Logger log = LoggerFactory.getLogger(NettyTcpMessageChannel.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);

    /** Numbers connections; starts at a random point so a number is not found again after a restart. */
    private static final java.util.concurrent.atomic.AtomicLong NUMBERS =
            new java.util.concurrent.atomic.AtomicLong(new java.security.SecureRandom().nextInt() & 0x7fffffffL);

    private final NettyTcpMessageProcessor tcp;
    private final SipConnectionHandler handler;
    private final long number = NUMBERS.incrementAndGet();
    private volatile Channel channel;
    /** While an outgoing connection is set up: what waits to be sent on it; null once set up or failed. */
    private List<Waiting> waiting;
    private volatile boolean settingUp;
    /** The RFC 5923 alias this connection holds ({@link ConnectionAliases}), or null; guarded by this. */
    private String alias;

    private record Waiting(byte[] bytes, SIPRequest request) {
    }

    /** A connection that is open: accepted, or set up already. */
    NettyTcpMessageChannel(NettyTcpMessageProcessor processor, Channel channel, SipConnectionHandler handler) {
        super(processor, (InetSocketAddress) channel.remoteAddress());
        this.tcp = processor;
        this.channel = channel;
        this.handler = handler;
    }

    /** An outgoing connection to {@code peer} being dialled; its Netty channel is {@link #attach attached} before use. */
    NettyTcpMessageChannel(NettyTcpMessageProcessor processor, InetSocketAddress peer, SipConnectionHandler handler) {
        super(processor, peer);
        this.tcp = processor;
        this.handler = handler;
        this.waiting = new ArrayList<>(2);
        this.settingUp = true;
    }

    /** The Netty channel of a connection being dialled, once it exists. */
    void attach(Channel ch) {
        this.channel = ch;
    }

    /** Open, or still being set up. */
    boolean isOpen() {
        if (settingUp) {
            return true;
        }
        Channel ch = channel;
        return ch != null && ch.isActive();
    }

    /** Closes the connection, counting it under {@code reason}. */
    void closeWith(String reason) {
        handler.closeReason(reason);
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    @Override
    Transport transportKind() {
        return tcp.kind();
    }

    @Override
    long connectionNumber() {
        return number;
    }

    /** Sets the alias this connection holds (null for none) and returns the one it held. Holding this. */
    String alias(String key) {
        assert Thread.holdsLock(this);
        String previous = alias;
        alias = key;
        return previous;
    }

    @Override
    public String cipherSuite() {
        Channel ch = channel;
        return ch == null ? null : ch.attr(TlsEventsHandler.SUITE).get();
    }

    /** The Netty channel of this connection, or null while a dialled one has none yet. */
    Channel nettyChannel() {
        return channel;
    }

    /** Whether this connection was dialled by this server (else accepted from its peer). */
    boolean dialledOut() {
        return handler.dialledOut();
    }

    @Override
    void aliasOffered(String host, int port) {
        tcp.aliasOffered(this, host, port);
    }

    @Override
    void writeBack(byte[] bytes) throws IOException {
        write(bytes, null);
    }

    @Override
    void countDropped(String reason) {
        counters.messageDropped(reason);
    }

    /**
     * Writes bytes on the connection, or, while it is set up, keeps them for when it is.
     *
     * @param request the request they encode, reported if it never leaves; null for anything else
     */
    void write(byte[] bytes, SIPRequest request) throws IOException {
        if (settingUp) {
            synchronized (this) {
                if (waiting != null) {
                    if (waiting.size() >= MAX_WAITING) {
                        throw new IOException(this + ": " + MAX_WAITING + " messages wait for the connection already");
                    }
                    waiting.add(new Waiting(bytes, request));
                    return;
                }
            }
        }
        Channel ch = channel;
        if (ch == null || !ch.isActive()) {
            throw new IOException(this + " is closed");
        }
        ch.writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                counters.messageDropped("send_failed");
                rateLimited.warn("tcp_send", "{}: send failed: {}", this, f.cause().toString());
            }
        });
    }

    /** The connection is set up: what waited goes out, in the order it was sent. Event loop. */
    void setUp() {
        List<Waiting> w = endSetUp();
        if (w == null) {
            return;
        }
        for (Waiting m : w) {
            try {
                write(m.bytes(), m.request());
            } catch (IOException e) {
                lost(m, e);
            }
        }
    }

    /** The connect or the handshake failed: what waited is dropped, its requests reported. Any thread. */
    void setUpFailed(Throwable cause) {
        List<Waiting> w = endSetUp();
        if (w == null) {
            return;
        }
        for (Waiting m : w) {
            lost(m, cause);
        }
    }

    /** Ends the set-up: what waited for it, or null when it had ended already. */
    private synchronized List<Waiting> endSetUp() {
        List<Waiting> w = waiting;
        waiting = null;
        settingUp = false;
        return w;
    }

    private void lost(Waiting m, Throwable cause) {
        counters.messageDropped("send_failed");
        if (m.request() != null) {
            tcp.transport().requestNotSent(m.request(), cause);
        }
    }

    @Override
    void send(byte[] message, InetSocketAddress to) throws IOException {
        send(message, to, null);
    }

    @Override
    void send(byte[] message, InetSocketAddress to, SIPRequest request) throws IOException {
        if (to.equals(peer()) && isOpen()) {
            write(message, request);
        } else if (to.equals(peer()) && !handler.dialledOut()) {
            // RFC 5626 §5.3: the peer of an accepted connection is an ephemeral port or a NAT's
            // mapping; once the connection has closed, nothing there accepts a new one
            counters.messageDropped("flow_closed");
            throw new IOException(this + " has closed; its peer is not dialled");
        } else {
            tcp.connection(to).write(message, request);
        }
    }

    @Override
    public void close() {
        closeWith("stack");
    }
}
