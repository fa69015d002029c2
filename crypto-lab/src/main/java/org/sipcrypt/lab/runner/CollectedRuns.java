package org.sipcrypt.lab.runner;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;

/**
 * A point made of runs that generators elsewhere (other processes, other containers) wrote with
 * {@code uac --json}: their summaries merge exactly (response-time histograms add), their samples
 * add by interval, as {@link Generators} merges the generator processes it starts itself. The
 * server was not measured by the lab, so its CPU and heap are unknown, and so are the UAS's
 * counters (handshakes and bytes of the right leg).
 * Threading: stateless; safe from any thread.
 */
public final class CollectedRuns {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CollectedRuns() {
    }

    /**
     * Merges the run files of one cipher into a fixed-rate point; its rate is the sum of the
     * generators' rates.
     *
     * @throws IOException              a file cannot be read
     * @throws IllegalArgumentException no files, or a file is not {@code uac --json} output (named)
     */
    public static PointRun point(String scenario, String cipher, List<Path> files) throws IOException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException(cipher + ": no generator runs");
        }
        List<RunSummary> parts = new ArrayList<>();
        List<List<Interval>> intervals = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f, StandardCharsets.UTF_8);
            try {
                parts.add(RunSummary.parseSummaryJson(text));
                intervals.add(Generators.intervals(JSON.readTree(text).path("intervals")));
            } catch (IllegalArgumentException | IOException e) {
                throw new IllegalArgumentException(f + ": " + e.getMessage(), e);
            }
        }
        RunSummary u = parts.size() == 1 ? parts.get(0)
                : RunSummary.merge(parts.get(0).description() + " ×" + parts.size() + " generators", parts);
        String invalid = u.saturated() ? String.format(Locale.ROOT,
                ScenarioRunner.GENERATOR_SATURATED + " (CPU %.0f %% of %d cores, arrivals up to %.0f ms late)",
                u.cpuPercent(), u.cores(), u.maxArrivalLagMs()) : null;
        return new PointRun(scenario, cipher, "fixed", 1, u.rate(), u, 0, 0, 0, ServerSample.UNKNOWN,
                Generators.samples(intervals, List.of()), invalid);
    }
}
