package org.sipcrypt.lab.runner;

import java.util.List;
import java.util.Objects;

/**
 * A ramp of one scenario and cipher: its steps in order and the two rates the literature reports.
 * Threading: immutable.
 *
 * @param scenario        scenario name
 * @param cipher          the cipher compared, or {@code udp} / {@code tcp}
 * @param repetition      1-based repetition of the ramp
 * @param peakRate        highest offered rate with less than the failure threshold (1 %) of calls
 *                        failed, 0 when no step passed
 * @param sustainableRate highest offered rate whose completed rate kept up with it (within 2 %), 0
 *                        when none did
 * @param stoppedBy       why the ramp ended: {@code failures}, {@code saturated generator},
 *                        {@code last step} or {@code budget}
 * @param steps           the steps run
 */
public record PeakSearch(String scenario, String cipher, int repetition, double peakRate, double sustainableRate,
                         String stoppedBy, List<PointRun> steps) implements ScenarioCipher {

    public PeakSearch {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(cipher, "cipher");
        steps = List.copyOf(steps);
    }
}
