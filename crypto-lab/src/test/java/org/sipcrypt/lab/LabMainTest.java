package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/** The command line: exit codes, the JSON file of a run and reading it back, workloads and users files. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LabMainTest {

    @TempDir
    Path dir;

    private static int run(StringWriter out, String... args) {
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        return cl.execute(args);
    }

    @Test
    void badArgumentsExitWithTwo() {
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--transport", "sctp"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--rate", "0"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--transport", "tls",
                "--cipher", "rc4"));
        assertEquals(2, run(new StringWriter(), "uas", "--listen", "tls:127.0.0.1:0"));
        assertEquals(2, run(new StringWriter()));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--workload", "subscribe"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--domain", "a b"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--start-at", "-1"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--start-at",
                String.valueOf(System.currentTimeMillis() + 2 * 86_400_000L)));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--register-contact", "nowhere"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--one-way-delay", "fast"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--one-way-delay", "11s"));
        assertEquals(2, run(new StringWriter(), "uas", "--listen", "tcp:127.0.0.1:0", "--one-way-delay", "-5ms"));
        assertEquals(2, run(new StringWriter(), "compare", "--one-way-delay", "20 minutes"));
    }

    @Test
    void aMissingOrBadUsersFileExitsWithTwoNamingIt() throws Exception {
        StringWriter out = new StringWriter();
        Path missing = dir.resolve("missing.csv");
        assertEquals(2, run(out, "uac", "--target", "127.0.0.1:5060", "--users", missing.toString()));
        assertTrue(out.toString().contains("--users: cannot read " + missing), out.toString());
        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "SEQUENTIAL\nuser1\n");
        out = new StringWriter();
        assertEquals(2, run(out, "uac", "--target", "127.0.0.1:5060", "--users", bad.toString()));
        assertTrue(out.toString().contains("line 2"), out.toString());
    }

    /** Runs {@code uac} at a lab UAS listening on a free loopback port of {@code t}, then {@code args}. */
    private static int uac(Uas uas, Transport t, StringWriter out, String... args) throws IOException {
        InetSocketAddress at = uas.listen(t, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null);
        List<String> all = new ArrayList<>(List.of("uac", "--target", "127.0.0.1:" + at.getPort(), "--transport",
                t.configName()));
        all.addAll(List.of(args));
        return run(out, all.toArray(new String[0]));
    }

    @Test
    void aRunPrintsItsIntervalsAndWritesJson() throws Exception {
        try (Uas uas = new Uas()) {
            StringWriter out = new StringWriter();
            Path json = dir.resolve("run.json");
            int code = uac(uas, Transport.TCP, out, "--rate", "10", "--duration", "1", "--json", json.toString());
            assertEquals(0, code, out.toString());
            assertTrue(out.toString().contains("result: ok"), out.toString());
            String text = Files.readString(json);
            assertTrue(text.startsWith("{\"intervals\":[") && text.contains("\"summary\":{") && text.contains("\"passed\":true"),
                    text);
        }
    }

    @Test
    void theSummaryOfTheJsonFileReadsBackAndMerges() throws Exception {
        try (Uas uas = new Uas()) {
            StringWriter out = new StringWriter();
            Path json = dir.resolve("run.json");
            int code = uac(uas, Transport.UDP, out, "--rate", "10", "--duration", "1",
                    "--start-at", String.valueOf(System.currentTimeMillis() + 200), "--json", json.toString());
            assertEquals(0, code, out.toString());
            RunSummary s = RunSummary.parseSummaryJson(Files.readString(json));
            assertEquals(10, s.completed(), s.text());
            assertEquals(10, s.histogram().getTotalCount(), "the response times came along");
            RunSummary twice = RunSummary.merge("two generators", List.of(s, s));
            assertEquals(20, twice.completed());
            assertEquals(20, twice.crtCount());
            assertEquals(s.crtMaxMs(), twice.crtMaxMs());
        }
    }

    @Test
    void anInviteNotFoundRunAnswered200FailsAsStatus200() throws Exception {
        try (Uas uas = new Uas()) {
            StringWriter out = new StringWriter();
            int code = uac(uas, Transport.TCP, out, "--workload", "invite-not-found", "--rate", "10", "--duration", "1");
            assertEquals(1, code, out.toString());
            assertTrue(out.toString().contains("failures: {status_200="), out.toString());
            assertTrue(uas.requests("ACK") > 0, "a 200 is ACKed all the same");
        }
    }

    @Test
    void aRunAgainstNothingExitsWithOne() {
        assertEquals(1, run(new StringWriter(), "uac", "--target", "127.0.0.1:1", "--transport", "tcp",
                "--duration", "1"));
    }
}
