package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.LoggerFactory;

/**
 * The README's TRACE message dumps on logger {@code sipcrypt.messages}: both directions, on every
 * transport, credentials masked.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MessageDumpIT {

    @TempDir
    Path dir;
    private final Logger messages = (Logger) LoggerFactory.getLogger("sipcrypt.messages");
    private final ListAppender<ILoggingEvent> dumps = new ListAppender<>();
    private Level before;

    @BeforeEach
    void capture() {
        before = messages.getLevel();
        messages.setLevel(Level.TRACE);
        dumps.start();
        messages.addAppender(dumps);
    }

    @AfterEach
    void release() {
        messages.detachAppender(dumps);
        messages.setLevel(before);
    }

    private synchronized List<String> dumped() {
        // ListAppender appends under the appender's own lock (AppenderBase.doAppend is synchronized)
        synchronized (dumps) {
            return dumps.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"udp, netty", "tcp, netty", "udp, jain-oio", "tcp, jain-oio"})
    void receivedAndSentMessagesAreDumpedAtTrace(String transport, String impl) throws Exception {
        try (TestServer server = TestServer.start(dir, "transport.impl", impl)) {
            Transport t = Transport.valueOf(transport.toUpperCase(java.util.Locale.ROOT));
            try (SipSocket s = server.socket(t)) {
                String hp = server.hostPort(t);
                String callId = "dump-" + transport + "-" + impl;
                s.send(s.request("OPTIONS", "sip:" + hp, "alice", hp, callId, 1,
                        "Authorization: Digest username=\"alice\", response=\"secret-response\"\r\n"));
                assertNotNull(s.awaitMessage("SIP/2.0 200", Duration.ofSeconds(5)));
                Await.until(() -> dumped().stream().anyMatch(m -> m.contains("OPTIONS sip:") && m.contains(callId))
                                && dumped().stream().anyMatch(m -> m.contains("SIP/2.0 200") && m.contains(callId)),
                        Duration.ofSeconds(5), () -> "dumps: " + dumped());
            }
        }
        assertTrue(dumped().stream().noneMatch(m -> m.contains("secret-response")), "credentials dumped: " + dumped());
        assertTrue(dumped().stream().anyMatch(m -> m.contains("Authorization: Digest <masked>")), dumped().toString());
    }
}
