package org.sipcrypt.server.transport.netty.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.TransportCounters;
import picocli.CommandLine;

/**
 * Each TLS engine's handshakes are counted under its name, {@code tls.handshakes{engine}}, on both
 * sides: a stage of that engine's server and client handlers handshake in memory (channels pumped
 * into each other), each side counting into a registry of its own. openssl runs where its native
 * library loads.
 */
@Timeout(60)
class TlsEventsHandlerTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @EnumSource(TlsEngine.class)
    void eachSideCountsItsHandshakeUnderTheEngineThatMadeIt(TlsEngine engine) throws Exception {
        assumeTrue(engine != TlsEngine.OPENSSL || OpenSsl.isAvailable(), "BoringSSL does not load here");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
        TlsConfig tls = new TlsConfig.Builder().cert(dir.resolve("server.pem")).key(dir.resolve("server-key.pem"))
                .trust(dir.resolve("ca.pem")).engine(engine).build();
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
        EmbeddedChannel s = new EmbeddedChannel();
        EmbeddedChannel c = new EmbeddedChannel();
        try (TlsStage stage = TlsStage.forListener(tls, CipherSuiteRegistry.load())) {
            s.pipeline().addLast("tls", stage.newHandler(s, null));
            s.pipeline().addLast("tls-events", new TlsEventsHandler(new TransportCounters(serverMeters)));
            c.pipeline().addLast("tls", stage.newHandler(c, new InetSocketAddress("127.0.0.1", 5061)));
            c.pipeline().addLast("tls-events", new TlsEventsHandler(new TransportCounters(clientMeters)));
            boolean moved = true;
            for (int rounds = 0; moved && rounds < 20; rounds++) {
                moved = pump(c, s) | pump(s, c);
            }
        } finally {
            c.close();
            s.close();
            release(c);
            release(s);
            assertFalse(c.finish());
            assertFalse(s.finish());
        }
        String name = engine.name().toLowerCase(Locale.ROOT);
        assertEquals(1, count(serverMeters, "role", "server"), "the listener's side: " + serverMeters.getMetersAsString());
        assertEquals(1, count(serverMeters, "engine", name), "under " + name + ": " + serverMeters.getMetersAsString());
        assertEquals(1, count(clientMeters, "role", "client"), "the dialling side: " + clientMeters.getMetersAsString());
        assertEquals(1, count(clientMeters, "engine", name), "under " + name + ": " + clientMeters.getMetersAsString());
    }

    /** Moves what {@code from} wrote into {@code to}; whether anything moved. */
    private static boolean pump(EmbeddedChannel from, EmbeddedChannel to) {
        from.runPendingTasks();
        boolean moved = false;
        for (ByteBuf b = from.readOutbound(); b != null; b = from.readOutbound()) {
            to.writeInbound(b);
            moved = true;
        }
        return moved;
    }

    private static void release(EmbeddedChannel ch) {
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            ReferenceCountUtil.release(o);
        }
        for (Object o = ch.readInbound(); o != null; o = ch.readInbound()) {
            ReferenceCountUtil.release(o);
        }
    }

    /** Handshakes counted with this tag, summed over the others. */
    private static double count(SimpleMeterRegistry m, String key, String value) {
        return m.find("tls.handshakes").tag(key, value).counters().stream().mapToDouble(Counter::count).sum();
    }
}
