package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/**
 * The ranked figure: each cipher's CPU per call as a ratio to tcp's in the same round, over stored
 * points whose machine drifts from round to round, in the aggregates, the reports and results.csv.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SameRoundRatiosTest {

    /**
     * tcp's CPU per call in rounds 1 to 5: the machine slows down by half and recovers, which widens
     * every cipher's plain interval but moves both points of a round alike.
     */
    private static final double[] TCP = {100, 150, 200, 150, 120};

    private static Study study(List<String> ciphers, List<PointRun> points) {
        return new Study(3, "chain", "name: chain\n", ciphers, Instant.parse("2026-11-28T10:00:00Z"),
                new Environment("test JVM", "test CPU", 2, "Linux", "lab-host", "0.1.0"), points, List.of());
    }

    /**
     * Five rounds over tcp, aes (1.5 times tcp in every round) and 3des (2, 2.2, 1.8, 2, 2 times), each
     * round's cipher order rotated as {@code compare} runs them, so that only the round, not the place
     * in the list, pairs a point with its tcp point.
     */
    private static List<PointRun> points() {
        List<PointRun> out = new ArrayList<>();
        double[] des = {2, 2.2, 1.8, 2, 2};
        for (int round = 1; round <= TCP.length; round++) {
            List<PointRun> r = new ArrayList<>(List.of(
                    Studies.point("chain", "tcp", round, 200, TCP[round - 1]),
                    Studies.point("chain", "aes", round, 200, TCP[round - 1] * 1.5),
                    Studies.point("chain", "3des", round, 200, TCP[round - 1] * des[round - 1])));
            java.util.Collections.rotate(r, -(round - 1));
            out.addAll(r);
        }
        return out;
    }

    private static PointRun invalid(PointRun p) {
        return new PointRun(p.scenario(), p.cipher(), p.mode(), p.repetition(), p.rate(), p.uac(), p.uasHandshakes(),
                p.uasResumed(), p.uasBytes(), p.server(), p.labCpu(), p.samples(), "generator saturated (test)");
    }

    @Test
    void eachRatioIsTakenToTheTcpPointOfTheSameRound() {
        List<Aggregate> all = Aggregate.fixed(study(List.of("tcp", "3des", "aes"), points()));
        Aggregate aes = Aggregate.find(all, "aes").orElseThrow();
        // the drift cancels: 1.5 in every round, no spread, while the CPU per call itself spreads wide
        assertEquals(5, aes.cpuRatioToTcp().n());
        assertEquals(1.5, aes.cpuRatioToTcp().mean(), 1e-12);
        assertEquals(0, aes.cpuRatioToTcp().halfWidth95(), 1e-12);
        assertTrue(aes.cpuMicrosPerCall().halfWidthPct() > 20, "the plain interval: " + aes.cpuMicrosPerCall());
        Aggregate des = Aggregate.find(all, "3des").orElseThrow();
        double[] ratios = {2, 2.2, 1.8, 2, 2};
        assertEquals(Stats.mean(ratios), des.cpuRatioToTcp().mean(), 1e-12);
        assertEquals(Stats.t975(4) * Stats.sampleStdDev(ratios) / Math.sqrt(5), des.cpuRatioToTcp().halfWidth95(),
                1e-12);
        Aggregate tcp = Aggregate.find(all, "tcp").orElseThrow();
        assertEquals(1, tcp.cpuRatioToTcp().mean(), 1e-12);
    }

    @Test
    void aRoundCountsOnlyWhenTheCipherAndTcpAreBothValidInIt() {
        List<PointRun> points = new ArrayList<>(points());
        for (int i = 0; i < points.size(); i++) {
            PointRun p = points.get(i);
            if (p.cipher().equals("tcp") && p.repetition() == 2 || p.cipher().equals("3des") && p.repetition() == 4) {
                points.set(i, invalid(p));
            }
        }
        List<Aggregate> all = Aggregate.fixed(study(List.of("tcp", "3des", "aes"), points));
        assertEquals(4, Aggregate.find(all, "aes").orElseThrow().cpuRatioToTcp().n(), "round 2 has no valid tcp");
        Aggregate des = Aggregate.find(all, "3des").orElseThrow();
        assertEquals(3, des.cpuRatioToTcp().n(), "round 2 without tcp, round 4 without 3des");
        assertEquals((2 + 1.8 + 2) / 3, des.cpuRatioToTcp().mean(), 1e-12);
    }

    @Test
    void withoutATcpBaselineThereIsNoRatio() {
        List<PointRun> points = points().stream().filter(p -> !p.cipher().equals("tcp")).toList();
        List<Aggregate> all = Aggregate.fixed(study(List.of("3des", "aes"), points));
        all.forEach(a -> assertFalse(a.cpuRatioToTcp().known(), a.cipher()));
        assertFalse(Tables.rankedByRatio(all));
        String md = MarkdownReport.render(List.of(study(List.of("3des", "aes"), points)), null);
        assertTrue(md.contains("this study has no tcp baseline"), md);
    }

    @Test
    void resultsCsvCarriesEachPointsRatioToItsRoundsTcp() throws IOException {
        List<PointRun> points = new ArrayList<>(points());
        points.replaceAll(p -> p.cipher().equals("tcp") && p.repetition() == 3 ? invalid(p) : p);
        StringWriter out = new StringWriter();
        CsvExport.writePoints(List.of(study(List.of("tcp", "3des", "aes"), points)), out);
        List<List<String>> rows = Rfc4180.parse(out.toString());
        List<String> header = rows.get(0);
        int ratio = header.indexOf("server_cpu_ratio_to_tcp");
        int cpu = header.indexOf("server_cpu_us_per_call");
        int rep = header.indexOf("repetition");
        int cipher = header.indexOf("cipher");
        assertEquals(header.indexOf("uas_cpu_us_per_call") + 1, ratio, "appended after the lab's CPU per call");
        assertEquals(points.size() + 1, rows.size());
        for (List<String> r : rows.subList(1, rows.size())) {
            int round = Integer.parseInt(r.get(rep));
            String expected;
            if (round == 3) {
                expected = "-1";
            } else if (r.get(cipher).equals("tcp")) {
                expected = "1";
            } else {
                double tcp = rows.stream().filter(o -> o.get(cipher).equals("tcp") && o.get(rep).equals(r.get(rep)))
                        .mapToDouble(o -> Double.parseDouble(o.get(cpu))).findFirst().orElseThrow();
                expected = CsvExport.number(Double.parseDouble(r.get(cpu)) / tcp);
            }
            assertEquals(expected, r.get(ratio), r.toString());
        }
    }

    @Test
    void reportsRankByTheRatioCheapestFirstAndSaySo() {
        // udp at 0.8 of tcp in every round; the study lists the ciphers in another order than the rank
        List<PointRun> points = new ArrayList<>(points());
        for (int round = 1; round <= TCP.length; round++) {
            points.add(Studies.point("chain", "udp", round, 200, TCP[round - 1] * 0.8));
        }
        Study s = study(List.of("3des", "tcp", "aes", "udp"), points);
        String md = MarkdownReport.render(List.of(s), null);
        String ranking = md.substring(md.indexOf("### Ranking"));
        List<String> table = MarkdownReportTest.tables(ranking).get(0);
        assertEquals(List.of("rank", "cipher", "CPU per call / tcp's, same round ± CI", "± %", "rounds",
                "apart from the next"), MarkdownReportTest.cells(table.get(0)));
        List<List<String>> rows = table.subList(2, table.size()).stream().map(MarkdownReportTest::cells).toList();
        assertEquals(List.of("udp", "tcp", "aes", "3des"), rows.stream().map(r -> r.get(1)).toList());
        assertEquals(List.of("1", "×0.800 ± 0.000", "5", "yes"), List.of(rows.get(0).get(0), rows.get(0).get(2),
                rows.get(0).get(4), rows.get(0).get(5)));
        assertEquals("×1.500 ± 0.000", rows.get(2).get(2));
        assertEquals("", rows.get(3).get(5), "the last has no next");
        assertTrue(ranking.contains("Ranked by each cipher's server CPU per call as a ratio to tcp's in the same round"),
                ranking);
        // the fixed-rate table's tcp column is the same figure
        List<String> fixed = MarkdownReportTest.tables(md.substring(md.indexOf("### Fixed rate"))).get(0);
        int vsTcp = MarkdownReportTest.cells(fixed.get(0)).indexOf("CPU vs tcp");
        assertEquals("×1.50", fixed.stream().skip(2).map(MarkdownReportTest::cells)
                .filter(r -> r.get(0).equals("aes")).findFirst().orElseThrow().get(vsTcp));
        String html = HtmlReport.render(List.of(s), null);
        assertTrue(html.contains("<h3>Ranking</h3>"), html);
        assertTrue(html.contains(XmlText.escape(Tables.rankingNote(Aggregate.fixed(s)))), html);
        assertTrue(html.contains("server CPU per call / tcp"), "the ratio's chart");
    }

    @Test
    void overlappingIntervalsAreSaidNotToBeApart() {
        // aes and camellia both 1.5 times tcp on average, each spreading over the rounds
        List<PointRun> points = new ArrayList<>();
        double[] aes = {1.4, 1.6, 1.5, 1.45, 1.55};
        double[] camellia = {1.6, 1.4, 1.5, 1.55, 1.5};
        for (int round = 1; round <= TCP.length; round++) {
            points.add(Studies.point("chain", "tcp", round, 200, TCP[round - 1]));
            points.add(Studies.point("chain", "aes", round, 200, TCP[round - 1] * aes[round - 1]));
            points.add(Studies.point("chain", "camellia", round, 200, TCP[round - 1] * camellia[round - 1]));
        }
        Tables.Table t = Tables.ranking(Aggregate.fixed(study(List.of("tcp", "aes", "camellia"), points)));
        assertEquals("yes", t.rows().get(0).get(5), "tcp's 1 ± 0 lies below");
        assertEquals("no: the intervals overlap", t.rows().get(1).get(5));
    }

    @Test
    void theCostPerHandshakeIsTheSameRoundDifferenceOverTheServersHandshakesPerCall() {
        // aes makes two handshakes per call in the server (one from the generator, one to the UAS) and
        // costs 0.5 × tcp more per call; round 2's tcp point is invalid, so that round does not count;
        // tcp and 3des made none and have no figure
        List<PointRun> points = new ArrayList<>();
        for (PointRun p : points()) {
            if (p.cipher().equals("aes")) {
                PointRun h = Studies.underHandshake(study(List.of("aes"), List.of(p)),
                        org.sipcrypt.lab.runner.Handshake.DEFAULT, 1).fixed().get(0);
                p = new PointRun(h.scenario(), h.cipher(), h.mode(), h.repetition(), h.rate(), h.uac(),
                        h.uac().handshakes(), 0, h.uasBytes(), h.server(), h.labCpu(), h.samples(), null);
            }
            points.add(p.cipher().equals("tcp") && p.repetition() == 2 ? invalid(p) : p);
        }
        java.util.Map<String, Stats.Estimate> perHandshake = SameRoundRatios.perHandshake(points);
        assertEquals(List.of("aes"), List.copyOf(perHandshake.keySet()));
        Stats.Estimate aes = perHandshake.get("aes");
        assertEquals(4, aes.n());
        // rounds 1, 3, 4, 5: 0.5 × tcp / 2 = 25, 50, 37.5, 30
        assertEquals((25 + 50 + 37.5 + 30) / 4, aes.mean(), 1e-9);
        // what it divides by, over the same four rounds: half full as TLS server, half full as TLS client
        long calls = points.stream().filter(p -> p.cipher().equals("aes") && p.repetition() != 2)
                .mapToLong(p -> p.uac().completed()).sum();
        java.util.Map<String, org.sipcrypt.lab.runner.ServerHandshakes> kinds = SameRoundRatios.perHandshakeKinds(points);
        assertEquals(java.util.Map.of("aes", new org.sipcrypt.lab.runner.ServerHandshakes(calls, 0, calls, 0)), kinds);
        assertEquals("mixed", kinds.get("aes").kind());
    }
}
