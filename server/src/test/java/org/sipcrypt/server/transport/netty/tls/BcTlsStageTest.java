package org.sipcrypt.server.transport.netty.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsConnection;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.TransportCounters;
import picocli.CommandLine;

/**
 * The bc TLS stage's handshake threads: their queue is bounded (tls.handshakeQueue), and a
 * connection whose handshake record finds it full fails its handshake as an overload and is closed.
 * The pool is filled by a task held on a latch, not by load.
 */
@Timeout(60)
class BcTlsStageTest {

    @TempDir
    Path dir;

    private final CipherSuiteRegistry registry = CipherSuiteRegistry.load();

    @Test
    void handshakeRecordFindingTheQueueFullFailsThatHandshakeAsOverload() throws Exception {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
        TlsChoices choices = TlsChoices.resolve(registry, List.of("aes"), false, TlsEngine.BC, List.of("jca"),
                List.of("1.2", "1.3"));
        BcTlsSetup serverSetup = BcTlsSetup.create(KeyMaterial.read(dir.resolve("server.pem"),
                dir.resolve("server-key.pem"), null), null, choices, registry, BcTlsSetup.ClientCertificates.NONE,
                true, 100, Duration.ofMinutes(5), true);
        BcTlsSetup clientSetup = BcTlsSetup.create(null, dir.resolve("ca.pem"), choices, registry,
                BcTlsSetup.ClientCertificates.NONE, true, 100, Duration.ofMinutes(5), true);
        ThreadPoolExecutor handshakes = NamedThreads.numbered("sipcrypt-tls").boundedPool(1, 1);
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        EmbeddedChannel ch = new EmbeddedChannel();
        try (BcTlsStage stage = new BcTlsStage(serverSetup, 30_000, handshakes)) {
            handshakes.execute(() -> {
                busy.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(busy.await(30, TimeUnit.SECONDS));
            handshakes.execute(() -> { });
            ch.pipeline().addLast("tls", stage.newHandler(ch, null));
            ch.pipeline().addLast("tls-events", new TlsEventsHandler(new TransportCounters(meters)));

            BcTlsConnection client = clientSetup.newConnection(new InetSocketAddress("127.0.0.1", 5061));
            client.start();
            byte[] clientHello = client.takeOutput();
            assertNotNull(clientHello);
            ch.writeInbound(Unpooled.wrappedBuffer(clientHello));

            assertFalse(ch.isOpen());
            assertEquals(1.0, meters.get("tls.handshakes.failed").tag("reason", "overload").counter().count());
        } finally {
            release.countDown();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void listenerStageOnBcTakesItsHandshakePoolFromTheSettings() throws Exception {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
        TlsConfig tls = TlsConfig.defaults().toBuilder().cert(dir.resolve("server.pem"))
                .key(dir.resolve("server-key.pem")).engine(TlsEngine.BC).handshakeThreads(1).handshakeQueue(3).build();
        try (TlsStage stage = TlsStage.forListener(tls, registry)) {
            BcTlsStage bc = assertInstanceOfBc(stage);
            assertTrue(bc.canServe());
            assertEquals(3, bc.handshakeQueueCapacity());
        }
    }

    private static BcTlsStage assertInstanceOfBc(TlsStage stage) {
        assertTrue(stage instanceof BcTlsStage, String.valueOf(stage));
        return (BcTlsStage) stage;
    }
}
