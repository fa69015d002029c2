package org.sipcrypt.jmh;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.netty.tls.TlsStage;

/**
 * The same handshakes as {@link HandshakeBenchmark} on the openssl engine: two engines of Netty's
 * OpenSslEngine on BoringSSL in memory, RSA-2048 lab certificates, one suite, TLS 1.2; kinds as in
 * {@link HandshakeFixture}. The server's engine is the server's own: its TLS stage built by
 * {@link TlsStage#forListener} from {@code tls.*} settings ({@code tls.engine=openssl}, the kind's
 * suite, {@code tls.versions=1.2}, session reuse on as by default, so a full handshake also issues a
 * ticket), one engine per handshake from {@link TlsStage#newHandler} as for an accepted connection.
 * The client's is a plain context of the lab CA's. A full handshake's sessions are invalidated on
 * both sides afterwards; {@code resumed} offers the session of a handshake made at set-up. Each
 * engine is released after its handshake (its native state is reference-counted). The server's and
 * client's shares are reported as in {@link HandshakeBenchmark}.
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
public class OpensslHandshakeBenchmark extends HandshakeFixture {

    private ReferenceCountedOpenSslContext clientContext;
    private TlsStage serverStage;
    /** Lends its allocator to the server's handlers; never carries a byte. */
    private EmbeddedChannel serverChannel;
    private String suite;
    private boolean resume;
    private boolean mutual;

    @Setup(Level.Trial)
    public void configure() throws IOException {
        suite = handshakeSuite(kind);
        resume = resumes();
        mutual = mutual();
        Path dir = certificates();
        TlsConfig tls = new TlsConfig.Builder().engine(TlsEngine.OPENSSL).versions(List.of("1.2"))
                .ciphers(List.of(suite)).cert(dir.resolve(Role.SERVER.cert)).key(dir.resolve(Role.SERVER.key))
                .trust(dir.resolve("ca.pem"))
                .clientAuth(mutual ? TlsConfig.ClientAuth.NEED : TlsConfig.ClientAuth.NONE).build();
        serverStage = TlsStage.forListener(tls, REGISTRY);
        serverChannel = new EmbeddedChannel();
        clientContext = opensslContext(mutual ? Role.CLIENT_WITH_CERTIFICATE : Role.CLIENT, ClientAuth.NONE);
        Run first = run();
        try {
            checkFirst(first.resumed, JsseHandshakeBenchmark.hasPeerCertificate(first.server));
        } finally {
            first.release();
        }
        run().checkAndRelease();
    }

    @TearDown(Level.Trial)
    public void release() {
        serverStage.close();
        serverChannel.finishAndReleaseAll();
        ReferenceCountUtil.release(clientContext);
    }

    /** One handshake, new client and server engines, both released afterwards. */
    @Benchmark
    public boolean handshake(Sides sides) throws IOException {
        Run h = run();
        sides.add(h.sides.serverNanos, h.sides.clientNanos);
        return h.checkAndRelease();
    }

    private Run run() throws IOException {
        JsseEngines.Sides sides = new JsseEngines.Sides();
        long t0 = System.nanoTime();
        SSLEngine server = ((SslHandler) serverStage.newHandler(serverChannel, null)).engine();
        long t1 = System.nanoTime();
        SSLEngine client = clientContext.newEngine(ByteBufAllocator.DEFAULT, LabFixture.SERVER.getHostString(),
                LabFixture.SERVER.getPort());
        client.setEnabledProtocols(new String[] {"TLSv1.2"});
        client.setEnabledCipherSuites(new String[] {suite});
        SSLParameters p = client.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        client.setSSLParameters(p);
        long t2 = System.nanoTime();
        sides.serverNanos += t1 - t0;
        sides.clientNanos += t2 - t1;
        Run r = new Run(client, server, sides);
        try {
            JsseEngines.handshake(client, server, sides);
        } catch (IOException | RuntimeException e) {
            r.release();
            throw e;
        }
        // as the server's openssl stage decides: BoringSSL's own word (session times have whole seconds only)
        long ssl = ((ReferenceCountedOpenSslEngine) server).sslPointer();
        r.resumed = ssl != 0 && SSL.isSessionReused(ssl);
        if (!resume) {
            client.getSession().invalidate();
            server.getSession().invalidate();
        }
        return r;
    }

    /** One handshake's engines and times. Threading: confined to the benchmark thread. */
    private final class Run {
        final SSLEngine client;
        final SSLEngine server;
        final JsseEngines.Sides sides;
        boolean resumed;

        Run(SSLEngine client, SSLEngine server, JsseEngines.Sides sides) {
            this.client = client;
            this.server = server;
            this.sides = sides;
        }

        /** Fails unless the handshake resumed as its kind asks and negotiated the kind's suite; releases both engines. */
        boolean checkAndRelease() {
            try {
                if (resumed != resume) {
                    throw new IllegalStateException(kind + ": expected " + (resume ? "a resumed" : "a full") + " handshake");
                }
                String negotiated = server.getSession().getCipherSuite();
                if (!negotiated.equals(suite)) {
                    throw new IllegalStateException(kind + ": negotiated " + negotiated + ", not " + suite);
                }
                return resumed;
            } finally {
                release();
            }
        }

        void release() {
            ReferenceCountUtil.release(client);
            ReferenceCountUtil.release(server);
        }
    }
}
