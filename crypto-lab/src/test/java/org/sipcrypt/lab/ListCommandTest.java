package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.ResultStore;
import picocli.CommandLine;

/** {@code list} against an H2 database in a temporary directory. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ListCommandTest {

    @TempDir
    Path dir;

    private static int run(StringWriter out, StringWriter err, String... args) {
        CommandLine cl = new CommandLine(new ListCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    @Test
    void savedStudiesAreListedNewestFirstInAlignedColumns() throws IOException {
        long chain;
        long inbound;
        try (ResultStore store = ResultStore.open(Studies.h2Url(dir), "sa", "")) {
            chain = store.save(Studies.study("chain", List.of("aes", "camellia"), 200, 500, 800));
            Study older = Studies.study("inbound", List.of("seed"), 50, 900);
            inbound = store.save(new Study(0, older.scenario(), older.scenarioText(),
                    older.ciphers(), older.started().minusSeconds(86_400), older.environment(), older.fixed(),
                    older.peaks()));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertEquals(0, run(out, err, "--db", Studies.h2Url(dir), "--db-user", "sa", "--db-password", ""), err.toString());
        List<String> lines = out.toString().lines().toList();
        assertEquals(3, lines.size(), out.toString());
        String header = lines.get(0);
        assertTrue(header.matches("id +started +scenario +ciphers +points +ramps +cores +cpu"), header);
        String first = lines.get(1);
        // chain: 6 fixed points, ramps of 21 and 13 steps
        assertTrue(first.matches(" *" + chain + " +2026-11-22T10:00:00Z +chain +aes,camellia +40 +2 +2 +test CPU"), first);
        assertTrue(lines.get(2).matches(" *" + inbound + " +2026-11-21T10:00:00Z +inbound +seed +15 +1 +2 +test CPU"),
                lines.get(2));
        for (String column : List.of("scenario", "ciphers", "cpu")) {
            int at = header.indexOf(column);
            assertTrue(first.charAt(at) != ' ' && first.charAt(at - 1) == ' ', column + ":\n" + out);
        }
        assertEquals(header.indexOf("points") + "points".length(), first.indexOf("40") + 2, out.toString());
    }

    @Test
    void anEmptyDatabaseSaysSo() {
        StringWriter out = new StringWriter();
        assertEquals(0, run(out, new StringWriter(), "--db", Studies.h2Url(dir)));
        assertEquals("no studies in " + Studies.h2Url(dir), out.toString().strip());
    }

    @Test
    void aDatabaseThatCannotBeOpenedExitsWithOne() throws IOException {
        Path blocker = Files.writeString(dir.resolve("blocker"), "a file, not a directory");
        String url = "jdbc:h2:file:" + blocker.toAbsolutePath() + "/lab;TRACE_LEVEL_FILE=0";
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertEquals(1, run(out, err, "--db", url));
        assertTrue(err.toString().startsWith("list: cannot open lab database " + url + ": "), err.toString());
        assertEquals("", out.toString());
    }
}
