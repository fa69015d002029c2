package org.sipcrypt.lab.loadgen;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The one Netty event-loop group of a lab process, shared by the generator's and the UAS's TCP and
 * TLS connections: a loop per CPU the process may run on (so pinning the lab to its CPU set sizes
 * it), daemon threads {@code lab-io-N}, created on first use and kept for the life of the process.
 * Threading: thread-safe; never blocks.
 */
final class LabEventLoops {

    private LabEventLoops() {
    }

    private static final class Holder {
        static final EventLoopGroup GROUP = new NioEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory("lab-io", true));
    }

    /** The shared group. */
    static EventLoopGroup group() {
        return Holder.GROUP;
    }
}
