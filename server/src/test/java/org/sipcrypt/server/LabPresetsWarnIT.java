package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.netty.tls.TlsStage;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The lab-only presets ({@code tls.preset=lab-insecure}, {@code auth.preset=lab-legacy-digest}) warn
 * at start exactly as the lab-only keys they stand for do; the secure presets do not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LabPresetsWarnIT {

    @TempDir
    Path dir;
    private final List<Logger> loggers = List.of((Logger) LoggerFactory.getLogger(TlsStage.class),
            (Logger) LoggerFactory.getLogger(Listeners.class), (Logger) LoggerFactory.getLogger(Authentication.class));
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();

    @BeforeEach
    void capture() {
        events.start();
        loggers.forEach(l -> l.addAppender(events));
    }

    @AfterEach
    void release() {
        loggers.forEach(l -> l.detachAppender(events));
    }

    private List<String> warnings() {
        // ListAppender appends under the appender's own lock (AppenderBase.doAppend is synchronized)
        synchronized (events) {
            return events.list.stream().filter(e -> e.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    private TestServer startTls(String preset) throws Exception {
        Path certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        return TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.preset", preset);
    }

    @Test
    void labInsecureTlsPresetWarnsOfItsSuitesAndOnTheListener() throws Exception {
        try (TestServer server = startTls("lab-insecure")) {
            assertEquals(List.of("aes", "3des", "rc4"), server.config().tls().ciphers());
            List<String> w = warnings();
            assertTrue(w.contains("TLS: insecure TLS suites enabled: [3des, rc4] (tls.allowInsecure, lab only)"), w.toString());
            String listener = "tls listener tls 127.0.0.1:" + server.address(org.sipcrypt.server.transport.Transport.TLS).getPort()
                    + " offers insecure suites [3des, rc4] (tls.allowInsecure, lab only)";
            assertTrue(w.contains(listener), w.toString());
        }
    }

    @Test
    void modernTlsPresetWarnsOfNothing() throws Exception {
        try (TestServer server = startTls("modern")) {
            assertEquals(List.of(), warnings());
        }
    }

    @Test
    void labLegacyDigestPresetWarnsOfNoQopAndTheUncheckedUri() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth.preset", "lab-legacy-digest")) {
            List<String> w = warnings();
            assertTrue(w.stream().anyMatch(m -> m.startsWith("auth.legacyNoQop on (lab only")), w.toString());
            assertTrue(w.stream().anyMatch(m -> m.startsWith("auth.lab.skipUriCheck on (lab only)")), w.toString());
            assertEquals(2, w.size(), w.toString());
        }
    }

    @Test
    void securePresetWarnsOfNothing() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth.preset", "secure")) {
            assertTrue(server.config().auth().enabled());
            assertEquals(List.of(), warnings());
        }
    }
}
