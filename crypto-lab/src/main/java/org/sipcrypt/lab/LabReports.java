package org.sipcrypt.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.sipcrypt.lab.model.CostModel;
import org.sipcrypt.lab.report.CsvExport;
import org.sipcrypt.lab.report.HtmlReport;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.report.MarkdownReport;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;

/**
 * Writes the report files of studies into a directory ({@code report.md}, {@code report.html},
 * {@code results.csv}, {@code peaks.csv}, {@code results.json}) and prints the Markdown report.
 * The cost model is fitted from whichever studies are given.
 * Threading: the main thread only.
 */
final class LabReports {

    private LabReports() {
    }

    /**
     * Writes and prints the reports.
     *
     * @return whether every point and ramp step of the studies was valid (stopped ramps steps are
     *         expected to fail: only fixed-rate points count)
     */
    static boolean write(List<Study> studies, Path dir, PrintWriter out) throws IOException {
        Files.createDirectories(dir);
        CostModel.Result model = CostModel.fit(studies);
        String md = MarkdownReport.render(studies, model);
        Files.writeString(dir.resolve("report.md"), md, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("report.html"), HtmlReport.render(studies, model), StandardCharsets.UTF_8);
        CsvExport.write(studies, dir);
        JsonExport.write(studies, dir);
        out.println(md);
        out.println("reports: " + dir.toAbsolutePath().normalize() + " (report.md, report.html, results.csv, peaks.csv,"
                + " results.json); studies " + String.join(", ", studies.stream().map(s -> "#" + s.id()).toList()));
        out.flush();
        boolean ok = true;
        for (Study s : studies) {
            for (PointRun p : s.fixed()) {
                ok &= p.passed();
            }
            for (PeakSearch r : s.peaks()) {
                ok &= r.peakRate() > 0;
            }
        }
        return ok;
    }
}
