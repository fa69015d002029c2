package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Sipp;

/**
 * The overload scenario scripts run for real at small rates: {@code scenarios/sipp/vs-kamailio.sh}
 * with {@code --overload-seconds} (the shipped jar and Kamailio, each overloaded at twice its own
 * peak of the run, then at half of it) and {@code scenarios/sipp/overload.sh} against the jar alone
 * (a given peak), both on the phases of {@code scenarios/lib/sipp-overload.sh}. The runs check
 * that the phases run, are counted and reported, not how a server copes (a cold JVM on a busy
 * machine refuses some of 100 calls/s with 503, a warm one none): that is what the scripts
 * measure at full rates.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class OverloadScriptsIT {

    private static final Path JAR = Path.of("target", "sipcrypt-server.jar").toAbsolutePath();
    private static final Path ROOT = Sipp.repositoryRoot();
    /** A row of a Markdown table: its cells, trimmed. */
    private static final Pattern ROW = Pattern.compile("^\\|(.*)\\|$", Pattern.MULTILINE);
    private static final Pattern BACK_TO_NORMAL = Pattern.compile("\\d+ s|not within the phase");

    @TempDir
    Path dir;

    private record Run(int exit, String output) {
    }

    /** Runs a script of scenarios/sipp: a small heap and Kamailio memory, no pause between steps; at most LIMIT s. */
    private Run script(String name, long limitSeconds, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", ROOT.resolve("scenarios/sipp").resolve(name).toString()));
        cmd.addAll(List.of(args));
        Path log = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        env.put("JAVA_OPTS", "-Xms256m -Xmx256m -XX:+UseZGC");
        env.put("KAMAILIO_SHM_MB", "64");
        env.put("COOLDOWN_SECONDS", "0");   // at these rates no step leaves work for the next
        env.put("TMPDIR", dir.toString());
        Process p = pb.start();
        if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            p.destroy();    // the script's trap ends what it started, by PID
            p.waitFor(20, TimeUnit.SECONDS);
            throw new AssertionError(name + " still running after " + limitSeconds + " s:\n" + Files.readString(log));
        }
        return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /** A port P on 127.0.0.1 such that P + each offset is free for UDP and TCP at the time of the call. */
    private static int freeBase(int... offsets) throws IOException {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + 10 * ThreadLocalRandom.current().nextInt(3_000);
            boolean free = true;
            for (int offset : offsets) {
                free &= free(loopback, base + offset);
            }
            if (free) {
                return base;
            }
        }
        throw new IOException("no free block of ports on 127.0.0.1 after 200 attempts");
    }

    private static boolean free(InetAddress address, int port) {
        try (ServerSocket tcp = new ServerSocket(port, 1, address);
             DatagramSocket udp = new DatagramSocket(new InetSocketAddress(address, port))) {
            return tcp.isBound() && udp.isBound();
        } catch (IOException inUse) {
            return false;   // the answer, not an error
        }
    }

    /**
     * The data rows of a Markdown table, the cells of each: the table whose header is the first line
     * starting with HEADING, or else the first table after that line.
     */
    private static List<List<String>> tableAfter(String text, String heading) {
        int at = text.indexOf("\n" + heading);
        assertTrue(at >= 0, "no \"" + heading + "\" in:\n" + text);
        String rest = text.substring(at + 1);
        if (!heading.startsWith("|")) {
            int start = rest.indexOf("\n|");
            assertTrue(start >= 0, "no table after \"" + heading + "\":\n" + text);
            rest = rest.substring(start + 1);
        }
        List<List<String>> rows = new ArrayList<>();
        Matcher m = ROW.matcher(rest);
        int end = 0;
        while (m.find() && m.start() == end) {
            List<String> cells = new ArrayList<>();
            for (String cell : m.group(1).split("\\|", -1)) {
                cells.add(cell.trim());
            }
            rows.add(cells);
            end = m.end() + 1;
        }
        return rows.subList(2, rows.size());    // below the header and its rule
    }

    @Test
    void vsKamailioOverloadsEachServerAtTwiceItsOwnPeakOfTheRunThenRecoversAtHalf() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "no " + JAR + " (mvn package first)");
        // sipcrypt on P, Kamailio on P + 100; each with its UAS on +10, UAC on +20, REGISTER on +21.
        // A cold JVM on a busy machine may refuse a few calls of its first seconds with 503 (its
        // overload guard): --max-failed-pct 50 keeps that from failing the one step of the peak search
        int port = freeBase(0, 10, 20, 21, 100, 110, 120, 121);
        Path out = dir.resolve("table.md");
        Run run = script("vs-kamailio.sh", 150, "--jar", JAR.toString(), "--cases", "udp", "--pin", "off",
                "--kamailio-workers", "1", "--port", String.valueOf(port), "--out", out.toString(),
                "--start-rate", "50", "--max-rate", "50", "--refine", "0", "--confirm", "0",
                "--step-seconds", "2", "--warmup-seconds", "2", "--fixed-rate", "50", "--fixed-seconds", "1",
                "--fraction", "0.5", "--budget-seconds", "300", "--max-failed-pct", "50",
                "--overload-seconds", "3", "--recovery-seconds", "3");
        assertEquals(0, run.exit(), run.output());
        String table = Files.readString(out);
        // every step says what its failed calls got and the kernel's UDP receive-buffer drops over it
        List<String> steps = run.output().lines().filter(l -> l.contains(" cps x ") && l.contains(" ok, ")).toList();
        assertFalse(steps.isEmpty(), run.output());
        for (String step : steps) {
            assertTrue(step.matches(".*; failed calls got: (none|.*x\\d+.*); UDP receive-buffer drops: \\d+$"), step);
        }

        List<List<String>> overload = tableAfter(table, "Overload: 2 x each server's own peak");
        assertEquals(2, overload.size(), table);
        for (List<String> row : overload) {
            String server = row.get(2);
            assertEquals(List.of("1", "udp"), row.subList(0, 2), table);
            // the peak the search of this run found (its only step, at --max-rate), and twice that offered
            assertEquals("50", row.get(3), server + ": peak\n" + table);
            assertEquals("100", row.get(4), server + ": offered\n" + table);
            int goodput = Integer.parseInt(row.get(6));
            assertTrue(goodput > 0, server + ": goodput\n" + table);
            assertEquals(String.valueOf(Math.round(100.0 * goodput / 50)), row.get(7), server + ": % of peak\n" + table);
            assertTrue(row.get(8).matches("\\d+ \\(\\d+\\.\\d %\\)"), server + ": refused\n" + table);
            // failed calls (from SIPp's statistics) and why they failed (from its error log) agree
            assertTrue(row.get(9).matches("\\d+"), server + ": failed\n" + table);
            assertEquals(row.get(9).equals("0"), row.get(13).startsWith("failed: none;"), server + ": failed\n" + table);
            assertTrue(row.get(10).matches("\\d+\\.\\d\\d"), server + ": mean\n" + table);
            assertTrue(BACK_TO_NORMAL.matcher(row.get(12)).matches(), server + ": back to normal\n" + table);
            assertTrue(row.get(13).contains("recovery at 20 cps"), server + ": note\n" + table);
        }
        assertEquals(List.of("sipcrypt", "Kamailio"), overload.stream().map(r -> r.get(2)).toList(),
                "the first case of the first run starts with sipcrypt");
        assertTrue(overload.get(0).get(13).contains("GC pauses in the overload and recovery"), table);

        List<List<String>> summary = tableAfter(table, "Overload goodput as % of the server's own peak");
        assertEquals(1, summary.size(), table);
        assertEquals("udp", summary.get(0).get(0));
        for (int column = 1; column <= 2; column++) {
            assertTrue(summary.get(0).get(column).matches("\\d+\\.\\d\\d \\(.*\\), 1 run"), table);
        }
        // the comparison itself is still there, above
        assertEquals(2, tableAfter(table, "(CPU % is of one core").size(), table);
    }

    @Test
    void vsKamailioRefusesBadOverloadOptionsBeforeStartingAnything() throws Exception {
        Run factor = script("vs-kamailio.sh", 30, "--jar", JAR.toString(), "--pin", "off", "--overload-factor", "0",
                "--overload-seconds", "3");
        assertEquals(2, factor.exit(), factor.output());
        assertTrue(factor.output().contains("--overload-factor 0: expected a number above 0"), factor.output());
        Run seconds = script("vs-kamailio.sh", 30, "--jar", JAR.toString(), "--pin", "off", "--overload-seconds", "3s");
        assertEquals(2, seconds.exit(), seconds.output());
        assertTrue(seconds.output().contains("OVERLOAD_SECONDS: \"3s\" is not a whole number"), seconds.output());
        Run recovery = script("vs-kamailio.sh", 30, "--jar", JAR.toString(), "--pin", "off", "--overload-seconds", "3",
                "--recovery-seconds", "0");
        assertEquals(2, recovery.exit(), recovery.output());
        assertTrue(recovery.output().contains("--recovery-seconds must be 1 or more"), recovery.output());
    }

    @Test
    void overloadShOverloadsTheJarAtTwiceAGivenPeak() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "no " + JAR + " (mvn package first)");
        // the server on P, its UAS on +10, the UACs on +20 and +21 (REGISTER on +21 first)
        int port = freeBase(0, 10, 20, 21);
        Run run = script("overload.sh", 90, "--jar", JAR.toString(), "--server-port", String.valueOf(port),
                "--peak", "50", "--factor", "2", "--warmup-rate", "50", "--warmup-calls", "50",
                "--base-seconds", "2", "--overload-seconds", "3", "--recovery-seconds", "3");
        assertEquals(0, run.exit(), run.output());
        List<List<String>> phases = tableAfter(run.output(), "| phase |");
        assertEquals(List.of("warm-up", "baseline", "overload", "recovery"), phases.stream().map(r -> r.get(0)).toList(),
                run.output());
        List<String> overload = phases.get(2);
        assertEquals("100", overload.get(1), run.output());
        assertEquals("300", overload.get(3), run.output());
        // every call answered 200 or 503 or failed (a call can be both: a 503 to its BYE fails it); SIPp
        // may leave its last batch of response times (-rtt_freq 2) unwritten
        int answered = Integer.parseInt(overload.get(4)) + Integer.parseInt(overload.get(6));
        int failed = Integer.parseInt(overload.get(7));
        assertTrue(answered <= 300 && answered + failed >= 298, answered + " answered, " + failed + " failed of 300\n"
                + run.output());
        assertEquals("25", phases.get(3).get(1), "recovery at half the peak\n" + run.output());
        Matcher back = Pattern.compile("Back to normal after the overload: (.*) \\(normal").matcher(run.output());
        assertTrue(back.find() && BACK_TO_NORMAL.matcher(back.group(1)).matches(), run.output());
    }
}
