package org.sipcrypt.lab.runner;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
 * @param peakFraction the share of its own peak each cipher's fixed-rate points ran at ({@code compare
 *                     --peak-fraction}, {@link PeakFraction}), the peak being its ramp's in {@code peaks};
 *                     0 when they ran at the scenario's rate (and in studies stored before the choice)
 * @param idle         the server's heap per idle connection, one per compared cipher measured
 *                     ({@code compare --idle-connections}, {@link IdleHeap}); empty when not asked
 */
public record Study(long id, String scenario, String scenarioText, List<String> ciphers, Instant started,
                    Environment environment, List<PointRun> fixed, List<PeakSearch> peaks, double peakFraction,
                    List<IdleHeap> idle) {

    public Study {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(started, "started");
        ciphers = List.copyOf(ciphers);
        fixed = List.copyOf(fixed);
        peaks = List.copyOf(peaks);
        // results.json files and database rows written before the lab measured it have none
        idle = idle == null ? List.of() : List.copyOf(idle);
        if (peakFraction != 0) {
            new PeakFraction(peakFraction);
        }
    }

    /** A study without the heap per idle connection. */
    public Study(long id, String scenario, String scenarioText, List<String> ciphers, Instant started,
                 Environment environment, List<PointRun> fixed, List<PeakSearch> peaks, double peakFraction) {
        this(id, scenario, scenarioText, ciphers, started, environment, fixed, peaks, peakFraction, List.of());
    }

    /** A study whose fixed-rate points ran at the scenario's rate. */
    public Study(long id, String scenario, String scenarioText, List<String> ciphers, Instant started,
                 Environment environment, List<PointRun> fixed, List<PeakSearch> peaks) {
        this(id, scenario, scenarioText, ciphers, started, environment, fixed, peaks, 0);
    }

    /** A copy with the database's ID. */
    public Study withId(long newId) {
        return new Study(newId, scenario, scenarioText, ciphers, started, environment, fixed, peaks, peakFraction, idle);
    }

    /** A copy with these heaps per idle connection. */
    public Study withIdle(List<IdleHeap> measured) {
        return new Study(id, scenario, scenarioText, ciphers, started, environment, fixed, peaks, peakFraction, measured);
    }

    /** The heap per idle connection measured for a cipher, or empty. */
    public Optional<IdleHeap> idleHeap(String cipher) {
        return idle.stream().filter(h -> h.cipher().equals(cipher)).findFirst();
    }

    /**
     * The ramp a cipher's fixed-rate rate derives from under {@link #peakFraction()} (its first), or
     * empty when the study ran none for it or has no fraction.
     */
    public Optional<PeakSearch> fractionPeak(String cipher) {
        if (peakFraction == 0) {
            return Optional.empty();
        }
        return peaks.stream().filter(r -> r.cipher().equals(cipher)).findFirst();
    }
}
