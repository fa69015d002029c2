package org.sipcrypt.lab.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.model.ComponentCost.Kind;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerSample;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/**
 * The cost model on studies whose components are known exactly: chain udp 100, tcp 150, aes 170 µs;
 * outbound tcp 200, aes 400; inbound tcp 190, aes 300; so UDP base 100, TCP increment 50, AES bulk 20,
 * server accept 50, server handshake 180, client connect 40, client handshake 90, and local AES
 * 170 + 230 + 130 = 530. The fixture's ramps peak at floor(1e6 / cpu / 100) * 100.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CostModelTest {

    private static final double EXACT = 1e-9;

    private static Study chain() {
        return Studies.study("chain", List.of("udp", "tcp", "aes"), 100, 100, 150, 170);
    }

    private static Study outbound() {
        return Studies.study("outbound", List.of("tcp", "aes"), 100, 200, 400);
    }

    private static Study inbound() {
        return Studies.study("inbound", List.of("tcp", "aes"), 100, 190, 300);
    }

    private static Study local() {
        return Studies.study("local", List.of("aes"), 100, 530);
    }

    private static double value(CostModel.Result r, Kind kind, String cipher) {
        return r.component(kind, cipher).orElseThrow(() -> new AssertionError(kind + " " + cipher + " missing: "
                + r.notes())).cpuMicrosPerCall();
    }

    private static double peak(double cpuMicrosPerCall) {
        return Math.floor(1e6 / cpuMicrosPerCall / 100) * 100;
    }

    @Test
    void componentsAreTheDifferencesBetweenPresets() {
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(), inbound(), local()));
        assertEquals(100, value(r, Kind.UDP_BASE, null), EXACT);
        assertEquals(50, value(r, Kind.TCP_INCREMENT, null), EXACT);
        assertEquals(20, value(r, Kind.BULK, "aes"), EXACT);
        assertEquals(50, value(r, Kind.SERVER_CONNECT, null), EXACT);
        assertEquals(180, value(r, Kind.SERVER_HANDSHAKE, "aes"), EXACT);
        assertEquals(40, value(r, Kind.CLIENT_CONNECT, null), EXACT);
        assertEquals(90, value(r, Kind.CLIENT_HANDSHAKE, "aes"), EXACT);
        assertEquals("cpu(outbound, aes) − cpu(chain, aes) − cpu(outbound, tcp) + cpu(chain, tcp)",
                r.component(Kind.SERVER_HANDSHAKE, "aes").orElseThrow().derivation());
        assertEquals(List.of("chain", "outbound", "inbound"), r.fittedScenarios());
    }

    @Test
    void localIsTheSumOfItsComponents() {
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(), inbound(), local()));
        Prediction local = r.prediction("local", "aes").orElseThrow();
        assertFalse(local.fitted());
        assertEquals(530, local.predictedCpuMicrosPerCall(), EXACT);
        assertEquals(530, local.measuredCpuMicrosPerCall(), EXACT);
        assertEquals(0, local.cpuErrorPct(), EXACT);
        // K: the median of peak × cpu over chain, outbound and inbound
        List<Double> products = new ArrayList<>();
        for (double cpu : new double[] {100, 150, 170, 200, 400, 190, 300}) {
            products.add(peak(cpu) * cpu);
        }
        products.sort(null);
        double k = products.get(3);
        assertEquals(k, r.peakCpuMicrosPerSecond(), EXACT);
        assertEquals(k / 530, local.predictedPeakCps(), EXACT);
        assertEquals(peak(530), local.measuredPeakCps(), EXACT);
        assertEquals((k / 530 - peak(530)) / peak(530) * 100, local.peakErrorPct(), EXACT);
        assertEquals(Math.abs(local.peakErrorPct()), r.heldOutPeakErrorPct(), EXACT);
        assertEquals(0, r.heldOutCpuErrorPct(), EXACT);
        assertTrue(r.notes().stream().noneMatch(n -> n.contains("local")), r.notes().toString());
    }

    @Test
    void fittedScenariosArePredictedToo() {
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(), inbound()));
        for (String[] p : new String[][] {{"chain", "udp"}, {"chain", "tcp"}, {"chain", "aes"}, {"outbound", "tcp"},
            {"outbound", "aes"}, {"inbound", "tcp"}, {"inbound", "aes"}}) {
            Prediction x = r.prediction(p[0], p[1]).orElseThrow();
            assertTrue(x.fitted());
            assertEquals(0, x.cpuErrorPct(), EXACT, p[0] + " " + p[1]);
        }
        assertEquals(400, r.prediction("outbound", "aes").orElseThrow().predictedCpuMicrosPerCall(), EXACT);
    }

    @Test
    void withoutALocalStudyLocalIsPredictedWithNothingToCompare() {
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(), inbound()));
        Prediction local = r.prediction("local", "aes").orElseThrow();
        assertEquals(530, local.predictedCpuMicrosPerCall(), EXACT);
        assertTrue(Double.isNaN(local.measuredCpuMicrosPerCall()));
        assertTrue(Double.isNaN(local.peakErrorPct()));
        assertEquals(240, r.prediction("local", "tcp").orElseThrow().predictedCpuMicrosPerCall(), EXACT);
        assertTrue(Double.isNaN(r.heldOutPeakErrorPct()), "nothing held out was measured");
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("no study 'local'")), r.notes().toString());
    }

    @Test
    void multiToOneCostsAsChainPerCall() {
        Study many = Studies.study("multi-to-one", List.of("tcp", "aes"), 100, 150, 170);
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(), inbound(), many));
        Prediction aes = r.prediction("multi-to-one", "aes").orElseThrow();
        assertFalse(aes.fitted());
        assertEquals(170, aes.predictedCpuMicrosPerCall(), EXACT);
        assertEquals(0, aes.cpuErrorPct(), EXACT);
        assertEquals(2, r.heldOut().stream().filter(p -> p.scenario().equals("multi-to-one")).count());
    }

    @Test
    void optionalComponentsComeFromTheirStudies() {
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(), inbound(),
                Studies.study("outbound-mutual", List.of("tcp", "aes"), 100, 200, 520),
                Studies.study("outbound-no-reuse", List.of("aes"), 100, 700),
                Studies.study("chain-auth", List.of("udp", "tcp", "aes"), 100, 600, 650, 670),
                Studies.study("local-mutual", List.of("aes"), 100, 650)));
        assertEquals(120, value(r, Kind.MUTUAL_INCREMENT, "aes"), EXACT);
        assertEquals(300, value(r, Kind.REUSE_SAVING, "aes"), EXACT);
        assertEquals(500, value(r, Kind.DIGEST_AUTH, null), EXACT);
        assertTrue(r.component(Kind.MUTUAL_INCREMENT, "tcp").isEmpty(), "no mutual authentication without TLS");
        assertEquals(650, r.prediction("local-mutual", "aes").orElseThrow().predictedCpuMicrosPerCall(), EXACT);
        assertFalse(r.prediction("local-mutual", "aes").orElseThrow().fitted());
        assertEquals(200, r.prediction("outbound-mutual", "tcp").orElseThrow().predictedCpuMicrosPerCall(), EXACT);
        assertTrue(r.prediction("chain-auth", "aes").orElseThrow().fitted());
        assertTrue(r.fittedScenarios().containsAll(List.of("outbound-mutual", "outbound-no-reuse", "chain-auth")));
    }

    @Test
    void aMissingStudyLeavesItsComponentsAndPredictionsOutAndSaysSo() {
        CostModel.Result r = CostModel.fit(List.of(chain(), outbound(),
                Studies.study("registrar-register", List.of("tcp"), 100, 80)));
        assertEquals(50, value(r, Kind.SERVER_CONNECT, null), EXACT);
        assertEquals(180, value(r, Kind.SERVER_HANDSHAKE, "aes"), EXACT);
        assertTrue(r.component(Kind.CLIENT_CONNECT, null).isEmpty());
        assertTrue(r.component(Kind.CLIENT_HANDSHAKE, "aes").isEmpty());
        assertTrue(r.prediction("local", "aes").isEmpty());
        assertTrue(r.prediction("local", "tcp").isEmpty());
        assertTrue(r.prediction("registrar-register", "tcp").isEmpty());
        assertTrue(r.notes().contains("client TCP connect not fitted: no study 'inbound'"), r.notes().toString());
        assertTrue(r.notes().contains("client TLS handshake (aes) not fitted: no study 'inbound'"), r.notes().toString());
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("no prediction for local aes:")), r.notes().toString());
        assertTrue(r.notes().contains("no prediction for 'registrar-register': the model has no components for it"),
                r.notes().toString());
        r.predictions().forEach(p -> assertTrue(Double.isFinite(p.predictedCpuMicrosPerCall())));
    }

    @Test
    void aCipherMissingFromOneStudyIsNamed() {
        Study outboundWithoutAes = Studies.study("outbound", List.of("tcp"), 100, 200);
        CostModel.Result r = CostModel.fit(List.of(chain(), outboundWithoutAes, inbound()));
        assertTrue(r.component(Kind.SERVER_HANDSHAKE, "aes").isEmpty());
        assertTrue(r.notes().contains("server TLS handshake (aes) not fitted: study 'outbound' has no valid aes point"
                + " with the server's CPU measured"), r.notes().toString());
        assertTrue(r.prediction("local", "aes").isEmpty());
        assertEquals(90, value(r, Kind.CLIENT_HANDSHAKE, "aes"), EXACT);
    }

    @Test
    void invalidAndUnmeasuredRepetitionsDoNotEnterTheFit() {
        Study c = chain();
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : c.fixed()) {
            fixed.add(p);
            if (p.cipher().equals("aes") && p.repetition() == 1) {
                fixed.add(new PointRun("chain", "aes", "fixed", 4, 100, p.uac(), 0, 0, 0, new ServerSample(1, 90, 5000,
                        1), p.samples(), "saturated generator"));
                fixed.add(new PointRun("chain", "aes", "fixed", 5, 100, p.uac(), 0, 0, 0, ServerSample.UNKNOWN,
                        p.samples(), null));
            }
        }
        Study noisy = new Study(0, "chain", "", c.ciphers(), c.started(), c.environment(), fixed, c.peaks());
        CostModel.Result r = CostModel.fit(List.of(noisy, outbound(), inbound()));
        assertEquals(20, value(r, Kind.BULK, "aes"), EXACT);
    }

    @Test
    void studiesOfOneScenarioArePooled() {
        Study again = Studies.study("chain", List.of("udp", "tcp", "aes"), 100, 100, 150, 190).withId(9);
        CostModel.Result r = CostModel.fit(List.of(chain().withId(8), again, outbound(), inbound()));
        // aes: (170 + 190) / 2 − 150
        assertEquals(30, value(r, Kind.BULK, "aes"), EXACT);
        assertEquals(50, value(r, Kind.TCP_INCREMENT, null), EXACT);
        assertTrue(r.notes().contains("2 studies of 'chain' pooled (#8, #9): their repetitions and ramps are averaged"
                + " together"), r.notes().toString());
    }

    @Test
    void withoutRampsThereIsNoCalibrationAndNoPeak() {
        Study c = chain();
        Study flat = new Study(0, "chain", "", c.ciphers(), c.started(), c.environment(), c.fixed(), List.of());
        Study o = outbound();
        Study flatOutbound = new Study(0, "outbound", "", o.ciphers(), o.started(), o.environment(), o.fixed(),
                List.of());
        CostModel.Result r = CostModel.fit(List.of(flat, flatOutbound));
        assertTrue(Double.isNaN(r.peakCpuMicrosPerSecond()));
        r.predictions().forEach(p -> assertTrue(Double.isNaN(p.predictedPeakCps())));
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("peak throughput not predicted")), r.notes().toString());
    }

    @Test
    void componentsOfACipherNeedOne() {
        assertThrows(IllegalArgumentException.class, () -> new ComponentCost(Kind.BULK, null, 1, "x"));
        assertThrows(IllegalArgumentException.class, () -> new ComponentCost(Kind.UDP_BASE, "aes", 1, "x"));
    }
}
