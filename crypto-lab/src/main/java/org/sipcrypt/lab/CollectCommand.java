package org.sipcrypt.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.sipcrypt.lab.runner.CollectedRuns;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.ResultStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code collect}: one study and one report from runs that generators in other processes or
 * containers wrote with {@code uac --json} into {@code RUNS/CIPHER/*.json} (one file per generator
 * and cipher), as {@code compare} merges its own generator processes: used by the Docker Compose
 * scenarios, where every generator is a container. The server is not measured from here (its CPU
 * is unknown in the report). Exit codes: 0 every cipher has all its runs and none failed more calls
 * than its threshold, 1 a run is missing or failed (the report still covers the others), 2 bad
 * arguments. A point whose generator was saturated is flagged invalid in the report, as
 * {@code compare} does, without changing the exit code: it says the generator, not the calls, fell behind.
 * Threading: the main thread only.
 */
@Command(name = "collect", mixinStandardHelpOptions = true,
        description = "Merge the uac --json runs of several generators (RUNS/CIPHER/*.json) into one study and one"
                + " report, as compare does for its own processes.")
final class CollectCommand extends LabCommand {

    @Option(names = "--runs", required = true, paramLabel = "DIR",
            description = "Directory of CIPHER/*.json run files; repeatable, one study each (paired with --scenario).")
    List<Path> runs;

    @Option(names = "--scenario", required = true, paramLabel = "NAME",
            description = "The study's scenario name; one per --runs, in the same order.")
    List<String> scenarios;

    @Option(names = "--ciphers", required = true, split = ",", paramLabel = "LIST",
            description = "The ciphers compared, in order (udp, tcp, aes, 3des, camellia, seed, rc4).")
    List<String> ciphers;

    @Option(names = "--generators", required = true, paramLabel = "N", description = "Run files expected per cipher.")
    int generators;

    @Option(names = "--description", paramLabel = "TEXT", defaultValue = "",
            description = "How the runs were made, kept with each study as its scenario text.")
    String description;

    @Option(names = "--out", paramLabel = "DIR", description = "Report directory (default: lab-results/SCENARIO-YYYYMMDD-HHMMSS).")
    Path out;

    @CommandLine.Mixin
    DatabaseOptions db = new DatabaseOptions();

    @Override
    public Integer call() throws Exception {
        if (generators < 1) {
            throw badArgument("--generators: " + generators + " (expected 1 or more)");
        }
        if (runs.size() != scenarios.size()) {
            throw badArgument("--runs and --scenario: " + runs.size() + " and "
                    + scenarios.size() + " (expected one scenario name per runs directory)");
        }
        for (Path r : runs) {
            if (!Files.isDirectory(r)) {
                throw badArgument("--runs: " + r + " is not a directory");
            }
        }
        PrintWriter err = err();
        boolean complete = true;
        List<Study> studies = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            String scenario = scenarios.get(i);
            List<PointRun> points = new ArrayList<>();
            List<String> compared = new ArrayList<>();
            for (String c : ciphers) {
                Path dir = runs.get(i).resolve(c);
                List<Path> files = runFiles(dir);
                if (files.size() != generators) {
                    err.printf(Locale.ROOT, "collect: %s %s: %d of %d generator runs in %s%n", scenario, c, files.size(),
                            generators, dir);
                    complete = false;
                    if (files.isEmpty()) {
                        continue;
                    }
                }
                try {
                    points.add(CollectedRuns.point(scenario, c, files));
                } catch (IllegalArgumentException e) {
                    err.println("collect: " + e.getMessage());
                    complete = false;
                    continue;
                }
                compared.add(c);
            }
            if (points.isEmpty()) {
                continue;
            }
            String text = "# " + (description.isBlank() ? "runs collected from " + generators + " generator(s)" : description)
                    + "\nname: " + scenario + "\ngenerators: " + generators + "\nciphers: [" + String.join(", ", compared)
                    + "]\n";
            studies.add(new Study(0, scenario, text, compared, earliestStart(points), Environment.current(), points,
                    List.of()));
        }
        err.flush();
        if (studies.isEmpty()) {
            err.println("collect: no runs to report in " + runs);
            err.flush();
            return 1;
        }
        List<Study> stored = new ArrayList<>();
        try (ResultStore store = db.open()) {
            for (Study s : studies) {
                stored.add(s.withId(store.save(s)));
            }
        }
        Path dir = out != null ? out : Path.of("lab-results", String.join("+", scenarios) + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
        LabReports.write(stored, dir, out());
        boolean passed = stored.stream().flatMap(s -> s.fixed().stream()).allMatch(p -> p.uac().passed());
        return passed && complete ? 0 : 1;
    }

    private static List<Path> runFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        }
    }

    /** When the study began: now less its measured parts together (the runs carry no wall-clock start). */
    private static Instant earliestStart(List<PointRun> points) {
        double seconds = 0;
        for (PointRun p : points) {
            seconds += p.uac().seconds();
        }
        return Instant.now().minusMillis(Math.round(seconds * 1000));
    }
}
