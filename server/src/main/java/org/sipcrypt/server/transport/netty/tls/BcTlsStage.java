package org.sipcrypt.server.transport.netty.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadPoolExecutor;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.DomainPolicies;
import org.sipcrypt.server.tls.OcspStaple;
import org.sipcrypt.server.tls.PeerTrust;
import org.sipcrypt.server.tls.ServerIdentities;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * The TLS stage on the {@code bc} engine: a {@link BcTlsHandler} around a Bouncy Castle connection
 * from the shared {@link BcTlsSetup}. With {@code tls.handshakeThreads}, handshake records are
 * processed on threads {@code sipcrypt-tls-N} whose queue holds at most {@code tls.handshakeQueue}
 * records; a connection whose record finds it full fails its handshake
 * ({@code tls.handshakes.failed{reason=overload}}) and is closed.
 * Threading: thread-safe; {@link #newHandler} is called on event loops.
 */
final class BcTlsStage extends TlsStage {

    private final BcTlsSetup setup;
    private final long handshakeTimeoutMillis;
    private final ThreadPoolExecutor handshakeExecutor;

    BcTlsStage(BcTlsSetup setup, long handshakeTimeoutMillis, ThreadPoolExecutor handshakeExecutor) {
        this.setup = setup;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.handshakeExecutor = handshakeExecutor;
    }

    /** @param identities what the listener presents by server_name; no default: a client that presents none */
    static BcTlsStage create(CurrentIdentities identities, PeerTrust trust, DomainPolicies policies, TlsConfig t,
                             TlsChoices choices, CipherSuiteRegistry registry, OcspStaple staple) throws IOException {
        // a tls.domain's suites and client-certificate policy are chosen with its certificate, in ServerPeer
        BcTlsSetup setup = BcTlsSetup.serving(identities, trust, policies, choices, registry,
                BcTlsSetup.ClientCertificates.valueOf(t.clientAuth().name()), t.sessionReuse(), t.sessionCacheSize(),
                t.sessionLifetime(), t.verifyPeers());
        setup.staple(staple);
        ThreadPoolExecutor handshakes = t.handshakeThreads() == 0 ? null
                : NamedThreads.numbered("sipcrypt-tls").boundedPool(t.handshakeThreads(), t.handshakeQueue());
        return new BcTlsStage(setup, t.handshakeTimeout().toMillis(), handshakes);
    }

    /** Most handshake records the handshake threads' queue holds; 0 without handshake threads. */
    int handshakeQueueCapacity() {
        return handshakeExecutor == null ? 0
                : handshakeExecutor.getQueue().size() + handshakeExecutor.getQueue().remainingCapacity();
    }

    /** Refuses keys other than RSA and EC, and keys none of the configured suites runs with. */
    @Override
    void check(ServerIdentities next) throws IOException {
        setup.check(next);
    }

    @Override
    public boolean canServe() {
        return setup.canServe();
    }

    @Override
    public ChannelHandler newHandler(Channel ch, InetSocketAddress dialled) {
        return new BcTlsHandler(setup.newConnection(dialled), handshakeTimeoutMillis, handshakeExecutor);
    }

    @Override
    public void close() {
        super.close();
        if (handshakeExecutor != null) {
            handshakeExecutor.shutdownNow();
        }
    }
}
