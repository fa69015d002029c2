package org.sipcrypt.server.transport.netty.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.TransportCounters;
import picocli.CommandLine;

/**
 * The openssl TLS stage against the BoringSSL it ships with: the providers say exactly which suites
 * BoringSSL has; and a server and a client stage handshake in memory (channels pumped into each
 * other), the second connection resuming the first one's session on TLS 1.2 (session ID or ticket)
 * and TLS 1.3 (PSK from a ticket), and neither with session reuse off; each side counts its
 * handshakes under its own role ({@code tls.handshakes{role=server|client}}).
 */
@Timeout(60)
class OpenSslTlsStageTest {

    @TempDir
    Path dir;

    @Test
    void providersDeclareOpensslForExactlyTheSuitesBoringSslHas() {
        assertEquals(Map.of(), OpenSslTlsStage.unavailableEngines(), "BoringSSL loads on linux-x86_64");
        for (CipherSuiteProvider p : CipherSuiteRegistry.load().providers()) {
            for (CipherSuiteId s : p.suites()) {
                assertEquals(p.tlsEngines().contains(TlsEngine.OPENSSL), OpenSsl.isCipherSuiteAvailable(s.name()),
                        p.name() + ": " + s);
            }
        }
        for (String s : TlsChoices.BORINGSSL_TLS13) {
            assertTrue(OpenSsl.isCipherSuiteAvailable(s), s);
        }
    }

    @ParameterizedTest(name = "{0}, reuse {1}")
    @CsvSource({"1.2, on", "1.3, on", "1.2, off", "1.3, off"})
    void theSecondConnectionResumesTheFirstSessionOnlyWithReuseOn(String version, String reuse) throws Exception {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
        TlsConfig tls = new TlsConfig.Builder().cert(dir.resolve("server.pem")).key(dir.resolve("server-key.pem"))
                .trust(dir.resolve("ca.pem")).engine(TlsEngine.OPENSSL).versions(List.of(version))
                .sessionReuse(reuse.equals("on")).build();
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
        try (TlsStage stage = TlsStage.forListener(tls, CipherSuiteRegistry.load())) {
            assertTrue(stage instanceof OpenSslTlsStage, stage.getClass().getName());
            for (int i = 0; i < 2; i++) {
                String suite = handshake(stage, new TransportCounters(serverMeters), new TransportCounters(clientMeters));
                assertTrue(suite.startsWith("TLSv" + version + " "), suite);
            }
        }
        double resumed = reuse.equals("on") ? 1 : 0;
        // each side counts its handshakes under its own role, none under the other
        for (String role : List.of("server", "client")) {
            SimpleMeterRegistry m = role.equals("server") ? serverMeters : clientMeters;
            String other = role.equals("server") ? "client" : "server";
            assertEquals(2 - resumed, count(m, "full", role), role + ": full handshakes");
            assertEquals(resumed, count(m, "resumed", role), role + ": resumed handshakes");
            assertEquals(0, count(m, "full", other) + count(m, "resumed", other), role + ": none as " + other);
        }
    }

    /** One connection from the stage's client side to its server side; returns its protocol and suite. */
    private static String handshake(TlsStage stage, TransportCounters server, TransportCounters client) {
        EmbeddedChannel s = new EmbeddedChannel();
        EmbeddedChannel c = new EmbeddedChannel();
        try {
            s.pipeline().addLast("tls", stage.newHandler(s, null));
            s.pipeline().addLast("tls-events", new TlsEventsHandler(server));
            c.pipeline().addLast("tls", stage.newHandler(c, new InetSocketAddress("127.0.0.1", 5061)));
            c.pipeline().addLast("tls-events", new TlsEventsHandler(client));
            pumpUntilQuiet(c, s);
            // BoringSSL sends TLS 1.3 tickets with the server's first write, as a SIP server's first response
            s.writeAndFlush(Unpooled.copiedBuffer("SIP/2.0 200 OK\r\n\r\n", StandardCharsets.US_ASCII));
            pumpUntilQuiet(c, s);
            ByteBuf answer = c.readInbound();
            assertEquals("SIP/2.0 200 OK\r\n\r\n", answer.toString(StandardCharsets.US_ASCII));
            answer.release();
            SslHandler h = (SslHandler) c.pipeline().get("tls");
            assertTrue(h.handshakeFuture().isSuccess(), String.valueOf(h.handshakeFuture().cause()));
            assertTrue(((SslHandler) s.pipeline().get("tls")).handshakeFuture().isSuccess());
            return h.engine().getSession().getProtocol() + " " + h.engine().getSession().getCipherSuite();
        } finally {
            c.close();
            s.close();
            pumpAndRelease(c);
            pumpAndRelease(s);
            assertFalse(c.finish());
            assertFalse(s.finish());
        }
    }

    private static void pumpUntilQuiet(EmbeddedChannel c, EmbeddedChannel s) {
        boolean moved = true;
        for (int rounds = 0; moved && rounds < 20; rounds++) {
            moved = pump(c, s) | pump(s, c);
        }
    }

    /** Moves what {@code from} wrote into {@code to}; whether anything moved. */
    private static boolean pump(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        for (ByteBuf b = from.readOutbound(); b != null; b = from.readOutbound()) {
            to.writeInbound(b);
            moved = true;
        }
        return moved;
    }

    private static void pumpAndRelease(EmbeddedChannel ch) {
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            io.netty.util.ReferenceCountUtil.release(o);
        }
        for (Object o = ch.readInbound(); o != null; o = ch.readInbound()) {
            io.netty.util.ReferenceCountUtil.release(o);
        }
    }

    private static double count(SimpleMeterRegistry m, String kind, String role) {
        var c = m.find("tls.handshakes").tag("kind", kind).tag("role", role).counter();
        return c == null ? 0 : c.count();
    }
}
