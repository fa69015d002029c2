package org.sipcrypt.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.sipcrypt.lab.store.ResultStore;
import org.sipcrypt.lab.store.StudyHeader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code list}: the studies in the lab database, newest first, as a table (ID, start, scenario,
 * ciphers, measured points, ramps, cores, CPU). Exit codes: 0 listed (also when there are none),
 * 1 when the database cannot be opened.
 * Threading: the main thread only.
 */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List the studies in the lab database, newest first.")
public final class ListCommand extends LabCommand {

    private static final List<String> HEADER = List.of("id", "started", "scenario", "ciphers", "points", "ramps",
            "cores", "cpu");

    @CommandLine.Mixin
    DatabaseOptions db = new DatabaseOptions();

    /** A command with its options at their defaults, as picocli makes it. */
    public ListCommand() {
    }

    @Override
    public Integer call() {
        List<StudyHeader> studies;
        String url;
        try (ResultStore store = db.open()) {
            url = store.url();
            studies = store.list();
        } catch (IOException e) {
            err().println("list: " + e.getMessage());
            err().flush();
            return 1;
        }
        PrintWriter out = out();
        if (studies.isEmpty()) {
            out.println("no studies in " + url);
        } else {
            List<List<String>> rows = new ArrayList<>();
            rows.add(HEADER);
            for (StudyHeader h : studies) {
                rows.add(List.of(Long.toString(h.id()), h.started().truncatedTo(ChronoUnit.SECONDS).toString(),
                        h.scenario(), String.join(",", h.ciphers()), Integer.toString(h.points()),
                        Integer.toString(h.ramps()), h.cores() < 0 ? "?" : Integer.toString(h.cores()), h.cpuModel()));
            }
            printAligned(out, rows);
        }
        out.flush();
        return 0;
    }

    /** Columns padded to their widest cell, two spaces apart; numbers right-aligned, the last column not padded. */
    private static void printAligned(PrintWriter out, List<List<String>> rows) {
        int columns = HEADER.size();
        int[] width = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                String cell = row.get(i);
                boolean last = i == columns - 1;
                boolean numeric = i == 0 || i == 4 || i == 5 || i == 6;
                if (i > 0) {
                    b.append("  ");
                }
                String pad = " ".repeat(width[i] - cell.length());
                if (numeric) {
                    b.append(pad).append(cell);
                } else {
                    b.append(cell).append(last ? "" : pad);
                }
            }
            out.println(b);
        }
    }
}
