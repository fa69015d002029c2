package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.runner.CpuPinning;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;

/**
 * The lab's command line end to end: {@code compare} runs two scenarios over a baseline and a
 * cipher with two repetitions against the real server in its own process, stores them and writes
 * the five report files, which parse; {@code list} shows the studies and {@code report} writes
 * them again from the database; with {@code --peak-fraction} a ramp comes first and the fixed-rate
 * points run at that fraction of the peak it found, which the reports give beside the rate.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CompareCommandIT {

    @TempDir
    Path dir;

    @Test
    void compareStoresAndReportsEveryCipherAndTheReportsParse() throws Exception {
        String db = "jdbc:h2:file:" + dir.resolve("db/lab");
        Path out = dir.resolve("out");
        StringWriter said = new StringWriter();
        int rc = LabCommandLine.run(said, "compare", "--scenario", "chain,outbound", "--ciphers", "tcp,aes", "--rate", "20",
                "--duration", "2", "--warmup", "1", "--repeat", "2", "--out", out.toString(), "--db", db);
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);
        for (String f : List.of("report.md", "report.html", "results.csv", "peaks.csv", "results.json")) {
            // a run that ended in an error writes no report: what it said tells why
            assertTrue(Files.isRegularFile(out.resolve(f)) && Files.size(out.resolve(f)) > 0, f + "\n" + said);
        }
        List<Study> studies = JsonExport.read(out.resolve("results.json"));
        assertEquals(List.of("chain", "outbound"), studies.stream().map(Study::scenario).toList());
        boolean everyPointValid = true;
        for (Study s : studies) {
            assertEquals(4, s.fixed().size(), "two ciphers, two repetitions");
            // repetitions interleaved, the cipher order rotated in each
            assertEquals(List.of("tcp", "aes", "aes", "tcp"), s.fixed().stream().map(p -> p.cipher()).toList());
            assertEquals(List.of(1, 1, 2, 2), s.fixed().stream().map(p -> p.repetition()).toList());
            if (CpuPinning.allowedCpus().size() >= 2) {
                assertTrue(s.environment().pinning().startsWith("server on CPU "), s.environment().pinning());
            }
            for (PointRun p : s.fixed()) {
                assertEquals(0, p.uac().failed(), p.uac().text());
                assertEquals(40, p.uac().completed(), p.uac().text());
                // the lab's own CPU per call by role, read back from results.json
                assertTrue(p.labCpu().uasMicrosPerCall() > 0, "the UAS's CPU per call measured: " + p.labCpu());
                assertTrue(p.labCpu().generatorMicrosPerCall() > 0, "the generator's CPU per call: " + p.labCpu());
                // a saturated generator depends on the machine, not the code: compare reports it and exits 1
                if (p.invalid() != null) {
                    assertTrue(p.uac().saturated() && p.invalid().startsWith("generator saturated"), p.invalid());
                    everyPointValid = false;
                }
            }
        }
        assertEquals(everyPointValid ? 0 : 1, rc, "0 when every point passed, 1 when one was invalid\n" + said);
        List<String> csv = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
        assertEquals(1 + 8, csv.size(), "a header and a row per point");
        // one warm server per cipher: its start and warm-up is a step, then a round that is not
        // counted, then the four measured windows
        assertTrue(said.toString().contains("[1/7] chain tcp: server 1 of 2, its start and warm-up")
                        && said.toString().contains("chain: round 0, not counted: 2 windows")
                        && said.toString().contains("chain tcp #1: 20/s") && said.toString().contains("[7/7, "),
                "each step says which of how many it is and the time left\n" + said);
        assertEquals(1, benches(out.resolve("work"), "chain-sipcrypt-tcp-"), "one server for tcp's two repetitions");
        for (Study s : studies) {
            // the study's records: both repetitions of a cipher measured the same server process
            assertEquals(2, serverPids(s.fixed()), "a server per cipher: " + s.fixed());
            assertEquals(1, serverPids(s.fixed().stream().filter(p -> p.cipher().equals("tcp")).toList()));
        }
        assertTrue(studies.get(0).environment().pinning().endsWith("one warm server per cipher, repetitions as"
                + " interleaved windows"), studies.get(0).environment().pinning());
        String md = Files.readString(out.resolve("report.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("| CPU pinning |"), md);
        assertTrue(md.contains("| tcp |") && md.contains("| aes |"), md);
        assertTrue(md.contains("| generator µs/call | UAS µs/call |"), md);
        assertTrue(csv.get(0).endsWith(",generator_cpu_us_per_call,uas_cpu_us_per_call,server_cpu_ratio_to_tcp,"
                + "tls_version,kx,cert,resumption,left_transport,right_transport,client_hello_bytes,"
                + "client_hello_segments,server_flight_bytes,server_flight_segments,handshake_p50_ms,"
                + "handshake_p99_ms,handshakes_timed,handshakes_as_server_full_per_call,"
                + "handshakes_as_server_resumed_per_call,handshakes_as_client_full_per_call,"
                + "handshakes_as_client_resumed_per_call,server_tls_engine,peak_fraction,from_peak_rate,"
                + "idle_connections,idle_heap_bytes_per_connection,idle_heap_left_after_closing_bytes_per_connection"),
                csv.get(0));
        // ranked by the ratio to tcp's in the same round, or by CPU per call where a busy machine left no valid
        // tcp window in the study (its generator saturated)
        boolean tcpValid = studies.get(0).fixed().stream().anyMatch(p -> p.cipher().equals("tcp") && p.invalid() == null);
        assertTrue(md.contains("### Ranking") && md.contains(tcpValid
                ? "Ranked by each cipher's server CPU per call as a ratio to tcp's in the same round"
                : "this study has no tcp baseline, so there is no ratio to tcp's in the same round to rank by"), md);
        assertTrue(md.contains("Cost model"), md);
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(out.resolve("report.html").toFile());

        StringWriter listed = new StringWriter();
        assertEquals(0, LabCommandLine.run(listed, "list", "--db", db));
        assertTrue(listed.toString().contains("chain") && listed.toString().contains("outbound"), listed.toString());

        Path again = dir.resolve("again");
        StringWriter reported = new StringWriter();
        long first = studies.get(0).id();
        assertEquals(0, LabCommandLine.run(reported, "report", Long.toString(first), "--db", db, "--out", again.toString()),
                reported.toString());
        assertEquals(1, JsonExport.read(again.resolve("results.json")).size());
        assertEquals(1, LabCommandLine.run(new StringWriter(), "report", "999", "--db", db), "an unknown study");
    }

    @Test
    void freshServersStartAServerForEveryRoundOfEveryCipher() throws Exception {
        Path out = dir.resolve("fresh");
        StringWriter said = new StringWriter();
        int rc = LabCommandLine.run(said, "compare", "--scenario", "chain", "--ciphers", "tcp,aes", "--rate", "20", "--duration", "2",
                "--warmup", "1", "--repeat", "2", "--fresh-servers", "--out", out.toString(),
                "--db", "jdbc:h2:file:" + dir.resolve("db/fresh"));
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);
        Study study = JsonExport.read(out.resolve("results.json")).get(0);
        List<PointRun> points = study.fixed();
        assertEquals(List.of("tcp", "aes", "aes", "tcp"), points.stream().map(PointRun::cipher).toList(), said.toString());
        // the study's records: every point measured a server process of its own
        assertEquals(4, serverPids(points), "a server per cipher and round: " + points);
        assertEquals(2, benches(out.resolve("work"), "chain-sipcrypt-tcp-"), "a server per repetition");
        assertEquals(2, benches(out.resolve("work"), "chain-sipcrypt-aes-"), "a server per repetition");
        assertTrue(said.toString().contains("[1/4] chain tcp #1") && said.toString().contains("[4/4, "), said.toString());
        assertTrue(study.environment().pinning().endsWith("a fresh server per repetition"),
                study.environment().pinning());
        // results.csv: each point's ratio is its CPU per call over that of tcp's point of the same round
        List<String> csv = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
        List<String> header = List.of(csv.get(0).split(",", -1));
        for (String line : csv.subList(1, csv.size())) {
            List<String> row = List.of(line.split(",", -1));
            int round = Integer.parseInt(row.get(header.indexOf("repetition")));
            PointRun p = point(points, row.get(header.indexOf("cipher")), round);
            PointRun tcp = point(points, "tcp", round);
            double ratio = Double.parseDouble(row.get(header.indexOf("server_cpu_ratio_to_tcp")));
            if (p.invalid() != null || tcp.invalid() != null) {
                assertEquals(-1, ratio, line);
            } else {
                assertEquals(p.server().cpuMicrosPerCall() / tcp.server().cpuMicrosPerCall(), ratio, 1e-9, line);
            }
        }
    }

    @Test
    void peakFractionRunsTheFixedPointsAtHalfThePeakTheRampFoundAndSaysSo() throws Exception {
        Path out = dir.resolve("fraction");
        StringWriter said = new StringWriter();
        // a ramp of one 1 s step at 30/s, which tcp passes as the other tests' 20/s: the peak is 30/s,
        // and half of it, 15/s, rounded down to tens is 10/s
        int rc = LabCommandLine.run(said, "compare", "--scenario", "chain", "--ciphers", "tcp", "--peak-fraction", "0.5",
                "--ramp", "30:30:1:30", "--duration", "1", "--warmup", "1", "--repeat", "1", "--out", out.toString(),
                "--db", "jdbc:h2:file:" + dir.resolve("db/fraction"));
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);
        Study study = JsonExport.read(out.resolve("results.json")).get(0);
        assertEquals(0.5, study.peakFraction());
        assertEquals(1, study.peaks().size(), "one ramp before the fixed-rate points\n" + said);
        PeakSearch ramp = study.peaks().get(0);
        // a generator behind its schedule on a busy machine (saturated) depends on the machine, not the
        // code: then the step did not pass, the peak is 0 and no fixed-rate point runs, and compare
        // says so and exits 1
        boolean saturated = "saturated generator".equals(ramp.stoppedBy());
        assertEquals(saturated ? 0 : 30, ramp.peakRate(), "tcp passed 30/s: " + ramp + "\n" + said);
        assertEquals(saturated ? List.of() : List.of(10.0), study.fixed().stream().map(PointRun::rate).toList(),
                said.toString());
        assertTrue(said.toString().contains(saturated
                ? "chain tcp: no fixed-rate point: 0/s, 0.5 × its peak of 0/s is under 10/s"
                : "chain tcp: fixed-rate points at 10/s, 0.5 × its peak of 30/s"), said.toString());
        String md = Files.readString(out.resolve("report.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("- tcp: " + (saturated ? "no fixed-rate point, 0/s, 0.5 × its peak of 0/s"
                : "10/s, 0.5 × its peak of 30/s") + " (its ramp stopped by " + ramp.stoppedBy() + ")"), md);
        List<String> csv = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
        List<String> header = List.of(csv.get(0).split(",", -1));
        List<String> fixed = csv.stream().skip(1).map(l -> List.of(l.split(",", -1)))
                .filter(r -> r.get(header.indexOf("mode")).equals("fixed")).map(r -> r.get(header.indexOf("rate"))
                        + "=" + r.get(header.indexOf("peak_fraction")) + "x" + r.get(header.indexOf("from_peak_rate")))
                .toList();
        assertEquals(saturated ? List.of() : List.of("10=0.5x30"), fixed);
        if (saturated) {
            assertEquals(1, rc, "a ramp that passed no step fails the comparison\n" + said);
        }
    }

    private static PointRun point(List<PointRun> points, String cipher, int round) {
        return points.stream().filter(p -> p.cipher().equals(cipher) && p.repetition() == round).findFirst()
                .orElseThrow();
    }

    /** How many server processes measured the points, by the PIDs in their records (all known). */
    private static long serverPids(List<PointRun> points) {
        points.forEach(p -> assertTrue(p.server().pid() > 0, "the server's PID recorded: " + p.server()));
        return points.stream().map(p -> p.server().pid()).distinct().count();
    }

    /** How many server work directories a comparison made whose names begin so. */
    private static long benches(Path work, String prefix) throws java.io.IOException {
        try (var dirs = Files.list(work)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).count();
        }
    }

    @Test
    void unknownScenarioIsABadArgument() {
        StringWriter said = new StringWriter();
        assertEquals(2, LabCommandLine.run(said, "compare", "--scenario", "no-such-preset", "--db", "jdbc:h2:file:" + dir.resolve("x")));
        assertTrue(said.toString().contains("no scenario \"no-such-preset\""), said.toString());
    }
}
