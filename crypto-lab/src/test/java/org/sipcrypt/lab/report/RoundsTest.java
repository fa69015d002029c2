package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/** The interval within a run, rounds' common drift divided out, on numbers made for it. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RoundsTest {

    /** Per cipher, a value per round: the cipher's cost × the round's factor × the cipher's own noise. */
    private static Map<String, Map<Integer, Double>> values(double[] cost, double[] roundFactor, double[][] noise) {
        Map<String, Map<Integer, Double>> out = new LinkedHashMap<>();
        for (int c = 0; c < cost.length; c++) {
            Map<Integer, Double> byRound = new LinkedHashMap<>();
            for (int r = 0; r < roundFactor.length; r++) {
                byRound.put(r + 1, cost[c] * roundFactor[r] * noise[c][r]);
            }
            out.put("c" + c, byRound);
        }
        return out;
    }

    private static double[][] ones(int ciphers, int rounds) {
        double[][] n = new double[ciphers][rounds];
        for (double[] row : n) {
            java.util.Arrays.fill(row, 1.0);
        }
        return n;
    }

    @Test
    void aDriftSharedByEveryCipherOfARoundLeavesNoSpread() {
        double[] drift = {1.09, 1.08, 0.99, 0.96, 0.93};
        Map<String, Estimate> e = Rounds.withinRun(values(new double[] {500, 700, 1100}, drift, ones(3, 5)));
        for (String c : List.of("c0", "c1", "c2")) {
            assertEquals(5, e.get(c).n());
            assertEquals(0, e.get(c).halfWidth95(), 1e-9, c);
        }
        // the mean stays the plain mean over the rounds
        assertEquals(500 * (1.09 + 1.08 + 0.99 + 0.96 + 0.93) / 5, e.get("c0").mean(), 1e-9);
        // while the plain interval over the windows carries the drift: ±7.9 %
        double plain = Stats.estimate(545, 540, 495, 480, 465).halfWidthPct();
        assertTrue(plain > 7, "the drift alone makes the plain interval wide: " + plain);
    }

    @Test
    void aCiphersOwnNoiseStaysWidenedForTheShareItHasInEachRoundsFactor() {
        // two ciphers, no drift; c0 varies ±10 % alternately, c1 not at all
        double[][] noise = ones(2, 4);
        noise[0] = new double[] {1.1, 0.9, 1.1, 0.9};
        Map<String, Estimate> e = Rounds.withinRun(values(new double[] {1000, 1000}, new double[] {1, 1, 1, 1}, noise));
        // by hand: c0's log residual is ±ln(1.1/0.9)/2 and c1's 0, so each round's factor, their mean,
        // is (1.1/0.9)^(±1/4); c0 divided by it, then widened by √(2/1)
        double f = Math.pow(1.1 / 0.9, 0.25);
        double[] adjusted = new double[4];
        for (int r = 0; r < 4; r++) {
            double v = 1000 * noise[0][r];
            adjusted[r] = v / (r % 2 == 0 ? f : 1 / f);
        }
        double sd = Stats.sampleStdDev(adjusted) * Math.sqrt(2);
        assertEquals(Stats.t975(3) * sd / 2, e.get("c0").halfWidth95(), 1e-6);
        // c1 inherits the round factors made of c0's noise: it shows spread too, none is hidden
        assertTrue(e.get("c1").halfWidth95() > 0, e.get("c1").toString());
        assertEquals(1000, e.get("c0").mean(), 1e-9);
    }

    @Test
    void onlyCompleteRoundsCountAndTooLittleGivesNothing() {
        Map<String, Map<Integer, Double>> v = values(new double[] {500, 700}, new double[] {1, 1.1, 0.9},
                ones(2, 3));
        v.get("c1").remove(2);
        Map<String, Estimate> e = Rounds.withinRun(v);
        assertEquals(2, e.get("c0").n(), "round 2 is not complete");
        assertEquals(500 * (1 + 0.9) / 2, e.get("c0").mean(), 1e-9);
        v.get("c1").remove(3);
        assertTrue(Rounds.withinRun(v).isEmpty(), "c1 valid in one round only: left out, and c0 alone is no block");
        Map<String, Map<Integer, Double>> three = values(new double[] {500, 700, 900}, new double[] {1, 1.1, 0.9},
                ones(3, 3));
        three.get("c2").remove(2);
        three.get("c2").remove(3);
        Map<String, Estimate> without = Rounds.withinRun(three);
        assertEquals(List.of("c0", "c1"), List.copyOf(without.keySet()), "c2 left out, not its rounds");
        assertEquals(3, without.get("c0").n());
        assertTrue(Rounds.withinRun(Map.of("c0", Map.of(1, 1.0, 2, 2.0))).isEmpty(), "one cipher");
    }

    @Test
    void aStudysAggregatesCarryTheIntervalWithinTheRunAndRankByIt() {
        // three ciphers over five rounds drifting ±9 %, each with ±1 % noise of its own
        double[] drift = {1.09, 1.08, 0.99, 0.96, 0.93};
        double[] own = {1.01, 0.99, 1.0, 1.01, 0.99};
        List<String> ciphers = List.of("udp", "aes", "3des");
        double[] cost = {500, 700, 1100};
        List<PointRun> fixed = new java.util.ArrayList<>();
        for (int r = 1; r <= 5; r++) {
            for (int c = 0; c < 3; c++) {
                fixed.add(Studies.point("chain", ciphers.get(c), r, 800,
                        cost[c] * drift[r - 1] * own[(r - 1 + c) % 5]));
            }
        }
        Study base = Studies.study("chain", List.of("udp"), 800, 500);
        Study s = new Study(0, "chain", base.scenarioText(), ciphers, base.started(), base.environment(), fixed,
                List.of());
        for (Aggregate a : Aggregate.fixed(s)) {
            assertTrue(a.cpuMicrosPerCall().halfWidthPct() > 5, "the plain interval carries the drift: " + a);
            assertTrue(a.cpuPerCallWithinRun().halfWidthPct() < 2.5, "within the run: " + a.cpuPerCallWithinRun());
            assertEquals(a.cpuPerCallWithinRun(), a.cpuPerCallRanked());
            assertEquals(a.cpuMicrosPerCall().mean(), a.cpuPerCallRanked().mean(), 1e-9);
        }
        String md = MarkdownReport.render(List.of(s), null);
        assertTrue(md.contains("Every CPU-per-call interval is within ±5 % of its mean."), md);
        assertTrue(md.contains("± % with drift"), md);
    }
}
