package org.sipcrypt.jmh;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

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
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class JsseHandshakeBenchmark extends LabFixture {

    @Param({"full", "resumed", "mutual", "ecdhe"})
    public String kind;

    private SSLContext clientContext;
    private SSLContext serverContext;
    private String suite;
    private boolean resume;
    private boolean mutual;

    @Setup(Level.Trial)
    public void configure() throws IOException {
        suite = HandshakeBenchmark.handshakeSuite(kind);
        resume = kind.equals("resumed");
        mutual = kind.equals("mutual");
        serverContext = jsseContext(Role.SERVER);
        clientContext = jsseContext(mutual ? Role.CLIENT_WITH_CERTIFICATE : Role.CLIENT);
        JsseHandshake first = JsseHandshake.run(clientContext, serverContext, suite, mutual, resume);
        if (first.resumed) {
            throw new IllegalStateException(kind + ": the first handshake resumed a session nobody had made");
        }
        if (mutual && first.server.getSession().getPeerCertificates().length == 0) {
            throw new IllegalStateException("mutual: the server completed without the client's certificate");
        }
        check(JsseHandshake.run(clientContext, serverContext, suite, mutual, resume));
    }

    /** One handshake, new client and server engines. */
    @Benchmark
    public JsseHandshake handshake(HandshakeBenchmark.Sides sides) throws IOException {
        JsseHandshake h = JsseHandshake.run(clientContext, serverContext, suite, mutual, resume);
        check(h);
        sides.serverNanos += h.serverNanos;
        sides.clientNanos += h.clientNanos;
        sides.handshakes++;
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
