package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/** The order the runner measures in and the progress it tells. */
class ScenarioRunnerTest {

    @Test
    void aWindowWarmsUpBrieflyOnASettledServerWithGeneratorProcessesToo(@TempDir Path dir) throws Exception {
        // generator processes are kept warm from one run to the next (UacServeIT), as the servers are
        ScenarioRunner.Options o = new ScenarioRunner.Options(dir, null, line -> { }, Duration.ofSeconds(1));
        Scenario chain = ScenarioFiles.load("chain");
        Scenario multi = ScenarioFiles.load("multi-to-one");
        assertEquals(ScenarioRunner.SETTLED_WARMUP, new ScenarioRunner(chain, o).windowWarmup());
        assertTrue(multi.generators() > 1, "the preset runs generator processes");
        assertTrue(multi.load().warmup().compareTo(ScenarioRunner.SETTLED_WARMUP) > 0, "the preset's own is longer");
        assertEquals(ScenarioRunner.SETTLED_WARMUP, new ScenarioRunner(multi, o).windowWarmup());
    }

    @Test
    void theHeapPerIdleConnectionIsMeasuredOnSipcryptServersTheLabStartsAfterFixedRatePointsOnly(@TempDir Path dir)
            throws Exception {
        Scenario idle = ScenarioFiles.load("handshakes");
        ScenarioRunner.Options lab = new ScenarioRunner.Options(dir, null, line -> { }, Duration.ofSeconds(1));
        assertNull(ScenarioRunner.idleNotMeasured(idle, lab, true));
        assertNull(ScenarioRunner.idleNotMeasured(idle.withIdleConnections(0), lab.withSut(ServerUnderTest.KAMAILIO),
                true), "not asked: nothing to say");
        assertTrue(ScenarioRunner.idleNotMeasured(idle, lab, false).contains("ramps only"));
        assertTrue(ScenarioRunner.idleNotMeasured(idle, lab.withSut(ServerUnderTest.KAMAILIO), true)
                .startsWith("kamailio is not on a JVM"));
        ScenarioRunner.Options external = new ScenarioRunner.Options(dir, new ExternalTarget(
                new java.net.InetSocketAddress("127.0.0.1", 5060), -1, 5090), line -> { }, Duration.ofSeconds(1));
        assertTrue(ScenarioRunner.idleNotMeasured(idle, external, true).startsWith("a server the lab did not start"));
    }

    @Test
    void aProgressLineSaysTheHeapPerIdleConnectionOrWhyNotAndTheOpening() {
        IdleHeap aes = new IdleHeap("aes", "tls", 1000, 1000, 0, null, 3.46,
                new IdleHeap.Snapshot(40_000_000, 300_000, 1_200_000_000, 1),
                new IdleHeap.Snapshot(52_345_000, 470_000, 1_223_429_000, 1001),
                new IdleHeap.Snapshot(40_095_000, 300_100, 1_223_000_000, 1), List.of("bc"), null);
        assertEquals("aes: heap per idle connection 12,345 bytes (170.0 objects), 95 left after closing, resident set"
                + " 23,429 bytes; the server counted 1000 open; 1000 of 1000 held (tls, server engine bc), opened in"
                + " 3.5 s, 0 failed", ScenarioRunner.describe(aes));
        IdleHeap none = new IdleHeap("tcp", "tcp", 10, 0, 10, "java.net.ConnectException: refused", 0.01, null, null,
                null, List.of(), "no connection held: java.net.ConnectException: refused");
        assertEquals("tcp: heap per idle connection not measured: no connection held: java.net.ConnectException:"
                + " refused; 0 of 10 held (tcp), opened in 0.0 s, 10 failed (first: java.net.ConnectException: refused)",
                ScenarioRunner.describe(none));
    }

    @Test
    void aWarmUpThatEndsBetweenTwoSamplesIsRefused(@TempDir Path dir) throws Exception {
        Scenario chain = ScenarioFiles.load("chain");
        Scenario odd = chain.withLoad(chain.load().withTimes(Duration.ofSeconds(3), Duration.ofMillis(1500)));
        ScenarioRunner.Options everySecond = new ScenarioRunner.Options(dir, null, line -> { }, Duration.ofSeconds(1));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new ScenarioRunner(odd, everySecond));
        assertEquals("--warmup: 1.5 s is not a whole number of sample intervals (1 s)", e.getMessage());
        ScenarioRunner.Options everyHalf = new ScenarioRunner.Options(dir, null, line -> { }, Duration.ofMillis(500));
        org.junit.jupiter.api.Assertions.assertDoesNotThrow(() -> new ScenarioRunner(odd, everyHalf), "three half-second samples");
    }

    @Test
    void repetitionsAreInterleavedInARotatedOrder() {
        List<String> ciphers = List.of("udp", "tcp", "aes", "3des");
        assertEquals(ciphers, ScenarioRunner.interleaved(ciphers, 1));
        assertEquals(List.of("tcp", "aes", "3des", "udp"), ScenarioRunner.interleaved(ciphers, 2));
        assertEquals(List.of("3des", "udp", "tcp", "aes"), ScenarioRunner.interleaved(ciphers, 4));
        assertEquals(ciphers, ScenarioRunner.interleaved(ciphers, 5));
        assertEquals(List.of(), ScenarioRunner.interleaved(List.of(), 3));
    }

    @Test
    void progressSaysWhichPointOfHowManyAndTheTimeLeft() {
        ScenarioRunner.Progress p = new ScenarioRunner.Progress(1, 1, 1);
        assertEquals("[1/3]", p.next(1));
        assertTrue(p.next(1).matches("\\[2/3, \\d+ s left]"));
        assertTrue(p.next(1).matches("\\[3/3, \\d+ s left]"));
        assertEquals("45 s", ScenarioRunner.Progress.duration(TimeUnit.SECONDS.toNanos(45)));
        assertEquals("13 min", ScenarioRunner.Progress.duration(TimeUnit.SECONDS.toNanos(12 * 60 + 40)));
        assertEquals("2 h 05 min", ScenarioRunner.Progress.duration(TimeUnit.MINUTES.toNanos(125)));
    }

    @Test
    void theTimeLeftWeighsEachStepByItsPlannedLength() {
        // a server's start planned at 33 s, then ten windows of 9 s; the start took 33 s
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        double[] plan = {33, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
        ScenarioRunner.Progress p = new ScenarioRunner.Progress(now::get, plan);
        assertEquals("[1/11]", p.next(33));
        now.addAndGet(TimeUnit.SECONDS.toNanos(33));
        assertEquals("[2/11, 2 min left]", p.next(9), "90 s of windows left at the planned pace, not 10 starts");
        // the windows run at half their planned pace: the estimate follows
        now.addAndGet(TimeUnit.SECONDS.toNanos(18));
        assertEquals("[3/11, 2 min left]", p.next(9));
        now.addAndGet(TimeUnit.SECONDS.toNanos(9 * 8));
        assertTrue(p.next(9).matches("\\[4/11, \\d+ (s|min) left]"));
    }

    @Test
    void aReplanCountsTheStepsBegunAndTheNewRestOnly() {
        // two ramps planned at 100 s, then four windows of 10 s; after the ramps, two windows remain
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        ScenarioRunner.Progress p = new ScenarioRunner.Progress(now::get, 100, 100, 10, 10, 10, 10);
        assertEquals("[1/6]", p.next(100));
        now.addAndGet(TimeUnit.SECONDS.toNanos(100));
        assertEquals("[2/6, 2 min left]", p.next(100));
        now.addAndGet(TimeUnit.SECONDS.toNanos(100));
        p.replan(10, 10);
        assertEquals("[3/4, 20 s left]", p.next(10), "two ramps done, two windows to come");
        assertEquals("[4/4, 10 s left]", p.next(10));
    }

    @Test
    void aFixedPointThatFailedMoreCallsThanAllowedIsLeftOutAndSaysWhy() {
        ServerSample server = new ServerSample(4242, 81, 2627, 64L << 20);
        // 1,000 of 8,000 calls failed against the scenario's 1 %: the server did not keep up
        String why = ScenarioRunner.invalid("fixed", Studies.summary(800, 10, 7000, 1000, 4400), server, 0);
        assertTrue(why.startsWith(ScenarioRunner.NOT_KEPT_UP + " (12.50 %, more than 1.00 %: 1000 timeout; server CPU 81 %"),
                why);
        assertTrue(why.endsWith("the server did not keep up with the rate"), why);
        assertTrue(ScenarioRunner.invalid("fixed", Studies.summary(800, 10, 7000, 1000, 4400), server, -1)
                .endsWith("the server did not keep up with the rate"), "overflows unknown");
        // within the limit, and a ramp's step (which fails instead of being left out), are not
        assertNull(ScenarioRunner.invalid("fixed", Studies.summary(800, 10, 7995, 5, 1), server, 0));
        assertNull(ScenarioRunner.invalid("step", Studies.summary(800, 10, 7000, 1000, 4400), server, 0));
    }

    @Test
    void aPointAskedToResumeThatResumedNoHandshakeIsLeftOutAndSaysWhy() {
        ServerSample server = new ServerSample(4242, 20, 900, 64L << 20);
        for (String mode : List.of("ticket", "psk", "session-id")) {
            Handshake h = Handshake.parse(mode.equals("psk") ? "1.3" : "1.2", "ecdhe-x25519", "rsa2048", mode);
            String why = ScenarioRunner.invalid("fixed", Studies.summaryWithHandshakes(200, 0), server, 0, h);
            assertEquals(ScenarioRunner.NOT_RESUMED + " (200 TLS handshakes of the generator, none resumed, with"
                    + " --resumption " + mode + ")", why);
            assertNull(ScenarioRunner.invalid("fixed", Studies.summaryWithHandshakes(200, 1), server, 0, h),
                    "one resumed is a resuming run: the resumption % says how many");
            assertNull(ScenarioRunner.invalid("fixed", Studies.summaryWithHandshakes(0, 0), server, 0, h),
                    "a persistent connection made its handshake in the warm-up");
        }
        assertNull(ScenarioRunner.invalid("fixed", Studies.summaryWithHandshakes(200, 0), server, 0,
                Handshake.parse("1.2", "rsa", "rsa2048", "none")));
        assertNull(ScenarioRunner.invalid("fixed", Studies.summaryWithHandshakes(200, 0), server, 0, Handshake.DEFAULT),
                "without --resumption the scenario decides, and may offer none");
    }

    @Test
    void aFailedPointDuringWhichListenQueuesOverflowedDoesNotBlameTheServerAlone() {
        ServerSample server = new ServerSample(4242, 52, 2627, 64L << 20);
        String why = ScenarioRunner.invalid("fixed", Studies.summary(400, 10, 3000, 1000, 4400), server, 1234);
        assertTrue(why.startsWith(ScenarioRunner.NOT_KEPT_UP), why);
        assertTrue(why.endsWith("1234 connections dropped by full listen queues in the kernel meanwhile (the lab's"
                + " UAS or the server did not accept them in time), so not only the server"), why);
    }

    @Test
    void theCommonestCausesOfFailedCallsComeFirstAndAtMostThree() {
        assertEquals("", ScenarioRunner.mainCauses(Map.of()));
        assertEquals(": 753 status_503, 235 timeout, 9 connect",
                ScenarioRunner.mainCauses(Map.of("timeout", 235L, "status_503", 753L, "connect", 9L, "transport", 2L)));
        assertEquals(": 4 connect, 4 timeout", ScenarioRunner.mainCauses(Map.of("timeout", 4L, "connect", 4L)),
                "ties in name order");
    }

    @Test
    void aPointsLineGivesTheLabsCpuPerCallByRoleAndNamesARoleAboveAThirdOfTheServers() {
        PointRun p = Studies.point("chain", "aes", 1, 500, 630);
        String line = ScenarioRunner.line(p);
        assertTrue(line.contains("server CPU 32 % (630 us/call), generator CPU 40 %; lab CPU per call: generator"
                + " 158 us/call, UAS 126 us/call"), line);
        assertFalse(line.contains("above a third"), line);
        String heavy = ScenarioRunner.line(Studies.withLabCpu(p, 300, 250));
        assertTrue(heavy.endsWith("generator 300 us/call, UAS 250 us/call (generator and UAS above a third of the"
                + " server's)"), heavy);
        String unknown = ScenarioRunner.line(Studies.withLabCpu(p, -1, -1));
        assertTrue(unknown.endsWith("lab CPU per call: generator n/a, UAS n/a"), unknown);
        // the server's TLS engines where the lab read them
        assertFalse(line.contains("TLS engine"), line);
        String engines = ScenarioRunner.line(Studies.withTlsEngines(p, "jsse", "bc"));
        assertTrue(engines.endsWith("UAS 126 us/call; server TLS engine bc+jsse"), engines);
    }

    @Test
    void cpuPerCallIsUnknownWithoutTimeOrCalls() {
        assertEquals(2.5, ScenarioRunner.perCall(250, 100), 1e-9);
        assertEquals(-1, ScenarioRunner.perCall(-1, 100), 1e-9);
        assertEquals(-1, ScenarioRunner.perCall(250, 0), 1e-9);
    }

    @Test
    void theJitCompilersShareOfACoreOverAWindow() {
        assertEquals(50.0, ScenarioRunner.jitPercent(2_500_000, TimeUnit.SECONDS.toNanos(5)), 1e-9);
        assertEquals(0.0, ScenarioRunner.jitPercent(0, TimeUnit.SECONDS.toNanos(5)), 1e-9);
        assertEquals(0.0, ScenarioRunner.jitPercent(1000, 0), 1e-9);
    }
}
