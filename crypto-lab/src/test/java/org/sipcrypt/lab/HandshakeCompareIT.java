package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * {@code compare --tls-version --kx} end to end on aes, against the real server in its own process
 * (TLS 1.3 with X25519, and TLS 1.2 with ECDHE on P-256, a group no engine here would pick by
 * default): calls complete, the study stores the handshake, and the server's own counter
 * {@code tls.handshakes} (its last stats line, logged as it stops) shows only the suite of that
 * version and key exchange, and that group on its bc listener (the engine that tells the group).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HandshakeCompareIT {

    private static final Pattern HANDSHAKES = Pattern.compile("tls\\.handshakes\\{([^}]*)}=(\\d+)");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "TLS {0}, {1}")
    @CsvSource({"1.3, ecdhe-x25519, TLS_AES_128_GCM_SHA256, x25519",
            "1.2, ecdhe-p256, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, secp256r1"})
    void eachTlsLegRunsTheSuiteOfTheVersionOnThatGroupAlone(String version, String kx, String suite, String group)
            throws Exception {
        Path out = dir.resolve("out");
        Path work = dir.resolve("work");
        StringWriter said = new StringWriter();
        // the bc listener is the engine that tells the group of each handshake it makes
        Scenario chain = ScenarioFiles.load("chain");
        Map<String, String> server = new TreeMap<>(chain.server());
        server.put("tls.engine", "bc");
        Path file = dir.resolve("chain.yaml");
        Files.writeString(file, ScenarioFiles.toYaml(new Scenario(chain.name(), chain.description(), chain.workload(),
                chain.auth(), chain.users(), chain.left(), chain.right(), chain.load(), chain.repeat(), chain.generators(),
                chain.ciphers(), server, chain.serverJvm())));
        int rc = run(said, "compare", "--scenario", file.toString(), "--ciphers", "aes", "--tls-version", version, "--kx",
                kx, "--rate", "20", "--duration", "2", "--warmup", "1", "--repeat", "1", "--pin", "off",
                "--out", out.toString(), "--work-dir", work.toString(), "--db", "jdbc:h2:file:" + dir.resolve("db/lab"));
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);

        Study s = JsonExport.read(out.resolve("results.json")).get(0);
        assertEquals(version, s.environment().tlsVersion());
        assertEquals(kx, s.environment().keyExchange());
        assertTrue(Files.readString(out.resolve("report.md")).contains("TLS " + version + ", " + kx),
                "the environment table");
        long completed = 0;
        for (PointRun p : s.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            completed += p.uac().completed();
        }
        assertTrue(completed > 0, "calls completed\n" + said);

        String stats = lastStatsLine(work);
        assertNotNull(stats, "the server logged its counters as it stopped");
        Matcher m = HANDSHAKES.matcher(stats);
        long listenerFull = 0;
        while (m.find()) {
            String tags = m.group(1);
            // the proxy's own connections to the UAS count their group as unknown (bc's outgoing side)
            assertTrue(tags.matches("group=(" + group + "|unknown),kind=(full|resumed),suite=" + suite),
                    "every handshake on " + suite + ", on " + group + " where the engine tells: " + m.group());
            if (tags.equals("group=" + group + ",kind=full,suite=" + suite)) {
                listenerFull += Long.parseLong(m.group(2));
            }
        }
        assertTrue(listenerFull > 0, "full handshakes on " + group + " counted by the listener: " + stats);
        assertFalse(stats.contains("tls.handshakes.failed"), stats);
    }

    /** The last {@code stats:} line of the server of the run, or null. */
    private static String lastStatsLine(Path work) throws IOException {
        List<Path> logs;
        try (Stream<Path> files = Files.walk(work)) {
            logs = files.filter(f -> f.getFileName().toString().equals("server.log")).toList();
        }
        assertEquals(1, logs.size(), "one server for one cipher: " + logs);
        String last = null;
        for (String line : Files.readAllLines(logs.get(0), StandardCharsets.UTF_8)) {
            int i = line.indexOf("stats: ");
            if (i >= 0) {
                last = line.substring(i);
            }
        }
        return last;
    }

    /** Runs the lab's command line in this JVM. */
    private static int run(StringWriter out, String... args) {
        picocli.CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        return cl.execute(args);
    }
}
