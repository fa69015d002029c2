package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code compare --peak-fraction}: a fraction out of range, or given with {@code --rate} or
 * {@code --find-peak}, is refused before anything starts (exit 2), saying why.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ComparePeakFractionTest {

    @TempDir
    Path dir;

    private int compare(StringWriter out, String... more) {
        List<String> args = new ArrayList<>(List.of("compare", "--scenario", "chain", "--ciphers", "tcp", "--out",
                dir.resolve("out").toString(), "--db", "jdbc:h2:file:" + dir.resolve("db/lab")));
        args.addAll(List.of(more));
        return LabCommandLine.run(out, args.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0", "-0.5", "1.5"})
    void aFractionOutsideZeroToOneIsABadArgument(String fraction) {
        StringWriter said = new StringWriter();
        assertEquals(2, compare(said, "--peak-fraction", fraction), said.toString());
        assertTrue(said.toString().contains("--peak-fraction: ") && said.toString().contains(
                "(expected more than 0 and at most 1)"), said.toString());
        assertFalse(Files.exists(dir.resolve("out")), "nothing ran");
    }

    @Test
    void aFractionWithAFixedRateIsRefusedSayingWhatToRunInstead() {
        StringWriter said = new StringWriter();
        assertEquals(2, compare(said, "--peak-fraction", "0.5", "--rate", "1500"), said.toString());
        assertTrue(said.toString().contains("--peak-fraction 0.5 with --rate 1500: one or the other (compare at a rate"
                + " below every server's peak with a compare of its own)"), said.toString());
        assertFalse(Files.exists(dir.resolve("out")), "nothing ran");
    }

    @Test
    void aFractionWithFindPeakIsRefused() {
        StringWriter said = new StringWriter();
        assertEquals(2, compare(said, "--peak-fraction", "0.5", "--find-peak"), said.toString());
        assertTrue(said.toString().contains("--peak-fraction 0.5 with --find-peak: one or the other"), said.toString());
        assertFalse(Files.exists(dir.resolve("out")), "nothing ran");
    }
}
