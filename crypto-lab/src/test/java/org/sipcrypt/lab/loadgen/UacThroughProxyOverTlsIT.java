package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * The generator through the real sipcrypt server: the UAC calls over TLS to the server, which
 * record-routes and forwards by a static route over UDP to the UAS; ACK and BYE follow the route
 * set through the server, here on per-call connections on the bc engine with session reuse.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UacThroughProxyOverTlsIT {

    @TempDir
    Path dir;

    /**
     * Starts the server with a TLS listener and a route to the UAS, runs 3 s of calls at 10 cps
     * through it, and checks every call completed and every ACK and BYE reached the UAS.
     */
    static RunSummary callThroughServer(Path dir, Uas uas, InetSocketAddress uasAt, TlsOptions uacTls,
                                        ConnectionPattern pattern, String... serverSettings) throws Exception {
        Map<String, List<String>> s = tlsProxySettings(dir, uasAt);
        for (int i = 0; i + 1 < serverSettings.length; i += 2) {
            s.put(serverSettings[i], List.of(serverSettings[i + 1]));
        }
        try (SipcryptServer server = SipcryptServer.start(ConfigLoader.load(null, s))) {
            UacOptions o = new UacOptions(server.address(Transport.TLS), Transport.TLS, pattern, uacTls, 10,
                    Duration.ofSeconds(3), Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, 1.0,
                    "sip:lab-uas@lab.test", InetAddress.getLoopbackAddress(), Duration.ofSeconds(1));
            List<Interval> samples = new ArrayList<>();
            RunSummary r = new Uac(o).run(samples::add);
            assertEveryCallCompleted(r, 30, uas);
            return r;
        }
    }

    /**
     * The settings of a server with a UDP and a TLS listener on loopback (certificates of {@link #uas}
     * in DIR/certs) whose static route sends {@code lab.test} to the UAS at {@code uasAt} over UDP.
     */
    static Map<String, List<String>> tlsProxySettings(Path dir, InetSocketAddress uasAt) {
        Path certs = dir.resolve("certs");
        Map<String, List<String>> s = new LinkedHashMap<>();
        s.put("dataDir", List.of(dir.resolve("data").toString()));
        s.put("stats.interval", List.of("0"));
        s.put("shutdown.grace", List.of("2s"));
        // a wall-clock budget: a busy build machine could trip it and refuse calls with 503
        // (OverloadGuardTest covers it with a ticker of its own)
        s.put("overload.maxQueueDelay", List.of("0"));
        s.put("overload.queueTarget", List.of("0"));
        s.put("listen", List.of("udp:127.0.0.1:0", "tls:127.0.0.1:0"));
        s.put("tls.cert", List.of(certs.resolve("server.pem").toString()));
        s.put("tls.key", List.of(certs.resolve("server-key.pem").toString()));
        s.put("tls.trust", List.of(certs.resolve("ca.pem").toString()));
        s.put("route", List.of("lab.test=127.0.0.1:" + uasAt.getPort() + ";transport=udp"));
        return s;
    }

    /**
     * Checks that all {@code calls} were offered and completed with a response time each, none failed,
     * and every ACK and BYE reached the UAS.
     */
    static void assertEveryCallCompleted(RunSummary r, long calls, Uas uas) {
        assertEquals(calls, r.offered(), r.text());
        assertEquals(calls, r.completed(), r.text());
        assertEquals(0, r.failed(), r.text());
        assertEquals(calls, r.crtCount(), r.text());
        assertEquals(calls, uas.requests("ACK"), "every ACK reached the UAS through the proxy");
        assertEquals(calls, uas.requests("BYE"), "every BYE reached the UAS through the proxy");
    }

    static Uas uas(Path dir) {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.resolve("certs").toString()));
        return new Uas();
    }

    static InetSocketAddress listenUdp(Uas uas) throws Exception {
        return uas.listen(Transport.UDP, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null);
    }

    @Test
    void everyCallThroughTheRecordRoutingProxyCompletes() throws Exception {
        try (Uas uas = uas(dir)) {
            TlsOptions tls = TlsOptions.of(List.of("aes"), dir.resolve("certs/ca.pem")).withEngine("bc");
            RunSummary r = callThroughServer(dir, uas, listenUdp(uas), tls, ConnectionPattern.PER_CALL);
            assertEquals(30, r.handshakes(), r.text());
            assertTrue(r.resumed() > 0, "the server resumed sessions: " + r.text());
        }
    }
}
