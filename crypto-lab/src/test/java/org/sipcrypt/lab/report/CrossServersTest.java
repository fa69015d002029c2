package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/**
 * The servers-under-test table of {@code compare --sut sipcrypt,kamailio}, from studies made of given
 * numbers: a section per scenario and combination run on two servers, sipcrypt's CPU per call as a
 * ratio to Kamailio's, each rate with the peak it derives from under {@code --peak-fraction}, and a
 * heading that says whether they compare at equal fractions of their own peaks or at one rate; and
 * each study's fixed-rate rates with the peaks they derive from, in both reports and results.csv.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CrossServersTest {

    @TempDir
    Path dir;

    /**
     * A study of one cipher whose fixed-rate points ran at half its ramp's peak: the fixture's ramp
     * finds 1e6 / µs per call rounded down to hundreds.
     */
    private static Study atHalfItsPeak(String scenario, String cipher, double cpuMicrosPerCall) {
        double peak = Math.floor(1e6 / cpuMicrosPerCall / 100) * 100;
        Study s = Studies.study(scenario, List.of(cipher), peak / 2, cpuMicrosPerCall);
        return new Study(0, s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment(), s.fixed(),
                s.peaks(), 0.5);
    }

    @Test
    void atEqualFractionsTheHeadingSaysSoAndEachRateShowsItsPeak() {
        // Kamailio's study first: sipcrypt's still leads, the ratio being sipcrypt's to Kamailio's
        List<Study> studies = List.of(atHalfItsPeak("chain-kamailio", "tcp", 400), atHalfItsPeak("chain", "tcp", 500));
        List<CrossServers.Section> sections = CrossServers.sections(studies);
        assertEquals(1, sections.size());
        CrossServers.Section s = sections.get(0);
        assertEquals("Servers under test: chain (1.2/rsa), at 0.5 of each one's own peak", CrossServers.heading(s));
        assertEquals(List.of("sipcrypt", "kamailio"), s.servers());
        Tables.Table t = s.table();
        assertEquals(List.of("cipher", "sipcrypt calls/s (of peak)", "sipcrypt CPU µs/call ± CI",
                "kamailio calls/s (of peak)", "kamailio CPU µs/call ± CI", "CPU/call sipcrypt / kamailio"), t.header());
        List<String> row = t.rows().get(0);
        assertEquals("tcp", row.get(0));
        assertEquals("1000 (of 2000)", row.get(1), "half of sipcrypt's 2,000/s");
        assertEquals("1250 (of 2500)", row.get(3), "half of Kamailio's 2,500/s");
        // three repetitions each, ±2 %: each mean known to ±4.97 % (t 4.303 × 2 % / √3), the ratio to √2 × that
        assertEquals("×1.250 ± 0.088", row.get(5), "500 against 400 µs per call");
        assertEquals(1.25, s.rows().get(0).ratios().get(0).mean(), 1e-9);
        assertEquals(1.25 * Math.sqrt(2) * 4.303 * 0.02 / Math.sqrt(3), s.rows().get(0).ratios().get(0).halfWidth95(), 1e-3);
        // small rates are whole calls per second too
        Study low = atHalfItsPeak("chain", "tcp", 10_000);
        assertEquals("50 (of 100)", CrossServers.sections(List.of(low, atHalfItsPeak("chain-kamailio", "tcp", 400)))
                .get(0).table().rows().get(0).get(1));
    }

    @Test
    void atOneRateTheHeadingSaysSoAndANameOneServerDidNotRunSaysNotRun() {
        Study sipcrypt = Studies.study("chain", List.of("tcp", "aes"), 200, 500, 800);
        Study kamailio = Studies.study("chain-kamailio", List.of("tcp"), 200, 400);
        CrossServers.Section s = CrossServers.sections(List.of(sipcrypt, kamailio)).get(0);
        assertEquals("Servers under test: chain (1.2/rsa), at the same rate", CrossServers.heading(s));
        assertEquals(List.of("tcp", "200", "500 ± 25", "200", "400 ± 20", "×1.250 ± 0.088"), s.table().rows().get(0).subList(0, 6),
                s.table().rows().toString());
        assertEquals(List.of("aes", "not run", "not run", "n/a"), List.of(s.table().rows().get(1).get(0),
                s.table().rows().get(1).get(3), s.table().rows().get(1).get(4), s.table().rows().get(1).get(5)));
    }

    @Test
    void atDifferentRatesWithoutAFractionTheHeadingSaysNeither() {
        Study sipcrypt = Studies.study("chain", List.of("tcp"), 200, 500);
        Study kamailio = Studies.study("chain-kamailio", List.of("tcp"), 300, 400);
        assertEquals("Servers under test: chain (1.2/rsa), at the rates shown (neither one rate nor one fraction of"
                + " each one's own peak)", CrossServers.heading(CrossServers.sections(List.of(sipcrypt, kamailio)).get(0)));
    }

    @Test
    void oneServerOrOtherScenariosMakeNoSection() {
        assertEquals(List.of(), CrossServers.sections(List.of(Studies.study("chain", List.of("tcp"), 200, 500),
                Studies.study("outbound-kamailio", List.of("tcp"), 200, 400))));
        assertEquals("chain", CrossServers.baseScenario(Studies.study("chain-kamailio", List.of("tcp"), 200, 400)));
    }

    @Test
    void bothReportsAndResultsCsvShowEachRateAndThePeakItDerivesFrom() throws IOException {
        List<Study> studies = List.of(atHalfItsPeak("chain", "tcp", 500), atHalfItsPeak("chain-kamailio", "tcp", 400));
        String md = MarkdownReport.render(studies, null);
        assertTrue(md.contains("Each cipher's fixed-rate points ran at 0.5 of its own peak on this server"), md);
        assertTrue(md.contains("- tcp: 1000/s, 0.5 × its peak of 2000/s (its ramp stopped by failures)"), md);
        assertTrue(md.contains("- tcp: 1250/s, 0.5 × its peak of 2500/s (its ramp stopped by failures)"), md);
        assertTrue(md.contains("## Servers under test: chain (1.2/rsa), at 0.5 of each one's own peak"), md);
        assertTrue(md.contains("| tcp | 1000 (of 2000) |"), md);
        String html = HtmlReport.render(studies, null);
        assertTrue(html.contains("<h2>Servers under test: chain (1.2/rsa), at 0.5 of each one&#39;s own peak</h2>"),
                html);
        assertTrue(html.contains("<li>tcp: 1000/s, 0.5 × its peak of 2000/s (its ramp stopped by failures)</li>"), html);
        CsvExport.write(studies, dir);
        List<String> lines = Files.readAllLines(dir.resolve(CsvExport.POINTS_FILE_NAME));
        List<String> header = List.of(lines.get(0).split(",", -1));
        int fraction = header.indexOf("peak_fraction");
        int peak = header.indexOf("from_peak_rate");
        int mode = header.indexOf("mode");
        int rate = header.indexOf("rate");
        int fixed = 0;
        for (String line : lines.subList(1, lines.size())) {
            List<String> row = List.of(line.split(",", -1));
            if (row.get(mode).equals("fixed")) {
                fixed++;
                assertEquals("0.5", row.get(fraction), line);
                assertEquals(Double.parseDouble(row.get(rate)) * 2, Double.parseDouble(row.get(peak)), line);
            } else {
                assertEquals(List.of("", ""), List.of(row.get(fraction), row.get(peak)), "a ramp's step: " + line);
            }
        }
        assertEquals(6, fixed, "three repetitions on each server");
    }
}
