package org.sipcrypt.server.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * The TLS stage of the stream transport, on the TLS engine the configuration chose: a handler for
 * each new connection, accepted (the listener's certificate) or dialled (the peer's certificate
 * checked against the trust anchors and the address dialled).
 * Threading: immutable once created; {@link #newHandler} is called on event loops.
 */
public abstract sealed class TlsContexts implements AutoCloseable permits JsseTlsContexts, BcTlsContexts {

    /**
     * Builds the TLS stage.
     *
     * @param identity          chain and key of the listener, also presented to peers that ask; null for none
     * @param trust             PEM CA certificates peers must chain to; null for the JDK's trust store
     * @param choices           suites, engine and per-provider crypto
     * @param clientCertificates whether the listener asks for client certificates
     * @param handshakeThreads  bc engine: threads {@code sipcrypt-tls-N} that process handshake
     *                          records; 0 for the event loops
     * @param verifyPeers       false accepts any peer certificate (lab only)
     */
    public static TlsContexts create(KeyMaterial identity, Path trust, TlsChoices choices, CipherSuiteRegistry registry,
                                     BcTlsSetup.ClientCertificates clientCertificates, boolean allowInsecure,
                                     Duration handshakeTimeout, boolean sessionReuse, int cacheSize, Duration lifetime,
                                     int handshakeThreads, boolean verifyPeers) throws IOException {
        TlsContexts made = switch (choices.engine()) {
            case JSSE -> JsseTlsContexts.create(identity, trust, choices.suites(), choices.versions(),
                    switch (clientCertificates) {
                case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
                case WANT -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
                case NEED -> io.netty.handler.ssl.ClientAuth.REQUIRE;
            }, allowInsecure, handshakeTimeout, sessionReuse, cacheSize, lifetime, verifyPeers);
            case BC -> new BcTlsContexts(BcTlsSetup.create(identity, trust, choices, registry, clientCertificates,
                    sessionReuse, cacheSize, lifetime, verifyPeers),
                    handshakeTimeout, handshakeThreads);
        };
        made.insecure = choices.insecure();
        return made;
    }

    /**
     * SunJSSE resumes TLS 1.2 sessions from stateless tickets unless told otherwise, once per JVM;
     * a server with reuse off on the jsse engine calls this before any TLS use.
     */
    public static void disableJdkSessionTickets() {
        JsseTlsContexts.disableSessionTickets();
    }

    private List<String> insecure = List.of();

    /** The insecure providers among the suites offered (lab only), for the listener's warning. */
    public List<String> insecureProviders() {
        return insecure;
    }

    /** Whether a listener can be served (a certificate and key were configured). */
    public abstract boolean canServe();

    /**
     * A TLS stage for a new connection.
     *
     * @param dialled the address an outgoing connection goes to, checked against the peer's
     *                certificate; null for an accepted connection
     */
    abstract ChannelHandler newHandler(Channel ch, InetSocketAddress dialled);

    /** Stops the handshake threads, if any. */
    @Override
    public void close() {
    }
}
