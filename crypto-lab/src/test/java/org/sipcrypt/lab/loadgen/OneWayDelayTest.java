package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * The lab delay stage on loopback, the UAC calling the UAS directly: with a one-way delay D on one
 * side, each round trip of a call's setup (INVITE to 200, and a per-call connection's TCP and TLS
 * handshakes, which the call response time includes) takes at least 2·D more, and TLS 1.3's full
 * handshake one round trip less than TLS 1.2's. The bounds are generous: a lower bound a stage that
 * holds nothing cannot reach, and an upper bound of two round trips more than expected, for busy
 * machines; TLS 1.3 against 1.2 is told apart by the difference of their medians.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneWayDelayTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration D = Duration.ofMillis(50);
    private static final double RTT_MS = 2 * D.toMillis();
    private static final double RATE = 10;
    private static final Duration DURATION = Duration.ofMillis(500);
    /** Calls before the measured ones, so that the first handshakes' cold code is not measured. */
    private static final Duration WARMUP = Duration.ofMillis(300);

    @TempDir
    static Path dir;

    @BeforeAll
    static void certificates() {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
    }

    private static TlsOptions uasTls() {
        return new TlsOptions(List.of("aes"), "bc", List.of(), List.of("1.2", "1.3"), dir.resolve("ca.pem"),
                dir.resolve("server.pem"), dir.resolve("server-key.pem"), false, BcTlsSetup.ClientCertificates.NONE,
                false);
    }

    private static TlsOptions uacTls(String version) {
        return new TlsOptions(List.of("aes"), "jsse", List.of(), List.of(version), dir.resolve("ca.pem"), null, null,
                false, BcTlsSetup.ClientCertificates.NONE, false);
    }

    /** Calls from a UAC delayed by {@code uacDelay} to a UAS delayed by {@code uasDelay}; all must complete. */
    private RunSummary calls(Transport t, ConnectionPattern pattern, String tlsVersion, Duration uacDelay,
                             Duration uasDelay) throws Exception {
        try (Uas uas = new Uas(uasDelay)) {
            InetSocketAddress at = uas.listen(t, new InetSocketAddress(LOOPBACK, 0), t == Transport.TLS ? uasTls() : null);
            String uri = "sip:lab-uas@127.0.0.1:" + at.getPort() + ";transport=" + t.configName();
            UacOptions o = new UacOptions(at, t, pattern, t == Transport.TLS ? uacTls(tlsVersion) : null, RATE, DURATION,
                    WARMUP, Duration.ofSeconds(5), Duration.ZERO, 1.0, uri, LOOPBACK, Duration.ofMillis(500))
                    .withOneWayDelay(uacDelay);
            RunSummary s = new Uac(o).run(i -> { });
            long expected = Math.round(RATE * DURATION.toMillis() / 1000.0);
            assertEquals(expected, s.completed(), s.text());
            assertEquals(0, s.failed(), s.text());
            assertTrue(uas.requests("BYE") >= s.completed(), "the UAS answered the BYEs");
            return s;
        }
    }

    private static void assertRoundTrips(RunSummary s, int roundTrips) {
        double p50 = s.crtP50Ms();
        assertTrue(p50 >= roundTrips * RTT_MS * 0.95, "median call response time " + p50 + " ms below "
                + roundTrips + " round trips of " + RTT_MS + " ms: " + s.text());
        // a busy machine's margin: less than two round trips more
        assertTrue(p50 < (roundTrips + 2) * RTT_MS, "median call response time " + p50 + " ms: two round trips more"
                + " than " + roundTrips + " of " + RTT_MS + " ms: " + s.text());
    }

    @ParameterizedTest(name = "{0} {1}, delay at the {2}: {3} round trips")
    @CsvSource({
        "udp, persistent, uac, 1",
        "udp, persistent, uas, 1",
        "tcp, persistent, uac, 1",
        "tcp, persistent, uas, 1",
        "tls, persistent, uac, 1",
        // TCP's handshake, then INVITE to 200
        "tcp, per-call, uac, 2",
        "tcp, per-call, uas, 2",
    })
    void eachRoundTripOfACallsSetupGrowsByTwiceTheDelay(String transport, String connection, String side,
                                                      int roundTrips) throws Exception {
        Transport t = Transport.parse(transport);
        ConnectionPattern p = connection.equals("per-call") ? ConnectionPattern.PER_CALL : ConnectionPattern.PERSISTENT;
        RunSummary s = calls(t, p, "1.2", side.equals("uac") ? D : Duration.ZERO, side.equals("uas") ? D : Duration.ZERO);
        assertRoundTrips(s, roundTrips);
    }

    @Test
    void tls13FullHandshakesTakeOneRoundTripLessThanTls12() throws Exception {
        RunSummary v12 = calls(Transport.TLS, ConnectionPattern.PER_CALL, "1.2", D, Duration.ZERO);
        RunSummary v13 = calls(Transport.TLS, ConnectionPattern.PER_CALL, "1.3", D, Duration.ZERO);
        for (RunSummary s : List.of(v12, v13)) {
            assertTrue(s.handshakes() >= s.completed(), "a handshake per call: " + s.text());
            assertEquals(0, s.resumed(), "every handshake full: " + s.text());
        }
        // TCP, two TLS round trips (one on 1.3), INVITE to 200
        assertRoundTrips(v12, 4);
        assertRoundTrips(v13, 3);
        assertTrue(v12.crtP50Ms() - v13.crtP50Ms() > RTT_MS / 2, "TLS 1.2 " + v12.crtP50Ms() + " ms, TLS 1.3 "
                + v13.crtP50Ms() + " ms");
    }
}
