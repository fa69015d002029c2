package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.loadgen.Uac;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.scenario.LoadProfile;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * The ramp against a deliberately slowed callee: a UAS that answers at most 50 INVITEs a second
 * (503 to the rest). The ramp climbs 20, 40, 60 calls/s, stops at the first step above the failure
 * threshold, and bisects between 40 and 60.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeakFinderIT {

    @Test
    void rampStopsAtTheFailureThresholdOfASlowedUas() throws Exception {
        try (Uas uas = new Uas()) {
            uas.limitInvites(50);
            InetSocketAddress at = uas.listen(Transport.UDP, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    null);
            LoadProfile.Ramp ramp = new LoadProfile.Ramp(20, 20, Duration.ofSeconds(2), 200, 1, Duration.ofSeconds(60));
            PeakSearch s = PeakFinder.search("slowed-uas", "udp", 1, ramp, (rate, length) -> {
                UacOptions o = new UacOptions(at, Transport.UDP, ConnectionPattern.PERSISTENT, null, rate, length,
                        Duration.ZERO, Duration.ofSeconds(2), Duration.ZERO, 1.0, "sip:lab-uas@127.0.0.1:" + at.getPort(),
                        InetAddress.getLoopbackAddress(), Duration.ofSeconds(1));
                List<Sample> samples = new java.util.ArrayList<>();
                RunSummary r = new Uac(o).run(i -> samples.add(new Sample(i, -1)));
                return new PointRun("slowed-uas", "udp", "step", 1, rate, r, 0, 0, 0, ServerSample.UNKNOWN, samples, null);
            });
            assertEquals("failures", s.stoppedBy());
            List<Double> rates = s.steps().stream().map(PointRun::rate).toList();
            assertEquals(List.of(20.0, 40.0, 60.0, 50.0), rates, "three steps up to the first failure, one bisection");
            assertFalse(s.steps().get(2).passed(), "60/s is above the UAS's 50/s");
            assertTrue(s.peakRate() >= 40 && s.peakRate() <= 50, "peak " + s.peakRate());
            assertTrue(s.steps().get(2).uac().causes().containsKey("status_503"), s.steps().get(2).uac().text());
            assertTrue(uas.invitesRefused() > 0);
        }
    }
}
