package org.sipcrypt.jmh;

import java.io.IOException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

/**
 * The same handshakes as {@link HandshakeBenchmark} on the jsse engine: two SunJSSE
 * {@code SSLEngine}s in memory, RSA-2048 lab certificates, one suite, TLS 1.2. Kinds: {@code full}
 * (TLS_RSA_WITH_AES_128_CBC_SHA, sessions invalidated after each handshake), {@code resumed} (the
 * same suite, the session of a handshake made at set-up resumed), {@code mutual} (full, and the
 * server requires a client certificate), {@code ecdhe} (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256).
 * Delegated tasks run inline, as Netty's {@code SslHandler} runs them on the server's event loops
 * by default. The server's and client's shares are reported as in {@link HandshakeBenchmark}.
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
public class JsseHandshakeBenchmark extends HandshakeFixture {

    private SSLContext clientContext;
    private SSLContext serverContext;
    private String suite;
    private boolean resume;
    private boolean mutual;

    @Setup(Level.Trial)
    public void configure() throws IOException {
        suite = handshakeSuite(kind);
        resume = resumes();
        mutual = mutual();
        serverContext = jsseContext(Role.SERVER);
        clientContext = jsseContext(mutual ? Role.CLIENT_WITH_CERTIFICATE : Role.CLIENT);
        JsseHandshake first = JsseHandshake.run(clientContext, serverContext, suite, mutual, resume);
        checkFirst(first.resumed, hasPeerCertificate(first.server));
        check(JsseHandshake.run(clientContext, serverContext, suite, mutual, resume));
    }

    /** Whether the server's session holds the client's certificate; SunJSSE throws when it has none. */
    static boolean hasPeerCertificate(SSLEngine server) {
        try {
            return server.getSession().getPeerCertificates().length > 0;
        } catch (SSLPeerUnverifiedException e) {
            return false;
        }
    }

    /** One handshake, new client and server engines. */
    @Benchmark
    public JsseHandshake handshake(Sides sides) throws IOException {
        JsseHandshake h = JsseHandshake.run(clientContext, serverContext, suite, mutual, resume);
        check(h);
        sides.add(h.serverNanos, h.clientNanos);
        return h;
    }

    private void check(JsseHandshake h) {
        if (h.resumed != resume) {
            throw new IllegalStateException(kind + ": expected " + (resume ? "a resumed" : "a full") + " handshake");
        }
        if (!h.server.getSession().getCipherSuite().equals(suite)) {
            throw new IllegalStateException(kind + ": negotiated " + h.server.getSession().getCipherSuite() + ", not " + suite);
        }
    }
}
