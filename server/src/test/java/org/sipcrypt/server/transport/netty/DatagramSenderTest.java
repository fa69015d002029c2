package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Datagrams leave a bound channel on both paths (the sending thread's own {@code sendto} on epoll,
 * the event loop's pipeline otherwise), from the channel's port and byte for byte, over loopback.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DatagramSenderTest {

    private static final byte[] MESSAGE = ("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5999;branch=z9hG4bK-s\r\n"
            + "Call-ID: sender-1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final List<EventLoopGroup> groups = new ArrayList<>();
    private final List<Channel> channels = new ArrayList<>();
    private final List<Throwable> failures = new ArrayList<>();

    @AfterEach
    void close() {
        channels.forEach(c -> c.close().awaitUninterruptibly());
        groups.forEach(g -> g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly());
    }

    @Test
    void onEpollTheSendingThreadWritesOnTheSocketItself() throws Exception {
        Channel ch = bind(true);
        DatagramSender sender = new DatagramSender(ch, true, (t, e) -> failures.add(e));
        try (DatagramSocket peer = peer()) {
            sender.send(MESSAGE, (InetSocketAddress) peer.getLocalSocketAddress());
            assertReceivedFrom(peer, ch);
        }
        assertEquals(Epoll.isAvailable() ? 1 : 0, sender.sentDirect(), "datagrams written by the sending thread");
        assertEquals(Epoll.isAvailable() ? 0 : 1, sender.sentThroughPipeline(), "datagrams handed to the event loop");
        assertEquals(List.of(), failures);
    }

    @Test
    void throughThePipelineWhenTheSocketIsNotUsed() throws Exception {
        for (boolean epoll : new boolean[] {true, false}) {
            Channel ch = bind(epoll);
            DatagramSender sender = new DatagramSender(ch, false, (t, e) -> failures.add(e));
            try (DatagramSocket peer = peer()) {
                sender.send(MESSAGE, (InetSocketAddress) peer.getLocalSocketAddress());
                assertReceivedFrom(peer, ch);
            }
            assertEquals(0, sender.sentDirect(), ch + ": datagrams written by the sending thread");
            assertEquals(1, sender.sentThroughPipeline(), ch + ": datagrams handed to the event loop");
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void aMessageLargerThanADatagramIsRefusedOnBothPaths() throws Exception {
        Channel ch = bind(true);
        byte[] tooLarge = new byte[DatagramSender.MAX_PAYLOAD + 1];
        for (boolean direct : new boolean[] {true, false}) {
            DatagramSender sender = new DatagramSender(ch, direct, (t, e) -> failures.add(e));
            IOException e = assertThrows(IOException.class, () -> sender.send(tooLarge, new InetSocketAddress("127.0.0.1", 9)));
            assertTrue(e.getMessage().contains("does not fit a UDP datagram"), e.getMessage());
            assertEquals(0, sender.sentDirect() + sender.sentThroughPipeline());
        }
    }

    /** A datagram channel bound to loopback: epoll where the machine has it (and {@code epoll}), else NIO. */
    private Channel bind(boolean epoll) throws InterruptedException {
        boolean native_ = epoll && Epoll.isAvailable();
        EventLoopGroup group = native_ ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
        groups.add(group);
        Channel ch = new Bootstrap().group(group)
                .channel(native_ ? EpollDatagramChannel.class : NioDatagramChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        channels.add(ch);
        return ch;
    }

    private static DatagramSocket peer() throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        s.setSoTimeout(30_000);
        return s;
    }

    private static void assertReceivedFrom(DatagramSocket peer, Channel ch) throws IOException {
        DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
        peer.receive(p);
        assertArrayEquals(MESSAGE, Arrays.copyOf(p.getData(), p.getLength()));
        assertEquals(((InetSocketAddress) ch.localAddress()).getPort(), p.getPort(), "the source port is the channel's");
    }
}
