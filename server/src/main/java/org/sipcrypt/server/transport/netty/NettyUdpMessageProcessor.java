package org.sipcrypt.server.transport.netty;

import gov.nist.core.HostPort;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.StunBindingResponder;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UDP listening point: one datagram socket; each datagram is one SIP message (RFC 3261 §18.1.1)
 * handed to the SIP worker lanes, and every message to a UDP peer leaves through the same socket,
 * written by the sending lane itself where the transport allows it ({@link DatagramSender}).
 * Threading: thread-safe; the inbound handler runs on the socket's event loop and never blocks.
 */
final class NettyUdpMessageProcessor extends NettyMessageProcessor {

    private static final Logger log = LoggerFactory.getLogger(NettyUdpMessageProcessor.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);
    private static final int MAX_DATAGRAM = 65_535;
    private static final int SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

    private volatile Channel channel;
    private volatile DatagramSender sender;

    NettyUdpMessageProcessor(InetAddress address, int port, SIPTransactionStack stack, NettyTransport transport) {
        super(address, port, Transport.UDP, stack, transport);
    }

    /** Binds a datagram socket; the processor for that address adopts it in {@link #start()}. */
    static Channel bind(NettyTransport transport, InetSocketAddress address) throws IOException {
        Bootstrap b = new Bootstrap()
                .group(transport.group())
                .channel(transport.datagramChannelClass())
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM))
                .handler(new DatagramHandler());
        try {
            return b.bind(address).sync().channel();
        } catch (Exception e) {
            throw new IOException("cannot bind udp " + address + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void start() throws IOException {
        Channel ch = transport().takeBound(Transport.UDP, localAddress());
        if (ch == null) {
            ch = bind(transport(), localAddress());
        }
        ch.pipeline().get(DatagramHandler.class).processor = this;
        sender = new DatagramSender(ch, true, (target, cause) -> {
            transport().counters().datagramDropped("send_failed");
            rateLimited.warn("udp_send", "{} -> {}: send failed: {}", this, target, cause.toString());
        });
        channel = ch;
        log.info("listening on {}", this);
    }

    @Override
    public void stop() {
        Channel ch = channel;
        if (ch != null) {
            ch.close().awaitUninterruptibly();
        }
    }

    @Override
    public MessageChannel createMessageChannel(HostPort target) throws IOException {
        return createMessageChannel(target.getInetAddress(), target.getPort());
    }

    @Override
    public MessageChannel createMessageChannel(InetAddress host, int port) {
        InetSocketAddress peer = new InetSocketAddress(host, port <= 0 ? 5060 : port);
        return new NettyUdpMessageChannel(this, peer);
    }

    @Override
    boolean listening() {
        Channel ch = channel;
        return ch != null && ch.isActive();
    }

    @Override
    public boolean inUse() {
        return false;
    }

    /** Writes one datagram; never blocks. */
    void send(byte[] bytes, InetSocketAddress target) throws IOException {
        Channel ch = channel;
        DatagramSender out = sender;
        if (ch == null || !ch.isActive() || out == null) {
            throw new IOException(this + " is not open");
        }
        out.send(bytes, target);
    }

    /** How this processor's datagrams leave (for tests: how many took which path). */
    DatagramSender sender() {
        return sender;
    }

    /**
     * Turns datagrams into messages for the lanes: drops CRLF-only keep-alives, answers STUN
     * Binding requests itself ({@link StunBindingResponder}; RFC 5626 §4.4.2: the SIP port also
     * speaks STUN) without reaching the SIP stack, drops oversize datagrams, and (until the
     * processor adopts the socket) everything.
     * Threading: one per datagram channel, event loop only.
     */
    private static final class DatagramHandler extends SimpleChannelInboundHandler<DatagramPacket> {
        volatile NettyUdpMessageProcessor processor;
        private final StunBindingResponder stun = new StunBindingResponder();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            NettyUdpMessageProcessor p = processor;
            if (p == null) {
                return;
            }
            ByteBuf content = packet.content();
            int n = content.readableBytes();
            if (n == 0 || isOnlyWhitespace(content)) {
                // RFC 5626 §3.5.1 has CRLF keep-alives on connections only: over UDP there is nothing to answer
                p.transport().counters().keepAliveDropped(Transport.UDP, "crlf");
                return;
            }
            if (StunBindingResponder.startsLikeStun(content.getByte(content.readerIndex()))) {
                answerStun(ctx, p, content, packet.sender());
                return;
            }
            if (n > p.transport().settings().maxMessageBytes()) {
                p.transport().counters().datagramDropped("oversize");
                return;
            }
            byte[] bytes = new byte[n];
            content.getBytes(content.readerIndex(), bytes);
            InetSocketAddress sender = packet.sender();
            p.dispatch(new NettyUdpMessageChannel(p, sender), bytes);
        }

        /** Answers a STUN Binding request from the socket it came to, or drops and counts the datagram. */
        private void answerStun(ChannelHandlerContext ctx, NettyUdpMessageProcessor p, ByteBuf content,
                                InetSocketAddress sender) {
            var counters = p.transport().counters();
            // a view of the datagram's bytes, not a copy (a received datagram is one buffer)
            StunBindingResponder.Outcome outcome = stun.respond(content.nioBuffer(), sender);
            if (outcome != StunBindingResponder.Outcome.ANSWERED) {
                counters.keepAliveDropped(Transport.UDP, outcome.tag());
                // arguments are formatted only when logged: nothing is built per dropped datagram
                rateLimited.warn(outcome.tag(), "{}: STUN from {} dropped: {}", p, sender, outcome.tag());
                return;
            }
            if (!ctx.channel().isWritable()) {
                // the socket's queue is past its high-water mark: no answer may add to it
                counters.keepAliveDropped(Transport.UDP, "stun_backlog");
                rateLimited.warn("stun_backlog", "{}: STUN answer to {} dropped: send queue full", p, sender);
                return;
            }
            counters.keepAliveAnswered(Transport.UDP, "stun");
            ByteBuf answer = ctx.alloc().ioBuffer(stun.answerLength()).writeBytes(stun.answer(), 0, stun.answerLength());
            ctx.writeAndFlush(new DatagramPacket(answer, sender)).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    counters.datagramDropped("send_failed");
                    rateLimited.warn("udp_send", "{} -> {}: send failed: {}", p, sender, f.cause().toString());
                }
            });
        }

        private static boolean isOnlyWhitespace(ByteBuf b) {
            for (int i = b.readerIndex(); i < b.writerIndex(); i++) {
                byte c = b.getByte(i);
                if (c != '\r' && c != '\n' && c != ' ' && c != '\t' && c != 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            NettyUdpMessageProcessor p = processor;
            if (p != null) {
                p.transport().counters().datagramDropped("read_error");
            }
            rateLimited.warn("udp_read", "udp {}: read error: {}", ctx.channel().localAddress(), cause.toString());
        }

        @Override
        public boolean isSharable() {
            return false;
        }
    }

}
