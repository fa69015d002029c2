package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.ResultStore;

/**
 * {@code agree} on two runs written as results.json (and stored in an H2 lab database) from studies of
 * given numbers: per round, tcp's CPU per call shifted by the round's drift and each cipher's its
 * ratio to tcp's times the round's noise, so each cipher's same-round ratio is known to about ±1 %.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgreeCommandTest {

    /** The machine's shift per round: the same in tcp's point and the ciphers', it cancels in the ratios. */
    private static final double[] DRIFT = {1.00, 1.05, 0.97, 1.02, 0.99};
    /** Each cipher's noise per round: mean 0, so each mean ratio is the one given; ±0.98 % its interval. */
    private static final double[] NOISE = {0.01, -0.01, 0.005, -0.005, 0};
    /** The same noise in another order: another run with the same means. */
    private static final double[] NOISE_AGAIN = {-0.005, 0, 0.01, 0.005, -0.01};

    @TempDir
    Path dir;

    /**
     * A study of tcp and the ciphers with these ratios to tcp's CPU per call (400 µs), five rounds, the
     * {@code k}th cipher's noise in round r {@code noise[(r - 1 + k) % 5]}.
     */
    private static Study study(long id, String scenario, Environment env, double[] noise, Map<String, Double> ratios) {
        List<String> ciphers = new ArrayList<>(ratios.keySet());
        List<PointRun> fixed = new ArrayList<>();
        for (int round = 1; round <= DRIFT.length; round++) {
            double tcp = 400 * DRIFT[round - 1];
            for (int k = 0; k < ciphers.size(); k++) {
                String c = ciphers.get(k);
                // each cipher its own round's noise, so that no two ciphers move alike
                double n = noise[(round - 1 + k) % noise.length];
                double cpu = c.equals("tcp") ? tcp : tcp * ratios.get(c) * (1 + n);
                fixed.add(Studies.point(scenario, ciphers.get(k), round, 200, cpu));
            }
        }
        return new Study(id, scenario, "name: " + scenario + "\n", ciphers, Instant.parse("2026-11-22T10:00:00Z"), env,
                fixed, List.of());
    }

    private static Environment tls12() {
        return new Environment("test JVM", "test CPU", 2, "Linux", "lab-host", "0.1.0");
    }

    private static Environment tls13() {
        return tls12().withHandshake("1.3", "ecdhe-x25519");
    }

    private static Map<String, Double> ratios(Object... cipherAndRatio) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < cipherAndRatio.length; i += 2) {
            m.put((String) cipherAndRatio[i], (Double) cipherAndRatio[i + 1]);
        }
        return m;
    }

    /** The main command's two parts: chain under TLS 1.2/RSA, handshakes under TLS 1.3/X25519. */
    private static List<Study> run(long firstId, double[] noise, Map<String, Double> chain) {
        return List.of(study(firstId, "chain", tls12(), noise, chain),
                study(firstId + 1, "handshakes", tls13(), noise, ratios("tcp", 1.0, "aes", 1.5)));
    }

    private static Map<String, Double> chain(double aes, double camellia) {
        return ratios("udp", 0.8, "tcp", 1.0, "aes", aes, "camellia", camellia, "3des", 1.9);
    }

    private Path results(String name, List<Study> studies) throws IOException {
        return JsonExport.write(studies, dir.resolve(name));
    }

    private record Outcome(int exit, String out, String err) {
    }

    private static Outcome agree(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("agree"));
        all.addAll(List.of(args));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Outcome(exit, out.toString(), err.toString());
    }

    private static String lastLine(String text) {
        List<String> lines = text.strip().lines().toList();
        return lines.get(lines.size() - 1);
    }

    /** The table row of a cipher in the section of {@code heading}. */
    private static String row(String md, String heading, String cipher) {
        String section = md.substring(md.indexOf("## " + heading));
        return section.lines().filter(l -> l.startsWith("| " + cipher + " |")).findFirst()
                .orElseThrow(() -> new AssertionError("no row of " + cipher + " under " + heading + ":\n" + md));
    }

    @Test
    void theSameOrderWithEveryRatioInsideExitsZeroAndWritesTheFile() throws IOException {
        Path first = results("first", run(1, NOISE, chain(1.12, 1.3)));
        Path second = results("second", run(3, NOISE_AGAIN, chain(1.12, 1.3)));
        Path file = dir.resolve("agree/agree.md");
        Outcome o = agree(first.toString(), second.getParent().toString(), "--out", file.toString());
        assertEquals(0, o.exit(), o.err() + o.out());
        assertEquals("rank order the same in 2 of 2 studies; 5 of 5 ratios of the second run inside the first run's"
                + " interval", lastLine(o.out()));
        assertTrue(o.out().contains("## chain (1.2/rsa)\n"), o.out());
        assertTrue(o.out().contains("## handshakes (1.3/ecdhe-x25519)\n"), o.out());
        assertTrue(o.out().contains("- rank order, first run: udp, tcp, aes, camellia, 3des\n"
                + "- rank order, second run: udp, tcp, aes, camellia, 3des\n- the same: yes\n"), o.out());
        String aes = row(o.out(), "chain", "aes");
        assertTrue(aes.matches("\\| aes \\| 3 / 3 \\| ×1\\.120 ± 0\\.011 \\| ×1\\.120 ± 0\\.011 \\| yes \\| 0\\.0 % \\|"),
                aes);
        assertTrue(row(o.out(), "chain", "tcp").contains("baseline"), o.out());
        assertTrue(o.out().contains("Compared by the server's CPU per call as a ratio to tcp's in the same round."),
                o.out());
        assertEquals(o.out(), Files.readString(file));
    }

    @Test
    void oneRatioOutsideTheFirstRunsIntervalExitsOne() throws IOException {
        Path first = results("first", run(1, NOISE, chain(1.12, 1.3)));
        Path second = results("second", run(3, NOISE_AGAIN, chain(1.12 * 1.05, 1.3)));
        Outcome o = agree(first.toString(), second.toString());
        assertEquals(1, o.exit(), o.err() + o.out());
        assertEquals("rank order the same in 2 of 2 studies; 4 of 5 ratios of the second run inside the first run's"
                + " interval", lastLine(o.out()));
        String aes = row(o.out(), "chain", "aes");
        assertTrue(aes.contains("| ×1.176 ± 0.012 | no: above it | +5.0 % |"), aes);
        assertTrue(row(o.out(), "chain", "camellia").contains("| yes |"), o.out());
    }

    @Test
    void aSwappedRankOrderExitsOneThoughEveryRatioIsInside() throws IOException {
        // aes 1.120 ± 0.011 and camellia 1.130 ± 0.011 overlap: the second run may swap them inside both
        Path first = results("first", run(1, NOISE, chain(1.12, 1.13)));
        Path second = results("second", run(3, NOISE_AGAIN, chain(1.127, 1.122)));
        Outcome o = agree(first.toString(), second.toString());
        assertEquals(1, o.exit(), o.err() + o.out());
        assertEquals("rank order the same in 1 of 2 studies; 5 of 5 ratios of the second run inside the first run's"
                + " interval", lastLine(o.out()));
        assertTrue(o.out().contains("- rank order, first run: udp, tcp, aes, camellia, 3des\n"
                + "- rank order, second run: udp, tcp, camellia, aes, 3des\n- the same: no\n"), o.out());
        assertTrue(row(o.out(), "chain", "aes").startsWith("| aes | 3 / 4 |"), o.out());
    }

    @Test
    void aStudyMissingFromTheSecondRunIsSaidAndDisagrees() throws IOException {
        Path first = results("first", run(1, NOISE, chain(1.12, 1.3)));
        Path second = results("second", run(3, NOISE_AGAIN, chain(1.12, 1.3)).subList(0, 1));
        Outcome o = agree(first.toString(), second.toString());
        assertEquals(1, o.exit(), o.err() + o.out());
        assertEquals("rank order the same in 1 of 2 studies; 4 of 4 ratios of the second run inside the first run's"
                + " interval; only in the first run: handshakes (1.3/ecdhe-x25519)", lastLine(o.out()));
        assertTrue(o.out().contains("## handshakes (1.3/ecdhe-x25519)\n\nOnly in the first run (study #2): the second"
                + " has no study of this scenario and combination; counted as not agreeing.\n"), o.out());
    }

    @Test
    void aCipherAndAStudyOfTheSecondRunOnlyAreSaidAndDisagree() throws IOException {
        Path first = results("first", run(1, NOISE, chain(1.12, 1.3)).subList(0, 1));
        Map<String, Double> withSeed = chain(1.12, 1.3);
        withSeed.put("seed", 1.4);
        Path second = results("second", run(3, NOISE_AGAIN, withSeed));
        Outcome o = agree(first.toString(), second.toString());
        assertEquals(1, o.exit(), o.err() + o.out());
        assertEquals("rank order the same in 0 of 2 studies; 4 of 5 ratios of the second run inside the first run's"
                + " interval; only in the second run: handshakes (1.3/ecdhe-x25519)", lastLine(o.out()));
        assertTrue(row(o.out(), "chain", "seed").startsWith("| seed | - / 5 | not run | ×1.400 ± 0.014 |"
                + " no: not in the first run | n/a |"), o.out());
        assertTrue(o.out().contains("Only in the second run (study #4): the first has no study"), o.out());
    }

    @Test
    void studiesWithoutTcpAreComparedByCpuPerCallAndSaySo() throws IOException {
        Map<String, Double> noTcp = ratios("aes", 1.12, "3des", 1.9);
        Path first = results("first", List.of(study(1, "chain", tls12(), NOISE, noTcp)));
        Path second = results("second", List.of(study(2, "chain", tls12(), NOISE_AGAIN, noTcp)));
        Outcome o = agree(first.toString(), second.toString());
        assertEquals(0, o.exit(), o.err() + o.out());
        assertTrue(o.out().contains("Compared by CPU per call, not by the ratio to tcp's: neither run's study has a"
                + " tcp baseline.\n"), o.out());
        assertTrue(o.out().contains("| first run: CPU µs/call ± CI |"), o.out());
        assertTrue(o.out().contains("- rank order, first run: aes, 3des\n"), o.out());
        assertTrue(lastLine(o.out()).startsWith("rank order the same in 1 of 1 studies; "), o.out());
    }

    @Test
    void studyIdsAreReadFromTheLabDatabase() throws IOException {
        String url = Studies.h2Url(dir);
        List<Long> ids = new ArrayList<>();
        try (ResultStore store = ResultStore.open(url, "sa", "")) {
            for (Study s : run(0, NOISE, chain(1.12, 1.3))) {
                ids.add(store.save(s));
            }
            for (Study s : run(0, NOISE_AGAIN, chain(1.12 * 1.05, 1.3))) {
                ids.add(store.save(s));
            }
        }
        Outcome o = agree("--db", url, ids.get(0) + "," + ids.get(1), ids.get(2) + "+" + ids.get(3));
        assertEquals(1, o.exit(), o.err() + o.out());
        assertTrue(lastLine(o.out()).endsWith("; 4 of 5 ratios of the second run inside the first run's interval"),
                o.out());
        Outcome missing = agree("--db", url, ids.get(0) + "," + ids.get(1), "999");
        assertEquals(2, missing.exit(), missing.out());
        assertEquals("agree: SECOND: no study 999 in " + url, missing.err().strip());
    }

    @Test
    void aMalformedResultsFileExitsTwoNamingIt() throws IOException {
        Path good = results("good", run(1, NOISE, chain(1.12, 1.3)));
        String text = Files.readString(good);
        Path truncated = Files.writeString(dir.resolve("truncated.json"), text.substring(0, text.length() / 2));
        Outcome o = agree(good.toString(), truncated.toString());
        assertEquals(2, o.exit(), o.out());
        assertEquals("", o.out());
        assertTrue(o.err().startsWith("agree: " + truncated + ": not a results file: "), o.err());

        Path notStudies = Files.writeString(dir.resolve("other.json"), "{\"points\": []}");
        o = agree(notStudies.toString(), good.toString());
        assertEquals(2, o.exit(), o.out());
        assertTrue(o.err().startsWith("agree: " + notStudies + ": not a results file: "), o.err());

        Path empty = Files.writeString(dir.resolve("empty.json"), "{\"studies\": []}");
        o = agree(good.toString(), empty.toString());
        assertEquals(2, o.exit(), o.out());
        assertEquals("agree: SECOND: " + empty + ": no studies in it", o.err().strip());

        Path noResults = Files.createDirectories(dir.resolve("no-results"));
        o = agree(noResults.toString(), good.toString());
        assertEquals(2, o.exit(), o.out());
        assertEquals("agree: FIRST: " + noResults + " holds no results.json", o.err().strip());

        o = agree(good.toString(), dir.resolve("absent").toString());
        assertEquals(2, o.exit(), o.out());
        assertEquals("agree: SECOND: " + dir.resolve("absent") + ": no such file or directory, nor study IDs (3,4,5)",
                o.err().strip());
    }

    @Test
    void aRunWithTwoStudiesOfOneScenarioAndCombinationExitsTwo() throws IOException {
        List<Study> twice = List.of(study(1, "chain", tls12(), NOISE, chain(1.12, 1.3)),
                study(2, "chain", tls12(), NOISE_AGAIN, chain(1.12, 1.3)));
        Path first = results("first", twice);
        Path second = results("second", run(3, NOISE, chain(1.12, 1.3)));
        Outcome o = agree(first.toString(), second.toString());
        assertEquals(2, o.exit(), o.out());
        assertEquals("agree: the first run holds two studies of chain (1.2/rsa) (#1 and #2): give one run per argument",
                o.err().strip());
    }
}
