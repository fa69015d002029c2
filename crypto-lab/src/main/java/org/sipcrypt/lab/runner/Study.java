package org.sipcrypt.lab.runner;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One comparison: a scenario swept over ciphers and baselines, at a fixed rate and/or by ramps,
 * with what it ran on. Its ID is the lab database's, 0 before it is stored.
 * Threading: immutable.
 *
 * @param id           the lab database's ID
 * @param scenario     scenario name
 * @param scenarioText the scenario file as run (after command-line overrides), YAML
 * @param ciphers      ciphers and baselines in the order compared
 * @param started      when it began
 * @param environment  JVM, CPU and versions it ran on
 * @param fixed        fixed-rate points, every cipher and repetition
 * @param peaks        ramps, every cipher and repetition
 */
public record Study(long id, String scenario, String scenarioText, List<String> ciphers, Instant started,
                    Environment environment, List<PointRun> fixed, List<PeakSearch> peaks) {

    public Study {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(started, "started");
        ciphers = List.copyOf(ciphers);
        fixed = List.copyOf(fixed);
        peaks = List.copyOf(peaks);
    }

    /** A copy with the database's ID. */
    public Study withId(long newId) {
        return new Study(newId, scenario, scenarioText, ciphers, started, environment, fixed, peaks);
    }
}
