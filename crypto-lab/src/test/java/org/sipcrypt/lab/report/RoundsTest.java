package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
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

/** The interval within a run, the rounds' shifts regressed out, on numbers made for it. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RoundsTest {

    /**
     * Per cipher, a value per round: its cost × (1 + its sensitivity × the round's shift) × its own
     * noise.
     */
    private static Map<String, Map<Integer, Double>> values(double[] cost, double[] sensitivity, double[] shift,
                                                          double[][] noise) {
        Map<String, Map<Integer, Double>> out = new LinkedHashMap<>();
        for (int c = 0; c < cost.length; c++) {
            Map<Integer, Double> byRound = new LinkedHashMap<>();
            for (int r = 0; r < shift.length; r++) {
                byRound.put(r + 1, cost[c] * (1 + sensitivity[c] * shift[r]) * noise[c][r]);
            }
            out.put("c" + c, byRound);
        }
        return out;
    }

    private static double[][] ones(int ciphers, int rounds) {
        double[][] n = new double[ciphers][rounds];
        for (double[] row : n) {
            Arrays.fill(row, 1.0);
        }
        return n;
    }

    private static double[] all(int n, double v) {
        double[] a = new double[n];
        Arrays.fill(a, v);
        return a;
    }

    @Test
    void aShiftEveryCipherFeelsIsRegressedOutButACipherItDoesNotMoveKeepsItsOwnSpread() {
        double[] shift = {0.09, 0.08, -0.01, -0.04, -0.17, 0.02, 0.0, -0.03, 0.03, 0.03};
        double[][] noise = ones(4, 10);
        // c3 (3DES-like) barely feels the shifts and has ±1 % noise of its own
        noise[3] = new double[] {1.01, 0.99, 1.01, 0.99, 1.01, 0.99, 1.01, 0.99, 1.01, 0.99};
        Map<String, Estimate> e = Rounds.withinRun(values(new double[] {500, 600, 700, 1100},
                new double[] {1.0, 1.4, 1.2, 0.1}, shift, noise));
        for (String c : List.of("c0", "c1", "c2")) {
            // they move with the shifts alone (what is left is c3's noise in the shift read from
            // the others): the plain interval is about ±7 %
            assertTrue(e.get(c).halfWidthPct() < 1, c + ": " + e.get(c));
        }
        double[] c3 = new double[10];
        for (int r = 0; r < 10; r++) {
            c3[r] = 1100 * (1 + 0.1 * shift[r]) * noise[3][r];
        }
        double plain = Stats.estimate(c3).halfWidthPct();
        assertTrue(e.get("c3").halfWidthPct() < plain * 1.25 && e.get("c3").halfWidthPct() > 0.3,
                "c3 keeps about its plain interval (" + plain + " %): " + e.get("c3"));
        assertEquals(Stats.mean(c3), e.get("c3").mean(), 1e-9, "the mean is the plain mean");
        assertEquals(10, e.get("c3").n());
    }

    @Test
    void withoutShiftsACiphersNoiseStaysItsOwnWithNMinusTwoDegreesOfFreedom() {
        // c1 constant, c0 ±100 alternately: c0's shift (read from c1) is 0, so no slope; by hand
        // s = √(6 × 100² / 4) = 122.47, half-width t(4) × s / √6 = 2.7764 × 50 = 138.82
        double[][] noise = ones(2, 6);
        noise[0] = new double[] {1.1, 0.9, 1.1, 0.9, 1.1, 0.9};
        Map<String, Estimate> e = Rounds.withinRun(values(new double[] {1000, 1000}, all(2, 0), all(6, 0), noise));
        assertEquals(1000, e.get("c0").mean(), 1e-9);
        assertEquals(122.474, e.get("c0").stdDev(), 1e-3);
        assertEquals(138.82, e.get("c0").halfWidth95(), 0.01);
        // c1's shift is c0's noise, which explains none of c1: none of c0's noise reaches it
        assertEquals(0, e.get("c1").halfWidth95(), 1e-9);
    }

    @Test
    void onlyCompleteRoundsCountAndTooFewGiveNothing() {
        Map<String, Map<Integer, Double>> v = values(new double[] {500, 700}, all(2, 1),
                new double[] {0, 0.1, -0.1, 0.05, 0.02, -0.02}, ones(2, 6));
        v.get("c1").remove(2);
        Map<String, Estimate> e = Rounds.withinRun(v);
        assertEquals(5, e.get("c0").n(), "round 2 is not complete");
        assertEquals(500 * (1 + 0.9 + 1.05 + 1.02 + 0.98) / 5, e.get("c0").mean(), 1e-9);
        v.get("c1").remove(3);
        assertTrue(Rounds.withinRun(v).isEmpty(), "c1 valid in four rounds: left out, and c0 alone reads no shift");
        Map<String, Map<Integer, Double>> three = values(new double[] {500, 700, 900}, all(3, 1),
                new double[] {0, 0.1, -0.1, 0.05, 0.02, -0.02}, ones(3, 6));
        three.get("c2").remove(2);
        three.get("c2").remove(4);
        Map<String, Estimate> without = Rounds.withinRun(three);
        assertEquals(List.of("c0", "c1"), List.copyOf(without.keySet()), "c2 left out, not its rounds");
        assertEquals(6, without.get("c0").n());
        assertTrue(Rounds.withinRun(Map.of("c0", Map.of(1, 1.0, 2, 2.0, 3, 3.0, 4, 4.0, 5, 5.0))).isEmpty(),
                "one cipher");
    }

    /**
     * Three or four rounds leave the regression one or two degrees of freedom (t = 12.7 or 4.30), and
     * its interval wider than the plain one over the same windows: the plain one stands.
     */
    @Test
    void fewerThanFiveRoundsLeaveThePlainInterval() {
        for (int rounds = 3; rounds <= 4; rounds++) {
            double[] shift = Arrays.copyOf(new double[] {0.05, -0.04, 0.02, -0.03}, rounds);
            assertTrue(Rounds.withinRun(values(new double[] {500, 700, 900}, all(3, 1), shift, ones(3, rounds)))
                    .isEmpty(), rounds + " rounds");
        }
        double[] five = {0.05, -0.04, 0.02, -0.03, 0.01};
        assertEquals(3, Rounds.withinRun(values(new double[] {500, 700, 900}, all(3, 1), five, ones(3, 5))).size());
    }

    @Test
    void aStudysAggregatesCarryTheIntervalWithinTheRunAndRankByIt() {
        // three ciphers over five rounds shifting by up to 9 %, each with ±1 % noise of its own
        double[] shift = {1.09, 1.08, 0.99, 0.96, 0.93};
        double[] own = {1.01, 0.99, 1.0, 1.01, 0.99};
        List<String> ciphers = List.of("udp", "aes", "3des");
        double[] cost = {500, 700, 1100};
        List<PointRun> fixed = new ArrayList<>();
        for (int r = 1; r <= 5; r++) {
            for (int c = 0; c < 3; c++) {
                fixed.add(Studies.point("chain", ciphers.get(c), r, 800, cost[c] * shift[r - 1] * own[(r - 1 + c) % 5]));
            }
        }
        Study base = Studies.study("chain", List.of("udp"), 800, 500);
        Study s = new Study(0, "chain", base.scenarioText(), ciphers, base.started(), base.environment(), fixed,
                List.of());
        for (Aggregate a : Aggregate.fixed(s)) {
            assertTrue(a.cpuMicrosPerCall().halfWidthPct() > 5, "the plain interval carries the shifts: " + a);
            assertTrue(a.cpuPerCallWithinRun().halfWidthPct() < 3, "within the run: " + a.cpuPerCallWithinRun());
            assertEquals(a.cpuPerCallWithinRun(), a.cpuPerCallRanked());
            assertEquals(a.cpuMicrosPerCall().mean(), a.cpuPerCallRanked().mean(), 1e-9);
        }
        String md = MarkdownReport.render(List.of(s), null);
        assertTrue(md.contains("Every CPU-per-call interval is within ±5 % of its mean."), md);
        assertTrue(md.contains("± % with drift"), md);
    }
}
