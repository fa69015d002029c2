package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.report.Aggregate.Peak;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerSample;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/** Repetitions reduced to mean and interval per scenario and cipher, over studies built from given numbers. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AggregateTest {

    private static final List<String> CIPHERS = List.of("udp", "tcp", "aes");

    private static Study chain() {
        return Studies.study("chain", CIPHERS, 500, 100, 150, 170);
    }

    private static Aggregate aes(List<Aggregate> all) {
        return Aggregate.find(all, "aes").orElseThrow();
    }

    /** The study with one point replaced. */
    private static Study replace(Study s, PointRun old, PointRun replacement) {
        List<PointRun> fixed = new ArrayList<>(s.fixed());
        fixed.set(fixed.indexOf(old), replacement);
        return new Study(s.id(), s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment(), fixed,
                s.peaks());
    }

    private static PointRun point(Study s, String cipher, int repetition) {
        return s.fixed().stream().filter(p -> p.cipher().equals(cipher) && p.repetition() == repetition).findFirst()
                .orElseThrow();
    }

    @Test
    void oneAggregatePerCipherInTheStudysOrder() {
        List<Aggregate> all = Aggregate.fixed(chain());
        assertEquals(CIPHERS, all.stream().map(Aggregate::cipher).toList());
        all.forEach(a -> assertEquals("chain", a.scenario()));
    }

    @Test
    void meansAndIntervalsOverThreeRepetitions() {
        Aggregate a = aes(Aggregate.fixed(chain()));
        assertEquals(3, a.validRepetitions());
        assertEquals(3, a.allRepetitions());
        assertEquals(500, a.offeredCps(), 1e-9);
        assertEquals(500, a.completedCps().mean(), 1e-9);
        assertEquals(0, a.completedCps().halfWidth95(), 1e-9);
        assertEquals(0, a.failedPct().mean(), 1e-9);
        // the fixture's repetitions spend 0.98, 1.00 and 1.02 times 170 µs: s = 3.4 µs
        assertEquals(170, a.cpuMicrosPerCall().mean(), 1e-9);
        assertEquals(3.4, a.cpuMicrosPerCall().stdDev(), 1e-9);
        assertEquals(4.303 * 3.4 / Math.sqrt(3), a.cpuMicrosPerCall().halfWidth95(), 1e-3);
        assertEquals(500 * 170 / 1e4, a.serverCpuPct().mean(), 1e-9);
        assertEquals(2.17, a.crtP50Ms().mean(), 1e-9);
        assertEquals(2.17 * 1.5, a.crtP90Ms().mean(), 1e-9);
        assertEquals(2.17 * 3, a.crtP99Ms().mean(), 1e-9);
        // 5000 calls of 900 + 700 bytes in 10 s
        assertEquals(5000 * 1600 * 8 / 1000.0 / 10, a.kbps().mean(), 1e-9);
        assertEquals(64, a.heapAfterGcMiB().mean(), 1e-9);
        assertEquals(40, a.generatorCpuPct().mean(), 1e-9);
        assertEquals(170 / 4.0, a.generatorCpuMicrosPerCall().mean(), 1e-9);
        assertEquals(170 / 5.0, a.uasCpuMicrosPerCall().mean(), 1e-9);
        assertEquals(List.of(), a.labRolesOverShare());
        assertEquals(0, a.handshakesPerSecond().mean(), 1e-9);
        assertFalse(a.resumptionPct().known(), "no handshakes, no resumption rate");
        assertArrayEquals(new long[] {15_000, 0, 0, 0, 0, 0}, a.crtBucketCounts());
        assertArrayEquals(new double[] {100, 0, 0, 0, 0, 0}, a.crtBucketPercents(), 1e-9);
        assertTrue(a.invalidRuns().isEmpty());
    }

    @Test
    void cpuPerCallIsComparedWithTheBaselines() {
        List<Aggregate> all = Aggregate.fixed(chain());
        Aggregate aes = aes(all);
        assertEquals(1.7, aes.cpuRatio(Aggregate.find(all, "udp").orElseThrow()), 1e-9);
        assertEquals(170.0 / 150, aes.cpuRatio(Aggregate.find(all, "tcp").orElseThrow()), 1e-9);
    }

    @Test
    void invalidRepetitionsAreLeftOutAndListed() {
        Study s = chain();
        PointRun second = point(s, "aes", 2);
        PointRun saturated = new PointRun("chain", "aes", "fixed", 2, 500, second.uac(), 0, 0, second.uasBytes(),
                new ServerSample(1, 99, 999, 1L << 30), second.samples(), "saturated generator");
        Aggregate a = aes(Aggregate.fixed(replace(s, second, saturated)));
        assertEquals(2, a.validRepetitions());
        assertEquals(3, a.allRepetitions());
        assertEquals(170 * (0.98 + 1.02) / 2, a.cpuMicrosPerCall().mean(), 1e-9);
        assertEquals(64, a.heapAfterGcMiB().mean(), 1e-9);
        assertEquals(List.of(saturated), a.invalidRuns());
        assertEquals(10_000, a.crtBucketCounts()[0]);
    }

    @Test
    void unmeasuredServerValuesAreLeftOutOfTheirMeanOnly() {
        Study s = chain();
        PointRun first = point(s, "aes", 1);
        PointRun unknown = new PointRun("chain", "aes", "fixed", 1, 500, first.uac(), 0, 0, first.uasBytes(),
                ServerSample.UNKNOWN, first.labCpu(), first.samples(), null);
        Aggregate a = aes(Aggregate.fixed(replace(s, first, unknown)));
        assertEquals(3, a.validRepetitions());
        assertEquals(2, a.cpuMicrosPerCall().n());
        assertEquals(170 * (1 + 1.02) / 2, a.cpuMicrosPerCall().mean(), 1e-9);
        assertEquals(3, a.completedCps().n());
        assertEquals(3, a.generatorCpuMicrosPerCall().n(), "the lab's own CPU was measured");
    }

    @Test
    void unmeasuredLabCpuIsLeftOutOfItsMeanOnly() {
        Study s = chain();
        PointRun first = point(s, "aes", 1);
        PointRun unknown = new PointRun("chain", "aes", "fixed", 1, 500, first.uac(), 0, 0, first.uasBytes(),
                first.server(), first.samples(), null);
        Aggregate a = aes(Aggregate.fixed(replace(s, first, unknown)));
        assertEquals(2, a.generatorCpuMicrosPerCall().n());
        assertEquals(2, a.uasCpuMicrosPerCall().n());
        assertEquals(170 * (1 + 1.02) / 2 / 4, a.generatorCpuMicrosPerCall().mean(), 1e-9);
        assertEquals(3, a.cpuMicrosPerCall().n());
    }

    @Test
    void repetitionsOfDifferentCiphersAreRefused() {
        Study s = chain();
        assertThrows(IllegalArgumentException.class, () -> Aggregate.of(List.of(point(s, "aes", 1), point(s, "tcp", 1))));
        assertThrows(IllegalArgumentException.class, () -> Aggregate.of(List.of()));
    }

    @Test
    void peaksPerCipherWithRatiosToTheBaselines() {
        List<Peak> peaks = Aggregate.peaks(chain());
        assertEquals(CIPHERS, peaks.stream().map(Peak::cipher).toList());
        Peak aes = Peak.find(peaks, "aes").orElseThrow();
        // the fixture's ramps peak at floor(1e6 / cpu / 100) * 100
        assertEquals(5800, aes.peakCps().mean(), 1e-9);
        assertEquals(5800, aes.sustainableCps().mean(), 1e-9);
        assertEquals(1, aes.validRamps());
        assertFalse(aes.peakCps().hasInterval(), "one ramp, no interval");
        assertFalse(aes.lowerBound());
        assertEquals(5800.0 / 6600, aes.peakRatio(Peak.find(peaks, "tcp").orElseThrow()), 1e-9);
        assertEquals(0.58, aes.peakRatio(Peak.find(peaks, "udp").orElseThrow()), 1e-9);
    }

    @Test
    void aPeakSaysWhoseCpusWereFullAtTheFirstFailingStep() {
        // fails first at 5,900 calls/s, where the server spent 5,900 × 170 µs a second: 100.3 % of one core
        PeakSearch found = Studies.ramp("chain", "aes", 1, 100, 100, 5800, 170);
        Aggregate.Limit onOneCpu = Peak.of(List.of(found), 1).limit();
        assertEquals(100.3, onOneCpu.serverBusyPct(), 1e-9);
        assertEquals(20, onOneCpu.labBusyPct(), 1e-9, "the fixture's lab: 40 % of one core on its 2");
        assertEquals("server CPU (server 100 %, lab 20 %)", onOneCpu.describe());
        assertEquals("neither CPU full (server 50 %, lab 20 %)", Peak.of(List.of(found), 2).limit().describe());
        assertEquals("unknown (server CPUs not known; lab 20 %)", Peak.of(List.of(found)).limit().describe());
        assertEquals("lab CPU, not the server (server 60 %, lab 95 %)", new Aggregate.Limit(60, 95, 1).describe());

        // the lowest failing rate counts, not the last step run (a bisection below the first failure)
        List<PointRun> steps = new ArrayList<>(found.steps());
        PointRun failedLower = Studies.ramp("chain", "aes", 1, 100, 100, 2900, 170).steps().get(29);
        assertFalse(failedLower.passed());
        steps.add(failedLower);
        PeakSearch bisected = new PeakSearch("chain", "aes", 1, 2900, 2900, "failures", steps);
        assertEquals(3000 * 170 / 1e4, Peak.of(List.of(bisected), 1).limit().serverBusyPct(), 1e-9);

        PeakSearch neverFailed = new PeakSearch("chain", "aes", 2, 700, 600, "last step", found.steps().subList(0, 7));
        assertEquals("not reached", Peak.of(List.of(neverFailed), 1).limit().describe());
    }

    @Test
    void rampsOfASaturatedGeneratorAreLeftOutAndUnfinishedRampsAreLowerBounds() {
        PeakSearch found = Studies.ramp("chain", "aes", 1, 100, 100, 500, 170);
        PeakSearch lastStep = new PeakSearch("chain", "aes", 2, 700, 600, "last step", found.steps());
        PeakSearch saturated = new PeakSearch("chain", "aes", 3, 200, 200, "saturated generator", found.steps());
        Peak p = Peak.of(List.of(found, lastStep, saturated));
        assertEquals(2, p.validRamps());
        assertEquals(3, p.allRamps());
        assertEquals(600, p.peakCps().mean(), 1e-9);
        assertEquals(12.706 * Math.sqrt(20_000) / Math.sqrt(2), p.peakCps().halfWidth95(), 0.05);
        assertEquals(550, p.sustainableCps().mean(), 1e-9);
        assertTrue(p.lowerBound());
        assertEquals(List.of(saturated), p.excludedRamps());
    }
}
