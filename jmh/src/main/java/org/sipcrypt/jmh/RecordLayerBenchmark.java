package org.sipcrypt.jmh;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * What one TLS record costs to protect and to unprotect, per cipher-suite provider (its TLS 1.2
 * RSA suite: AES-128-CBC, 3DES-EDE-CBC, Camellia-128-CBC and SEED-CBC with HMAC-SHA1, and
 * RC4-128 with HMAC-SHA1), TLS engine and crypto engine ({@link CipherRow}: {@code aes/jsse},
 * {@code aes/bc/jca}, ...), and payload size (a REGISTER of 400 bytes, an INVITE with SDP of
 * 1024, and 4096). The records go through the server's own record layers: the bc engine's
 * connections from {@code BcTlsSetup} (the {@code TlsCipher} its {@code TlsCrypto} built, BC
 * lightweight or JCA), a SunJSSE {@code SSLEngine} for jsse, and Netty's OpenSslEngine on BoringSSL
 * for openssl ({@code aes/openssl}: AES-128-CBC there too). Rows a provider cannot run are
 * refused by the server's own check when the trial starts.
 *
 * <p>Method. {@code protect}: the client side protects the payload into one record; nothing reads
 * the records, which costs the sender nothing. {@code unprotect}: TLS 1.2 binds each record to
 * its sequence number (in the MAC), so a record can be unprotected once, in order, on the
 * connection that expects it. Each invocation therefore unprotects a batch of {@value #BATCH}
 * records that the same connection's client side protected in an untimed per-invocation set-up,
 * and JMH divides by {@value #BATCH} ({@code @OperationsPerInvocation}); a batch takes tens of
 * microseconds or more, so the timestamps JMH takes around each invocation cost well under 1 % of
 * it. Both report ns per record; the summary adds MB/s (payload bytes per second, without the
 * record's header, MAC and padding). Two bc peers negotiate encrypt-then-MAC (RFC 7366), as the
 * server's bc engine does with OpenSSL clients; SunJSSE has no encrypt-then-MAC.
 * Threading: stateless; its states are one per benchmark thread (JMH thread scope).
 */
public class RecordLayerBenchmark extends BenchmarkDefaults {

    /** Records unprotected per invocation of {@link #unprotect}. */
    public static final int BATCH = 64;

    /** One record protected on the client side; returns its length. */
    @Benchmark
    public int protect(Connection connection) throws IOException {
        return connection.channel.protect(connection.payload);
    }

    /** One record unprotected on the server side (of a batch of {@value #BATCH}, see the class comment). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void unprotect(ReceivingConnection connection, Blackhole bh) throws IOException {
        for (byte[] record : connection.records) {
            bh.consume(connection.channel.unprotect(record));
        }
    }

    /**
     * A handshaken connection pair of one row, and the payload of one size.
     * Threading: one instance per benchmark thread (JMH thread scope).
     */
    @State(Scope.Thread)
    public static class Connection extends LabFixture {

        @Param({"aes/jsse", "aes/openssl", "aes/bc/jca", "aes/bc/bc", "3des/jsse", "3des/bc/jca", "3des/bc/bc", "camellia/bc/bc",
            "seed/bc/bc", "rc4/jsse"})
        public String row;

        @Param({"400", "1024", "4096"})
        public int size;

        RecordChannel channel;
        byte[] payload;
        /** The openssl rows' native contexts and engines, released after the trial. */
        private final List<ReferenceCounted> natives = new ArrayList<>();

        /** Handshakes, then checks that a protected record unprotects to the payload. */
        @Setup(Level.Trial)
        public void connect() throws IOException {
            CipherRow r = CipherRow.parse(row);
            CipherSuiteId suite = measuredSuite(r.provider());
            if (r.engine() == TlsEngine.JSSE) {
                checkJsse(suite);
                channel = new JsseRecordChannel(jsseContext(Role.CLIENT), jsseContext(Role.SERVER), suite.jsseName());
            } else if (r.engine() == TlsEngine.OPENSSL) {
                checkOpenssl(suite);
                ReferenceCountedOpenSslContext client = opensslContext(Role.CLIENT);
                natives.add(client);
                ReferenceCountedOpenSslContext server = opensslContext(Role.SERVER);
                natives.add(server);
                SSLEngine clientEngine = client.newEngine(ByteBufAllocator.DEFAULT, SERVER.getHostString(), SERVER.getPort());
                natives.add((ReferenceCounted) clientEngine);
                SSLEngine serverEngine = server.newEngine(ByteBufAllocator.DEFAULT);
                natives.add((ReferenceCounted) serverEngine);
                channel = new JsseRecordChannel(clientEngine, serverEngine, suite.name());
            } else {
                BcTlsSetup client = bcSetup(suite, r.crypto(), Role.CLIENT, BcTlsSetup.ClientCertificates.NONE, false);
                BcTlsSetup server = bcSetup(suite, r.crypto(), Role.SERVER, BcTlsSetup.ClientCertificates.NONE, false);
                channel = new BcRecordChannel(client, server);
                String expected = String.format("0x%04X", suite.code());
                if (!channel.negotiatedSuite().equals(expected)) {
                    throw new IllegalStateException(row + ": bc negotiated " + channel.negotiatedSuite() + ", not " + suite);
                }
            }
            payload = SipMessages.payload(size);
            channel.unprotect(channel.protectToArray(payload));
            if (!Arrays.equals(payload, channel.lastPlaintext())) {
                throw new IllegalStateException(row + ": a record of " + size + " bytes did not unprotect to its payload");
            }
        }

        /** Releases the openssl rows' engines, then their contexts. */
        @TearDown(Level.Trial)
        public void releaseNatives() {
            for (int i = natives.size() - 1; i >= 0; i--) {
                natives.get(i).release();
            }
            natives.clear();
        }
    }

    /**
     * A connection whose client side protects the next {@value #BATCH} records before each
     * invocation of {@link #unprotect} (untimed), for its server side to unprotect in order.
     * Threading: one instance per benchmark thread (JMH thread scope).
     */
    @State(Scope.Thread)
    public static class ReceivingConnection extends Connection {

        final byte[][] records = new byte[BATCH][];

        @Setup(Level.Invocation)
        public void protectBatch() throws IOException {
            for (int i = 0; i < BATCH; i++) {
                records[i] = channel.protectToArray(payload);
            }
        }
    }
}
