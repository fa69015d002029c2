package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.Sipp;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The real SIPp through the real proxy: a SIPp UAS registered behind the proxy, a SIPp UAC placing
 * 1,000 calls at 100 calls/s through it; every call must succeed. Over UDP, over TCP with one
 * connection, over TCP with a connection per call from the UAC, and with the proxy opening a
 * connection per call towards the UAS.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SippCallsThroughProxyIT {

    private static final int CALLS = 1000;
    private static final double RATE = 100;

    @TempDir
    Path dir;

    static Stream<Arguments> legs() {
        return Stream.of(
                Arguments.of("udp", Sipp.Mode.UDP, Sipp.Mode.UDP, "persistent"),
                Arguments.of("tcp, one connection", Sipp.Mode.TCP, Sipp.Mode.TCP, "persistent"),
                Arguments.of("tcp, a connection per call from the UAC", Sipp.Mode.TCP_PER_CALL, Sipp.Mode.TCP, "persistent"),
                Arguments.of("tcp, a connection per call from the proxy", Sipp.Mode.TCP, Sipp.Mode.TCP, "per-call"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legs")
    void everyCallSucceeds(String name, Sipp.Mode uacMode, Sipp.Mode uasMode, String outgoing) throws Exception {
        // The UAS may serve one call more than is placed, so it is still running when the last call
        // ends: a SIPp that exits after its last call closes that call's connection itself, racing
        // the proxy's own close of a per-call connection.
        try (TestServer server = TestServer.start(dir, "tcp.connection", outgoing);
             Sipp.Running uas = Sipp.startUas(uasMode, 0, CALLS + 1, Duration.ofSeconds(100))) {
            Transport t = uacMode == Sipp.Mode.UDP ? Transport.UDP : Transport.TCP;
            Sipp.Result reg = Sipp.scenario("register.xml")
                    .mode(Sipp.Mode.UDP)
                    .remote("127.0.0.1", server.address(Transport.UDP).getPort())
                    .service("callee")
                    .key("contact_port", Integer.toString(uas.port()))
                    .key("contact_transport", uasMode == Sipp.Mode.UDP ? "udp" : "tcp")
                    .calls(1)
                    .timeout(Duration.ofSeconds(10))
                    .run();
            assertTrue(reg.allCallsSucceeded(), reg::describe);

            Sipp.Result uac = Sipp.scenario("uac.xml")
                    .mode(uacMode)
                    .remote("127.0.0.1", server.address(t).getPort())
                    .service("callee")
                    .rate(RATE)
                    .calls(CALLS)
                    .timeout(Duration.ofSeconds(60))
                    .run();
            assertTrue(uac.allCallsSucceeded(), uac::describe);
            assertEquals(CALLS, uac.successfulCalls(), uac::describe);
            assertEquals(0, uac.failedCalls(), uac::describe);

            var counters = server.server().transportCounters();
            if (outgoing.equals("per-call")) {
                assertEquals(CALLS, counters.value("transport.connections.opened", "direction", "outbound"),
                        server.server().statsLine());
                Await.until(() -> counters.value("transport.connections.closed", "reason", "call_ended") == CALLS,
                        Duration.ofSeconds(10), () -> server.server().statsLine());
            } else if (uasMode != Sipp.Mode.UDP) {
                assertEquals(1, counters.value("transport.connections.opened", "direction", "outbound"),
                        server.server().statsLine());
            }
        }
    }
}
