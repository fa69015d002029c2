package org.sipcrypt.lab.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One line of the list of stored studies: enough to pick one without loading its points.
 * Threading: immutable.
 *
 * @param id       the study's ID in the lab database
 * @param started  when the study began
 * @param scenario scenario name
 * @param ciphers  ciphers and baselines in the order compared
 * @param points   measured points: the fixed-rate points and every step of every ramp
 * @param ramps    ramps run
 * @param cores    processors the study ran with, -1 when it recorded no environment
 * @param cpuModel the CPU's model name, {@code unknown} when it recorded no environment
 */
public record StudyHeader(long id, Instant started, String scenario, List<String> ciphers, int points, int ramps,
                          int cores, String cpuModel) {

    public StudyHeader {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(cpuModel, "cpuModel");
        ciphers = List.copyOf(ciphers);
    }
}
