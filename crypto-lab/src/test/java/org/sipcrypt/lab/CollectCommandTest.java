package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * {@code collect} on runs that real {@code uac --json} commands made against a lab UAS on
 * loopback: two generators' files merge into one point whose calls add up, and a missing
 * generator's run makes the exit code 1 while the report still covers what arrived.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CollectCommandTest {

    @TempDir
    Path dir;

    private Uas uas;
    private InetSocketAddress uasAt;

    @BeforeEach
    void startUas() throws Exception {
        uas = new Uas();
        uasAt = uas.listen(Transport.UDP, new InetSocketAddress("127.0.0.1", 0), null);
    }

    @AfterEach
    void stopUas() {
        uas.close();
    }

    private static int run(StringWriter out, String... args) {
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        return cl.execute(args);
    }

    /** One generator's run: 10 calls/s for 1 s straight to the UAS, its JSON in runs/udp/NAME.json. */
    private void generate(String name) {
        StringWriter out = new StringWriter();
        int rc = run(out, "uac", "--target", "127.0.0.1:" + uasAt.getPort(), "--transport", "udp", "--rate", "10",
                "--duration", "1", "--json", dir.resolve("runs/udp/" + name + ".json").toString());
        assertEquals(0, rc, out.toString());
    }

    private int collect(StringWriter out, int generators) {
        return run(out, "collect", "--runs", dir.resolve("runs").toString(), "--scenario", "docker-test", "--ciphers", "udp",
                "--generators", Integer.toString(generators), "--db", "jdbc:h2:file:" + dir.resolve("db/lab"),
                "--out", dir.resolve("report").toString());
    }

    @Test
    void runsOfTwoGeneratorsMergeIntoOnePoint() throws Exception {
        generate("a");
        generate("b");
        StringWriter out = new StringWriter();
        assertEquals(0, collect(out, 2), out.toString());
        List<String> csv = Files.readAllLines(dir.resolve("report/results.csv"), StandardCharsets.UTF_8);
        assertEquals(2, csv.size(), "a header and one row: " + csv);
        List<String> head = List.of(csv.get(0).split(",", -1));
        String[] row = csv.get(1).split(",", -1);
        // a field for every column: the trailing empty ones (a point without TLS, without idle connections) kept
        assertEquals(head.size(), row.length, csv.get(1));
        assertEquals("udp", row[head.indexOf("cipher")]);
        // both generators' 10 calls/s add up
        assertEquals(20.0, Double.parseDouble(row[head.indexOf("rate")]), csv.get(1));
        assertEquals(0.0, Double.parseDouble(row[head.indexOf("failed_pct")]), csv.get(1));
        // every call reached the UAS (a retransmitted INVITE counts again)
        assertTrue(uas.requests("INVITE") >= 20, "INVITEs at the UAS: " + uas.requests("INVITE"));
    }

    @Test
    void aMissingGeneratorRunFailsTheExitCodeButNotTheReport() throws Exception {
        generate("a");
        StringWriter out = new StringWriter();
        assertEquals(1, collect(out, 2), out.toString());
        assertTrue(out.toString().contains("docker-test udp: 1 of 2 generator runs"), out.toString());
        assertTrue(Files.readString(dir.resolve("report/report.md"), StandardCharsets.UTF_8).contains("| udp |"));
    }

    @Test
    void runsAndScenarioNamesMustPairUp() {
        StringWriter out = new StringWriter();
        assertEquals(2, run(out, "collect", "--runs", dir.toString(), "--runs", dir.toString(), "--scenario", "one",
                "--ciphers", "udp", "--generators", "1"), out.toString());
        assertTrue(out.toString().contains("--runs and --scenario: 2 and 1"), out.toString());
    }
}
