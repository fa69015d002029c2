package org.sipcrypt.server.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.sipcrypt.server.tls.bc.BcTlsSetup;

/**
 * The TLS stage on the {@code bc} engine: a {@link BcTlsHandler} around a Bouncy Castle connection
 * from the shared {@link BcTlsSetup}.
 * Threading: thread-safe; {@link #newHandler} is called on event loops.
 */
final class BcTlsContexts extends TlsContexts {

    private final BcTlsSetup setup;
    private final long handshakeTimeoutMillis;
    private final ExecutorService handshakeExecutor;

    /** @param handshakeThreads threads {@code sipcrypt-tls-N} for handshake records; 0 for the event loops */
    BcTlsContexts(BcTlsSetup setup, Duration handshakeTimeout, int handshakeThreads) {
        this.setup = setup;
        this.handshakeTimeoutMillis = handshakeTimeout.toMillis();
        if (handshakeThreads == 0) {
            this.handshakeExecutor = null;
        } else {
            AtomicInteger n = new AtomicInteger();
            this.handshakeExecutor = Executors.newFixedThreadPool(handshakeThreads, r -> {
                Thread t = new Thread(r, "sipcrypt-tls-" + n.getAndIncrement());
                t.setDaemon(true);
                return t;
            });
        }
    }

    @Override
    public boolean canServe() {
        return setup.canServe();
    }

    @Override
    ChannelHandler newHandler(Channel ch, InetSocketAddress dialled) {
        return new BcTlsHandler(setup.newConnection(dialled), handshakeTimeoutMillis, handshakeExecutor);
    }

    @Override
    public void close() {
        if (handshakeExecutor != null) {
            handshakeExecutor.shutdownNow();
        }
    }
}
