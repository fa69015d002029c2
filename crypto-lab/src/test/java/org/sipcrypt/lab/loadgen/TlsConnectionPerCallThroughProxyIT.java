package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * The generator at a per-call TLS rate through the real sipcrypt server: 300 calls/s for 5 s, each
 * on a TLS connection of its own with session reuse off (a full handshake per call), on each of the
 * generator's TLS engines; the server record-routes and forwards over UDP to the lab's UAS. Every
 * call must complete, with a handshake counted for each. The call timeout is generous, so a busy
 * machine makes calls slower, not failed, and the server's overload limits are raised out of reach.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TlsConnectionPerCallThroughProxyIT {

    private static final double RATE = 300;
    private static final Duration DURATION = Duration.ofSeconds(5);
    /** RFC 3261 §26.3.1's suite: RSA key transport, no ECDHE and no signature per handshake. */
    private static final String SUITE = "TLS_RSA_WITH_AES_128_CBC_SHA";
    private static final long CALLS = Math.round(RATE * DURATION.toSeconds());

    @TempDir
    Path dir;

    @ParameterizedTest(name = "generator on {0}")
    @ValueSource(strings = {"bc", "jsse"})
    void everyCallOnItsOwnTlsConnectionCompletes(String engine) throws Exception {
        try (Uas uas = UacThroughProxyOverTlsIT.uas(dir)) {
            InetSocketAddress uasAt = UacThroughProxyOverTlsIT.listenUdp(uas);
            Path certs = dir.resolve("certs");
            Map<String, List<String>> s = UacThroughProxyOverTlsIT.tlsProxySettings(dir, uasAt);
            // a busy machine may make the server slow; it must not make it refuse what this test offers
            s.put("tls.handshakeTimeout", List.of("60s"));
            s.put("overload.maxQueueDelay", List.of("0"));
            s.put("overload.queueTarget", List.of("0"));
            s.put("overload.queueThreshold", List.of("100000"));
            s.put("overload.maxTransactions", List.of("0"));
            s.put("sip.queueCapacity", List.of("200000"));
            s.put("tcp.maxConnections", List.of("20000"));
            s.put("tcp.maxConnectionsPerSource", List.of("10000"));
            try (SipcryptServer server = SipcryptServer.start(ConfigLoader.load(null, s))) {
                TlsOptions tls = TlsOptions.of(List.of(SUITE), certs.resolve("ca.pem")).withEngine(engine)
                        .withSessionReuse(false);
                UacOptions o = new UacOptions(server.address(Transport.TLS), Transport.TLS, ConnectionPattern.PER_CALL,
                        tls, RATE, DURATION, Duration.ZERO, Duration.ofSeconds(60), Duration.ZERO, 100.0,
                        "sip:lab-uas@lab.test", InetAddress.getLoopbackAddress(), Duration.ofSeconds(1));
                List<Interval> samples = new ArrayList<>();
                RunSummary r = new Uac(o).run(samples::add);
                assertEquals(CALLS, r.offered(), r.text());
                assertEquals(0, r.failed(), r.text());
                assertEquals(CALLS, r.completed(), r.text());
                assertTrue(r.handshakes() >= CALLS, "a handshake per call: " + r.text());
                assertEquals(0, r.resumed(), "reuse off: every handshake full: " + r.text());
                // the proxy retransmits a BYE the UAS answers late over UDP, so at least one each
                assertTrue(uas.requests("BYE") >= CALLS, "every BYE reached the UAS through the proxy");
            }
        }
    }
}
