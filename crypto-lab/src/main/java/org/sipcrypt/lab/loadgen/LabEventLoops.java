package org.sipcrypt.lab.loadgen;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The Netty event-loop groups of a lab process, one per role so that the CPU time of each role can
 * be read from its threads' names: the generator's TCP and TLS connections on daemon threads
 * {@code lab-uac-io-N}, the UAS's on {@code lab-uas-io-N}. Each has a loop per CPU the process may
 * run on (so pinning the lab to its CPU set sizes it), is created on first use and kept for the life
 * of the process. The loops are epoll's where Netty's native transport loads (Linux), as the
 * server's are, and NIO's elsewhere: the lab's own CPU per call is set against the server's, and
 * epoll's loops cost less per message and keep scheduled tasks (the generator's arrivals) to the
 * microsecond rather than to the millisecond.
 * Threading: thread-safe; never blocks.
 */
final class LabEventLoops {

    private static final boolean EPOLL = Epoll.isAvailable();

    private LabEventLoops() {
    }

    private static EventLoopGroup group(String threadPrefix) {
        int loops = Runtime.getRuntime().availableProcessors();
        DefaultThreadFactory threads = new DefaultThreadFactory(threadPrefix, true);
        return EPOLL ? new EpollEventLoopGroup(loops, threads) : new NioEventLoopGroup(loops, threads);
    }

    private static final class UacHolder {
        static final EventLoopGroup GROUP = group(Uac.THREADS + "-io");
    }

    private static final class UasHolder {
        static final EventLoopGroup GROUP = group(Uas.THREADS + "-io");
    }

    /** The generator's group ({@code lab-uac-io-N}). */
    static EventLoopGroup uac() {
        return UacHolder.GROUP;
    }

    /** The UAS's group ({@code lab-uas-io-N}). */
    static EventLoopGroup uas() {
        return UasHolder.GROUP;
    }

    /** The class of outgoing connections on these groups. */
    static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The class of listeners on these groups. */
    static Class<? extends ServerChannel> serverSocketChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
