package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * {@code compare --resumption ticket} (TLS 1.2, RFC 5077) and {@code --resumption psk} (TLS 1.3
 * NewSessionTicket PSK) end to end on aes over ECDHE X25519, against the real server in its own
 * process, with the generator's client on BoringSSL: on {@code outbound}, where each call is a
 * connection of its own, the generator resumed handshakes and the point was not left out for want of
 * them, and the server's own counter {@code tls.handshakes} (its last stats line, logged as it
 * stops) counted full and resumed handshakes of the one suite on the engine the scenario set, which
 * each point, results.csv and the report name as the server's TLS engine; and {@code psk} on the bc engine,
 * which issues no TLS 1.3 tickets, is refused before anything starts. Three runs for CI's time,
 * each mode once and each ticket-issuing engine once: SunJSSE's stateless TLS 1.2 tickets, the bc
 * engine's TLS 1.2 tickets, and BoringSSL's TLS 1.3 tickets (sent with the server's first
 * response) with both ends offering BoringSSL's TLS 1.3 suites; the other pairs pass the same test.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ResumptionCompareIT {

    private static final Pattern HANDSHAKES = Pattern.compile("tls\\.handshakes\\{([^}]*)}=(\\d+)");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "--resumption {0} on the {1} engine")
    @CsvSource({"ticket, jsse, 1.2, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
            "ticket, bc, 1.2, TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
            "psk, openssl, 1.3, TLS_AES_128_GCM_SHA256"})
    void perCallConnectionsResumeByTicketAndTheServerCountsThem(String resumption, String engine, String version,
                                                               String suite) throws Exception {
        Path out = dir.resolve("out");
        Path work = dir.resolve("work");
        StringWriter said = new StringWriter();
        int rc = LabCommandLine.run(said, "compare", "--scenario", scenario(engine).toString(), "--ciphers", "aes", "--tls-version",
                version, "--kx", "ecdhe-x25519", "--resumption", resumption, "--rate", "20", "--duration", "2",
                "--warmup", "1", "--repeat", "1", "--pin", "off", "--out", out.toString(), "--work-dir",
                work.toString(), "--db", "jdbc:h2:file:" + dir.resolve("db/lab"));
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);

        Study s = JsonExport.read(out.resolve("results.json")).get(0);
        assertEquals(resumption, s.environment().resumption());
        long completed = 0;
        for (PointRun p : s.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertFalse(p.invalid() != null && p.invalid().startsWith("no handshake resumed"), p.invalid());
            completed += p.uac().completed();
            assertTrue(p.uac().resumed() > 0, "the generator resumed: " + p.uac().text());
            assertNotNull(p.uac().resumedHandshake(), "a resumed handshake's sizes: " + p.uac().text());
            assertTrue(p.resumptionPct() > 0, "the resumption %: " + p.resumptionPct());
            // the server's handshakes all on the engine the scenario set, as its counter says
            assertEquals(List.of(engine), p.server().tlsEngines(), "the server's TLS engine");
        }
        List<String> csv = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
        assertTrue(csv.get(0).endsWith(",server_tls_engine,peak_fraction,from_peak_rate,idle_connections,idle_heap_bytes_per_connection,idle_heap_left_after_closing_bytes_per_connection")
                && csv.get(1).endsWith("," + engine + ",,,,,"), csv.toString());
        assertTrue(Files.readString(out.resolve("report.md")).contains("| aes | " + engine + " |"),
                "the fixed-rate table names the engine");
        assertTrue(completed > 0, "calls completed\n" + said);

        String stats = lastStatsLine(work);
        assertNotNull(stats, "the server logged its counters as it stopped\n" + said + "\n" + serverLogTail(work));
        Matcher m = HANDSHAKES.matcher(stats);
        long full = 0;
        long resumed = 0;
        while (m.find()) {
            String tags = m.group(1);
            // jsse and openssl listeners cannot tell the group (unknown); the bc listener names it
            // on a full handshake and says none on a resumed TLS 1.2 one (its outgoing side, to
            // the UAS, says unknown)
            String groups = "bc".equals(engine) ? "group=(x25519|none|unknown)" : "group=unknown";
            assertTrue(tags.matches("engine=" + engine + "," + groups + ",kind=(full|resumed),role=(server|client),suite="
                    + suite), "every handshake on " + suite + " and the " + engine + " engine: " + m.group());
            long n = Long.parseLong(m.group(2));
            // the generator's per-call connections resume, the server their TLS server
            if (tags.contains("kind=resumed") && tags.contains("role=server")) {
                resumed += n;
            } else if (tags.contains("kind=full")) {
                full += n;
            }
        }
        assertTrue(full > 0, "full handshakes counted by the server: " + stats);
        // on bc, the listener's own resumptions by ticket
        assertTrue(resumed > 0, "resumed handshakes counted by the server as TLS server: " + stats);
        assertFalse(stats.contains("tls.handshakes.failed"), stats);
    }

    @Test
    void pskIsRefusedOnTheBcEngineBeforeAnythingStarts() throws Exception {
        Path file = scenario("bc");
        StringWriter said = new StringWriter();
        int rc = LabCommandLine.run(said, "compare", "--scenario", file.toString(), "--ciphers", "aes", "--tls-version", "1.3",
                "--kx", "ecdhe-x25519", "--resumption", "psk", "--rate", "20", "--duration", "1", "--warmup",
                "1", "--repeat", "1", "--pin", "off", "--out", dir.resolve("refused").toString(), "--work-dir",
                dir.resolve("refused-work").toString(), "--db", "jdbc:h2:mem:resumption-refused");
        assertEquals(2, rc, said.toString());
        assertTrue(said.toString().contains("--resumption psk: the scenario sets tls.engine bc, whose server (Bouncy"
                + " Castle 1.82) issues no TLS 1.3 tickets"), said.toString());
        assertFalse(Files.exists(dir.resolve("refused-work")) && hasServerLog(dir.resolve("refused-work")),
                "no server started");
    }

    /** {@code outbound} with the server's {@code tls.engine} set. */
    private Path scenario(String engine) throws IOException {
        Scenario base = ScenarioFiles.load("outbound");
        Map<String, String> server = new TreeMap<>(base.server());
        server.put("tls.engine", engine);
        Path file = dir.resolve("outbound-" + engine + ".yaml");
        Files.writeString(file, ScenarioFiles.toYaml(new Scenario(base.name(), base.description(), base.workload(),
                base.auth(), base.users(), base.left(), base.right(), base.load(), base.repeat(), base.generators(),
                base.ciphers(), server, base.serverJvm())));
        return file;
    }

    private static boolean hasServerLog(Path work) throws IOException {
        try (Stream<Path> files = Files.walk(work)) {
            return files.anyMatch(f -> f.getFileName().toString().equals("server.log"));
        }
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

    /** The server's log's last lines, for a failure's message. */
    private static String serverLogTail(Path work) throws IOException {
        try (Stream<Path> files = Files.walk(work)) {
            for (Path f : files.filter(f -> f.getFileName().toString().equals("server.log")).toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            }
        }
        return "no server.log";
    }
}
