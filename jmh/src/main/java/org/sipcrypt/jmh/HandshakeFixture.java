package org.sipcrypt.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The base of the two handshake benchmarks ({@link HandshakeBenchmark} on the bc engine,
 * {@link JsseHandshakeBenchmark} on jsse): the handshake kinds as a JMH parameter, the suite each
 * kind negotiates, the checks of the set-up's first handshake, and the counters of each side's
 * share. Scores in µs.
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public abstract class HandshakeFixture extends LabFixture {

    private static final List<String> KINDS = List.of("full", "resumed", "mutual", "ecdhe");

    @Param({"full", "resumed", "mutual", "ecdhe"})
    public String kind;

    /** The suite of a handshake kind: ECDHE's own, else RFC 3261's RSA suite; refuses an unknown kind. */
    static String handshakeSuite(String kind) {
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("handshake kind \"" + kind + "\" (expected full, resumed, mutual or ecdhe)");
        }
        return kind.equals("ecdhe") ? "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" : "TLS_RSA_WITH_AES_128_CBC_SHA";
    }

    /** Whether this kind resumes a session (the one of the set-up's first handshake). */
    boolean resumes() {
        return kind.equals("resumed");
    }

    /** Whether this kind's server requires a client certificate. */
    boolean mutual() {
        return kind.equals("mutual");
    }

    /**
     * Fails the trial unless the set-up's first handshake was a full one and, for {@code mutual}, the
     * server got the client's certificate.
     */
    void checkFirst(boolean resumed, boolean serverHasClientCertificate) {
        if (resumed) {
            throw new IllegalStateException(kind + ": the first handshake resumed a session nobody had made");
        }
        if (mutual() && !serverHasClientCertificate) {
            throw new IllegalStateException("mutual: the server completed without the client's certificate");
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

        /** Counts one handshake and each side's time in it. */
        void add(long server, long client) {
            serverNanos += server;
            clientNanos += client;
            handshakes++;
        }
    }
}
