package org.sipcrypt.jmh;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;

/**
 * What a TLS 1.2 handshake costs on the bc engine, between the server's own client and server
 * connections ({@code BcTlsSetup}, RSA-2048 lab certificates, chains and names checked as in
 * production), in memory. Kinds: {@code full} (RSA key exchange, {@code TLS_RSA_WITH_AES_128_CBC_SHA},
 * RFC 3261's suite, session reuse off), {@code resumed} (the same suite, reuse on, resuming the
 * session of a handshake made at set-up: an abbreviated handshake by session ID), {@code mutual}
 * (full, and the server requires a client certificate and checks it), {@code ecdhe}
 * ({@code TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}: the server signs its ECDHE share with RSA; the
 * group is Bouncy Castle's default choice).
 *
 * <p>The score is the whole handshake (both sides and the hand-over of the flights). The server's
 * and client's shares are measured apart inside each operation ({@link BcHandshake}) and reported
 * as the counters {@code serverNanos}, {@code clientNanos} and {@code handshakes}; the summary turns
 * them into µs per handshake and handshakes per second for each side. Every operation checks that
 * both sides completed, negotiated the kind's suite and resumed exactly when the kind says so, and
 * fails the run otherwise.
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class HandshakeBenchmark extends LabFixture {

    @Param({"full", "resumed", "mutual", "ecdhe"})
    public String kind;

    private BcTlsSetup clientSetup;
    private BcTlsSetup serverSetup;
    private int expectedSuite;
    private boolean expectResumed;

    @Setup(Level.Trial)
    public void configure() throws IOException {
        CipherSuiteId suite = suite(handshakeSuite(kind));
        expectedSuite = suite.code();
        boolean reuse = kind.equals("resumed");
        boolean mutual = kind.equals("mutual");
        BcTlsSetup.ClientCertificates asked = mutual ? BcTlsSetup.ClientCertificates.NEED : BcTlsSetup.ClientCertificates.NONE;
        Role clientRole = mutual ? Role.CLIENT_WITH_CERTIFICATE : Role.CLIENT;
        serverSetup = bcSetup(suite, CipherEngine.JCA, Role.SERVER, asked, reuse);
        clientSetup = bcSetup(suite, CipherEngine.JCA, clientRole, BcTlsSetup.ClientCertificates.NONE, reuse);
        BcHandshake first = BcHandshake.run(clientSetup, serverSetup, SERVER);
        if (first.client.resumed() || first.server.resumed()) {
            throw new IllegalStateException(kind + ": the first handshake resumed a session nobody had made");
        }
        if (mutual && first.server.peerCertificates() == null) {
            throw new IllegalStateException("mutual: the server completed without the client's certificate");
        }
        expectResumed = reuse;
        check(BcHandshake.run(clientSetup, serverSetup, SERVER));
    }

    /** One handshake, new client and server connections. */
    @Benchmark
    public BcHandshake handshake(Sides sides) throws IOException {
        BcHandshake h = BcHandshake.run(clientSetup, serverSetup, SERVER);
        check(h);
        sides.serverNanos += h.serverNanos;
        sides.clientNanos += h.clientNanos;
        sides.handshakes++;
        return h;
    }

    /** The suite of a handshake kind: ECDHE's own, else RFC 3261's RSA suite; refuses an unknown kind. */
    static String handshakeSuite(String kind) {
        if (!List.of("full", "resumed", "mutual", "ecdhe").contains(kind)) {
            throw new IllegalArgumentException("handshake kind \"" + kind + "\" (expected full, resumed, mutual or ecdhe)");
        }
        return kind.equals("ecdhe") ? "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" : "TLS_RSA_WITH_AES_128_CBC_SHA";
    }

    private void check(BcHandshake h) {
        if (h.client.resumed() != expectResumed || h.server.resumed() != expectResumed) {
            throw new IllegalStateException(kind + ": expected " + (expectResumed ? "a resumed" : "a full")
                    + " handshake, got client resumed=" + h.client.resumed() + ", server resumed=" + h.server.resumed());
        }
        if (h.server.cipherSuite() != expectedSuite || h.client.cipherSuite() != expectedSuite) {
            throw new IllegalStateException(kind + ": negotiated " + h.server.cipherSuite() + ", not " + expectedSuite);
        }
    }

    /**
     * Time spent in each side's calls, and handshakes made, in this iteration: JMH reports the
     * public fields as secondary results ({@code AuxCounters} events).
     * Threading: one instance per benchmark thread (JMH thread scope).
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Sides {
        public long serverNanos;
        public long clientNanos;
        public long handshakes;

        @Setup(Level.Iteration)
        public void reset() {
            serverNanos = 0;
            clientNanos = 0;
            handshakes = 0;
        }
    }
}
