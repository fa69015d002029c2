package org.sipcrypt.lab.loadgen;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The Netty event-loop groups of a lab process, one per role so that the CPU time of each role can
 * be read from its threads' names: the generator's TCP and TLS connections on daemon threads
 * {@code lab-uac-io-N}, the UAS's on {@code lab-uas-io-N}. Each has a loop per CPU the process may
 * run on (so pinning the lab to its CPU set sizes it), is created on first use and kept for the life
 * of the process.
 * Threading: thread-safe; never blocks.
 */
final class LabEventLoops {

    private LabEventLoops() {
    }

    private static EventLoopGroup group(String threadPrefix) {
        return new NioEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory(threadPrefix, true));
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
}
