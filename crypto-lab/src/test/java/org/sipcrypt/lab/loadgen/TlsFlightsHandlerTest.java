package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import picocli.CommandLine;

/**
 * The handshake-size stage in an {@link EmbeddedChannel}, fed real handshakes pumped in memory
 * between a client and a server of SunJSSE or of the server's bc engine: the bytes each wrote, whole
 * and one byte at a time, and the sizes compared with the record lengths in the bytes themselves.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsFlightsHandlerTest {

    private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 5061);

    @TempDir
    static Path certs;

    @BeforeAll
    static void makeCertificates() {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString(), "--key-type", "ecdsa"));
    }

    /** A SunJSSE context trusting the lab CA, presenting the server's certificate when {@code server}. */
    private static SSLContext sslContext(boolean server) throws Exception {
        return server ? TestPki.sslContext(certs, "server.pem", "server-key.pem") : TestPki.sslContext(certs, null, null);
    }

    /** One side of an in-memory handshake. */
    private interface Peer {
        /** What it has to send now, empty for nothing. */
        byte[] produce() throws IOException;

        void consume(byte[] bytes) throws IOException;

        boolean done();
    }

    /** The flights of a handshake as each side produced them, and the handler that saw them. */
    private record Pumped(List<byte[]> client, List<byte[]> server, TlsFlightsHandler handler,
                          TlsFlights atServerFlight) {
    }

    /**
     * Pumps a handshake to its end through the handler, client bytes as writes and server bytes as
     * reads, whole or a byte at a time; {@code atServerFlight} is what the handler said right after
     * the server's first flight, before the client answered.
     */
    private static Pumped pump(Peer client, Peer server, boolean byteByByte) throws IOException {
        TlsFlightsHandler handler = new TlsFlightsHandler();
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        List<byte[]> fromClient = new ArrayList<>();
        List<byte[]> fromServer = new ArrayList<>();
        TlsFlights atServerFlight = null;
        for (int round = 0; round < 10 && !(client.done() && server.done()); round++) {
            byte[] c = client.produce();
            if (c.length > 0) {
                fromClient.add(c);
                for (ByteBuf b : pieces(c, byteByByte)) {
                    ch.writeOutbound(b);
                }
                server.consume(c);
            }
            byte[] s = server.produce();
            if (s.length > 0) {
                fromServer.add(s);
                for (ByteBuf b : pieces(s, byteByByte)) {
                    ch.writeInbound(b);
                }
                if (fromServer.size() == 1) {
                    atServerFlight = handler.flights();
                }
                client.consume(s);
            }
        }
        assertTrue(client.done() && server.done(), "handshake done");
        ch.finishAndReleaseAll();
        return new Pumped(fromClient, fromServer, handler, atServerFlight);
    }

    private static List<ByteBuf> pieces(byte[] bytes, boolean byteByByte) {
        if (!byteByByte) {
            return List.of(Unpooled.wrappedBuffer(bytes));
        }
        List<ByteBuf> out = new ArrayList<>();
        for (byte b : bytes) {
            out.add(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        return out;
    }

    /** 5 plus the length in the record header at {@code at}. */
    private static int recordBytes(byte[] bytes, int at) {
        return 5 + ((bytes[at + 3] & 0xFF) << 8 | (bytes[at + 4] & 0xFF));
    }

    private static Peer jsse(SSLEngine e) {
        return new Peer() {
            private ByteBuffer pending = ByteBuffer.allocate(0);

            @Override
            public byte[] produce() throws SSLException {
                ByteBuffer out = ByteBuffer.allocate(e.getSession().getPacketBufferSize() * 4);
                while (true) {
                    if (e.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                        e.wrap(ByteBuffer.allocate(0), out);
                        tasks(e);
                    } else if (pending.hasRemaining()
                            && e.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
                        // records left unread while the engine had something to write first
                        unwrap();
                    } else {
                        return Arrays.copyOf(out.array(), out.position());
                    }
                }
            }

            @Override
            public void consume(byte[] bytes) throws SSLException {
                pending = ByteBuffer.allocate(pending.remaining() + bytes.length).put(pending).put(bytes).flip();
                unwrap();
            }

            private void unwrap() throws SSLException {
                ByteBuffer app = ByteBuffer.allocate(e.getSession().getApplicationBufferSize());
                while (pending.hasRemaining() && e.getHandshakeStatus() != SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                    SSLEngineResult r = e.unwrap(pending, app);
                    tasks(e);
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW || r.bytesConsumed() == 0) {
                        break;
                    }
                }
            }

            @Override
            public boolean done() {
                return !pending.hasRemaining()
                        && e.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
            }
        };
    }

    private static void tasks(SSLEngine e) {
        Runnable task;
        while ((task = e.getDelegatedTask()) != null) {
            task.run();
        }
    }

    private static SSLEngine jsseClient(SSLContext ctx, String version) throws SSLException {
        SSLEngine e = ctx.createSSLEngine(SERVER.getHostString(), SERVER.getPort());
        e.setUseClientMode(true);
        e.setEnabledProtocols(new String[] {version});
        e.beginHandshake();
        return e;
    }

    private static SSLEngine jsseServer(SSLContext ctx) throws SSLException {
        SSLEngine e = ctx.createSSLEngine();
        e.setUseClientMode(false);
        e.beginHandshake();
        return e;
    }

    private static Peer bc(BcTlsSetup setup, InetSocketAddress dialled) throws IOException {
        var c = setup.newConnection(dialled);
        if (dialled != null) {
            c.start();
        }
        return new Peer() {
            private boolean started = dialled != null;

            @Override
            public byte[] produce() {
                byte[] out = c.takeOutput();
                return out == null ? new byte[0] : out;
            }

            @Override
            public void consume(byte[] bytes) throws IOException {
                if (!started) {
                    c.start();
                    started = true;
                }
                c.offer(bytes, 0, bytes.length);
            }

            @Override
            public boolean done() {
                return c.handshakeComplete();
            }
        };
    }

    @ParameterizedTest(name = "TLS {0} on SunJSSE, byte by byte {1}")
    @CsvSource({"TLSv1.3, false", "TLSv1.3, true", "TLSv1.2, false", "TLSv1.2, true"})
    void theClientHelloIsItsRecordAndTheServersFlightIsAllItSentBeforeTheClientsAnswer(String version,
            boolean byteByByte) throws Exception {
        SSLContext server = sslContext(true);
        SSLContext client = sslContext(false);
        Pumped p = pump(jsse(jsseClient(client, version)), jsse(jsseServer(server)), byteByByte);

        byte[] hello = p.client().get(0);
        assertEquals(22, hello[0], "a handshake record");
        assertEquals(1, hello[5], "holding a ClientHello");
        assertEquals(hello.length, recordBytes(hello, 0), "SunJSSE writes its ClientHello alone, in one record");
        TlsFlights f = p.handler().flights();
        assertNotNull(f);
        assertEquals(hello.length, f.clientHelloBytes());
        // the server's first flight, record by record: SunJSSE's server sends its next flight
        // (TLS 1.2's ChangeCipherSpec and Finished, TLS 1.3's NewSessionTicket) only after the client's answer
        byte[] flight = p.server().get(0);
        int records = 0;
        for (int at = 0; at < flight.length; at += recordBytes(flight, at)) {
            records++;
        }
        assertTrue(records >= (version.equals("TLSv1.2") ? 1 : 2), "records of the server's flight: " + records);
        assertEquals(flight.length, f.serverFlightBytes());
        assertTrue(p.server().size() > 1, "the server wrote again after the client's answer, not counted");
        assertEquals(f, p.atServerFlight(), "whole as soon as it was read");
        assertEquals(1, f.clientHelloSegments());
        assertEquals(TlsFlights.segments(flight.length), f.serverFlightSegments());
    }

    @Test
    void aResumedTls12HandshakeIsMeasuredToo() throws Exception {
        SSLContext server = sslContext(true);
        SSLContext client = sslContext(false);
        SSLEngine first = jsseClient(client, "TLSv1.2");
        TlsFlights full = pump(jsse(first), jsse(jsseServer(server)), false).handler().flights();
        SSLEngine again = jsseClient(client, "TLSv1.2");
        Pumped p = pump(jsse(again), jsse(jsseServer(server)), true);
        assertTrue(Arrays.equals(first.getSession().getId(), again.getSession().getId()), "the session resumed");
        TlsFlights resumed = p.handler().flights();
        assertNotNull(resumed);
        assertEquals(p.client().get(0).length, resumed.clientHelloBytes());
        assertTrue(resumed.clientHelloBytes() > full.clientHelloBytes(), "a session offered: " + resumed + ", " + full);
        // ServerHello, SunJSSE's new ticket, ChangeCipherSpec and Finished; the client's ChangeCipherSpec
        // and Finished answer it, and the server sends nothing more
        assertEquals(p.server().get(0).length, resumed.serverFlightBytes());
        assertEquals(1, p.server().size(), "one flight from the server");
    }

    @Test
    void aHybridKeyShareAddsItsLengthToTheClientHelloAndTheServersFlight() throws Exception {
        TlsFlights x25519 = bcHandshake("x25519");
        TlsFlights hybrid = bcHandshake("x25519mlkem768");
        // key shares of 1,216 and 1,120 bytes (ML-KEM-768's encapsulation key and ciphertext, then
        // X25519's 32 bytes) in place of 32 each way; the rest differs at most by the length of the
        // server's ECDSA signature (DER, 70 to 72 bytes)
        assertEquals(1216 - 32, hybrid.clientHelloBytes() - x25519.clientHelloBytes(), hybrid + " against " + x25519);
        assertTrue(Math.abs(hybrid.serverFlightBytes() - x25519.serverFlightBytes() - (1120 - 32)) <= 2,
                hybrid + " against " + x25519);
        assertEquals(TlsFlights.segments(hybrid.clientHelloBytes()), hybrid.clientHelloSegments());
        assertEquals(2, TlsFlights.segments(TlsFlights.ETHERNET_MSS_BYTES + 1));
        assertEquals(1, TlsFlights.segments(TlsFlights.ETHERNET_MSS_BYTES));
    }

    /** A TLS 1.3 handshake between the bc engine's client and server offering {@code group} alone. */
    private static TlsFlights bcHandshake(String group) throws Exception {
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        TlsChoices choices = TlsChoices.resolve(registry, List.of("aes"), false, TlsEngine.BC, List.of(),
                List.of("1.3"), List.of(group), Map.of());
        BcTlsSetup serving = BcTlsSetup.create(KeyMaterial.read(certs.resolve("server.pem"),
                certs.resolve("server-key.pem"), null), null, choices, registry, BcTlsSetup.ClientCertificates.NONE,
                false, 10, Duration.ofHours(1), true);
        BcTlsSetup connecting = BcTlsSetup.create(null, certs.resolve("ca.pem"), choices, registry,
                BcTlsSetup.ClientCertificates.NONE, false, 10, Duration.ofHours(1), true);
        Pumped p = pump(bc(connecting, SERVER), bc(serving, null), false);
        TlsFlights f = p.handler().flights();
        assertNotNull(f, group);
        assertEquals(recordBytes(p.client().get(0), 0), f.clientHelloBytes(), group);
        assertEquals(p.server().get(0).length, f.serverFlightBytes(), group);
        return f;
    }

    @Test
    void theClientHellosFirstWriteIsTimedAndNoLaterOne() throws Exception {
        TlsFlightsHandler handler = new TlsFlightsHandler();
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        ch.writeOutbound(Unpooled.EMPTY_BUFFER);
        assertFalse(handler.clientHelloWritten(), "nothing written yet");
        byte[] hello = jsse(jsseClient(sslContext(false), "TLSv1.3")).produce();
        long before = System.nanoTime();
        ch.writeOutbound(Unpooled.wrappedBuffer(hello, 0, 1));
        long after = System.nanoTime();
        assertTrue(handler.clientHelloWritten());
        long first = handler.clientHelloNanos();
        assertTrue(first - before >= 0 && after - first >= 0, "noted as the first byte went down");
        ch.writeOutbound(Unpooled.wrappedBuffer(hello, 1, hello.length - 1));
        assertEquals(first, handler.clientHelloNanos(), "the rest of the ClientHello does not move it");
        ch.finishAndReleaseAll();
        // bytes whose sizes are declined are timed all the same: the latency does not read them
        TlsFlightsHandler plain = new TlsFlightsHandler();
        EmbeddedChannel other = new EmbeddedChannel(plain);
        other.writeOutbound(Unpooled.copiedBuffer("OPTIONS", StandardCharsets.US_ASCII));
        assertTrue(plain.clientHelloWritten());
        other.finishAndReleaseAll();
    }

    @Test
    void bytesThatAreNotTlsAreDeclined() {
        TlsFlightsHandler handler = new TlsFlightsHandler();
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        ch.writeOutbound(Unpooled.copiedBuffer("OPTIONS sip:127.0.0.1 SIP/2.0\r\n\r\n", StandardCharsets.US_ASCII));
        ch.writeInbound(Unpooled.copiedBuffer("SIP/2.0 200 OK\r\n\r\n", StandardCharsets.US_ASCII));
        assertNull(handler.flights());
        ch.finishAndReleaseAll();
    }

    @Test
    void aHelloRetryRequestIsDeclinedAndAServerHelloIsNot() throws Exception {
        byte[] hello = jsse(jsseClient(sslContext(false), "TLSv1.3")).produce();
        assertNull(answered(hello, serverHello(true)).flights(), "a HelloRetryRequest: two round trips, not measured");
        TlsFlights f = answered(hello, serverHello(false)).flights();
        assertNotNull(f, "the same record with another random");
        assertEquals(hello.length, f.clientHelloBytes());
        assertEquals(serverHello(false).length, f.serverFlightBytes());
    }

    private static TlsFlightsHandler answered(byte[] hello, byte[] answer) {
        TlsFlightsHandler handler = new TlsFlightsHandler();
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        ch.writeOutbound(Unpooled.wrappedBuffer(hello));
        ch.writeInbound(Unpooled.wrappedBuffer(answer));
        ch.finishAndReleaseAll();
        return handler;
    }

    /** A handshake record holding a ServerHello's first 38 bytes and 10 more, its random HRR's or not. */
    private static byte[] serverHello(boolean retry) {
        byte[] random = retry ? hex("CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C") : new byte[32];
        ByteBuffer b = ByteBuffer.allocate(5 + 48);
        b.put(new byte[] {22, 3, 3, 0, 48, 2, 0, 0, 44, 3, 3}).put(random).put(new byte[10]);
        return b.array();
    }

    private static byte[] hex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
