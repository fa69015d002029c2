package org.sipcrypt.jmh;

import java.io.IOException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
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
public class HandshakeBenchmark extends HandshakeFixture {

    private BcTlsSetup clientSetup;
    private BcTlsSetup serverSetup;
    private int expectedSuite;
    private boolean expectResumed;

    @Setup(Level.Trial)
    public void configure() throws IOException {
        CipherSuiteId suite = suite(handshakeSuite(kind));
        expectedSuite = suite.code();
        boolean reuse = resumes();
        boolean mutual = mutual();
        BcTlsSetup.ClientCertificates asked = mutual ? BcTlsSetup.ClientCertificates.NEED : BcTlsSetup.ClientCertificates.NONE;
        Role clientRole = mutual ? Role.CLIENT_WITH_CERTIFICATE : Role.CLIENT;
        serverSetup = bcSetup(suite, CipherEngine.JCA, Role.SERVER, asked, reuse);
        clientSetup = bcSetup(suite, CipherEngine.JCA, clientRole, BcTlsSetup.ClientCertificates.NONE, reuse);
        BcHandshake first = BcHandshake.run(clientSetup, serverSetup, SERVER);
        checkFirst(first.client.resumed() || first.server.resumed(), first.server.peerCertificates() != null);
        expectResumed = reuse;
        check(BcHandshake.run(clientSetup, serverSetup, SERVER));
    }

    /** One handshake, new client and server connections. */
    @Benchmark
    public BcHandshake handshake(Sides sides) throws IOException {
        BcHandshake h = BcHandshake.run(clientSetup, serverSetup, SERVER);
        check(h);
        sides.add(h.serverNanos, h.clientNanos);
        return h;
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
}
