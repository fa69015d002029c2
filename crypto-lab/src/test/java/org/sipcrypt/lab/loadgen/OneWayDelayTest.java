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
 * handshake one round trip less than TLS 1.2's. Time is bounded from below only (a stage that holds
 * nothing cannot reach the bound; a busy machine can make a call take any time); the round trips
 * themselves are counted by the UAC's stage ({@link LegCounters#delayedRoundTrips()}), which a busy
 * machine does not change.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OneWayDelayTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration D = Duration.ofMillis(50);
    private static final double RTT_MS = 2 * D.toMillis();
    private static final double RATE = 5;
    private static final Duration DURATION = Duration.ofMillis(600);
    /** Calls before the measured ones, so that the first handshakes' cold code is not measured. */
    private static final Duration WARMUP = Duration.ofMillis(400);

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

    /**
     * A run's summary, and the round trips the UAC's stage counted per call (warm-up calls included,
     * as in the counters).
     */
    private record Run(RunSummary summary, double roundTripsPerCall) {
    }

    /** Calls from a UAC delayed by {@code uacDelay} to a UAS delayed by {@code uasDelay}; all must complete. */
    private static Run calls(Transport t, ConnectionPattern pattern, String tlsVersion, Duration uacDelay,
                             Duration uasDelay) throws Exception {
        try (Uas uas = new Uas(uasDelay)) {
            InetSocketAddress at = uas.listen(t, new InetSocketAddress(LOOPBACK, 0), t == Transport.TLS ? uasTls() : null);
            String uri = "sip:lab-uas@127.0.0.1:" + at.getPort() + ";transport=" + t.configName();
            UacOptions o = new UacOptions(at, t, pattern, t == Transport.TLS ? uacTls(tlsVersion) : null, RATE, DURATION,
                    WARMUP, Duration.ofSeconds(10), Duration.ZERO, 1.0, uri, LOOPBACK, Duration.ofMillis(500))
                    .withOneWayDelay(uacDelay);
            Uac uac = new Uac(o);
            RunSummary s = uac.run(i -> { });
            long expected = Math.round(RATE * DURATION.toMillis() / 1000.0);
            assertEquals(expected, s.completed(), s.text());
            assertEquals(0, s.failed(), s.text());
            long calls = uas.requests("INVITE");
            assertTrue(calls >= s.completed() && uas.requests("BYE") == calls, "the UAS answered every call: " + s.text());
            return new Run(s, (double) uac.counters().delayedRoundTrips() / calls);
        }
    }

    private static void assertAtLeastRoundTrips(RunSummary s, int roundTrips) {
        double p50 = s.crtP50Ms();
        assertTrue(p50 >= roundTrips * RTT_MS * 0.95, "median call response time " + p50 + " ms below "
                + roundTrips + " round trips of " + RTT_MS + " ms: " + s.text());
    }

    @ParameterizedTest(name = "{0} {1}, delay at the {2}: {3} round trips to the 200")
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
    void eachRoundTripOfACallsSetupTakesTwiceTheDelayMore(String transport, String connection, String side,
                                                        int roundTrips) throws Exception {
        Transport t = Transport.parse(transport);
        ConnectionPattern p = connection.equals("per-call") ? ConnectionPattern.PER_CALL : ConnectionPattern.PERSISTENT;
        boolean atUac = side.equals("uac");
        Run r = calls(t, p, "1.2", atUac ? D : Duration.ZERO, atUac ? Duration.ZERO : D);
        assertAtLeastRoundTrips(r.summary(), roundTrips);
        if (atUac && p == ConnectionPattern.PER_CALL) {
            // TCP's handshake, INVITE to 200, ACK and BYE to 200 (on one connection the calls
            // overlap and their flights merge, so only a connection per call has an exact count)
            assertEquals(3, r.roundTripsPerCall(), 1e-9, "round trips per call across the stage");
        }
    }

    @Test
    void tls13FullHandshakesTakeOneRoundTripLessThanTls12() throws Exception {
        Run v12 = calls(Transport.TLS, ConnectionPattern.PER_CALL, "1.2", D, Duration.ZERO);
        Run v13 = calls(Transport.TLS, ConnectionPattern.PER_CALL, "1.3", D, Duration.ZERO);
        for (Run r : List.of(v12, v13)) {
            assertTrue(r.summary().handshakes() >= r.summary().completed(), "a handshake per call: " + r.summary().text());
            assertEquals(0, r.summary().resumed(), "every handshake full: " + r.summary().text());
        }
        // TCP's handshake, TLS's (two round trips on 1.2, one on 1.3), INVITE to 200, BYE to 200
        assertEquals(5, v12.roundTripsPerCall(), 1e-9, "TLS 1.2 round trips per call");
        assertEquals(4, v13.roundTripsPerCall(), 1e-9, "TLS 1.3 round trips per call");
        // all but the BYE's are in the call response time
        assertAtLeastRoundTrips(v12.summary(), 4);
        assertAtLeastRoundTrips(v13.summary(), 3);
    }
}
