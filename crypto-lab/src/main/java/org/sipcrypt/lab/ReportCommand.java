package org.sipcrypt.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.ResultStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code report}: writes the report files of stored studies again, one study or several together
 * (e.g. chain, outbound, inbound and local for the cost model). Exit codes: 0 written, 1 a study is
 * missing or the database cannot be opened, 2 bad arguments.
 * Threading: the main thread only.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Report stored studies (IDs from list) as report.md, report.html, results.csv, peaks.csv"
                + " and results.json.")
final class ReportCommand extends LabCommand {

    @CommandLine.Mixin
    DatabaseOptions db = new DatabaseOptions();

    @Parameters(arity = "1..*", paramLabel = "RUN_ID", description = "Study IDs, as list shows them.")
    List<Long> ids;

    @Option(names = "--out", paramLabel = "DIR", description = "Report directory (default: lab-results/report-ID+ID).")
    Path out;

    @Override
    public Integer call() {
        PrintWriter err = err();
        List<Study> studies = new ArrayList<>();
        try (ResultStore store = db.open()) {
            for (long id : ids) {
                Optional<Study> s = store.load(id);
                if (s.isEmpty()) {
                    err.println("report: no study " + id + " in " + store.url());
                    err.flush();
                    return 1;
                }
                studies.add(s.get());
            }
            Path dir = out != null ? out
                    : Path.of("lab-results", "report-" + String.join("+", ids.stream().map(String::valueOf).toList()));
            LabReports.write(studies, dir, out());
            return 0;
        } catch (IOException e) {
            err.println("report: " + e.getMessage());
            err.flush();
            return 1;
        }
    }
}
