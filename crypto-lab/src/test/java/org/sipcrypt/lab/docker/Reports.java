package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads what the lab's collector wrote into a mounted lab-results directory.
 * Threading: stateless.
 */
final class Reports {

    private Reports() {
    }

    /** Asserts that a row of results.csv completed calls and failed none. */
    static void assertCompletedNoneFailed(Map<String, String> row) {
        assertEquals(0.0, Double.parseDouble(row.get("failed_pct")), "failed % of " + row);
        assertTrue(Double.parseDouble(row.get("completed_cps")) > 0, "completed calls of " + row);
    }

    /** The one report directory of a scenario ({@code SCENARIO-YYYYMMDD-HHMMSS}). */
    static Path reportDir(Path results, String scenario) throws IOException {
        try (Stream<Path> s = Files.list(results)) {
            List<Path> dirs = s.filter(p -> p.getFileName().toString().startsWith(scenario + "-")).toList();
            assertEquals(1, dirs.size(), "report directories in " + results + ": " + dirs);
            return dirs.get(0);
        }
    }

    static String reportMd(Path results, String scenario) throws IOException {
        return Files.readString(reportDir(results, scenario).resolve("report.md"), StandardCharsets.UTF_8);
    }

    /** The rows of results.csv by cipher, each a map from column name to value (no quoted commas here). */
    static Map<String, Map<String, String>> csvRows(Path results, String scenario) throws IOException {
        List<String> lines = Files.readAllLines(reportDir(results, scenario).resolve("results.csv"), StandardCharsets.UTF_8);
        String[] head = lines.get(0).split(",", -1);
        Map<String, Map<String, String>> rows = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < head.length && i < cells.length; i++) {
                row.put(head[i], cells[i]);
            }
            rows.put(row.get("cipher"), row);
        }
        return rows;
    }
}
