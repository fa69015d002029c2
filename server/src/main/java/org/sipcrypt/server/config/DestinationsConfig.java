package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The destination sets, keys {@code destination} and {@code destinations.*}: every destination with the
 * set it belongs to, how a set orders its destinations for a request, and the OPTIONS probing that takes
 * a destination out of the sets and puts it back.
 * Threading: immutable.
 *
 * @param destinations   every destination, in the order given (a set's order is that of its entries)
 * @param algorithm      how each set orders its live destinations for a request
 * @param probeInterval  how often each destination is sent an OPTIONS; zero for no probing (every
 *                       destination then stays up)
 * @param probeDownAfter failed probes in a row after which a destination is down (skipped)
 * @param probeUpAfter   answered probes in a row after which a down destination is up again
 */
public record DestinationsConfig(List<DestinationConfig> destinations, DestinationAlgorithm algorithm,
                                 Duration probeInterval, int probeDownAfter, int probeUpAfter) {

    /** Most destinations over all sets. */
    public static final int MAX_DESTINATIONS = 256;
    /** The shortest probe interval (other than zero, no probing) and the longest. */
    public static final Duration MIN_PROBE_INTERVAL = Duration.ofMillis(100);
    public static final Duration MAX_PROBE_INTERVAL = Duration.ofHours(1);
    /** Most probes in a row {@code probeDownAfter} and {@code probeUpAfter} may ask for. */
    public static final int MAX_PROBES_IN_A_ROW = 100;

    public DestinationsConfig {
        destinations = List.copyOf(Objects.requireNonNull(destinations, "destinations"));
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(probeInterval, "probeInterval");
        if (destinations.size() > MAX_DESTINATIONS) {
            throw new IllegalArgumentException("destination: " + destinations.size() + " destinations (expected at most "
                    + MAX_DESTINATIONS + ")");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < destinations.size(); i++) {
            DestinationConfig d = destinations.get(i);
            String key = d.set() + " " + d.host().toLowerCase(java.util.Locale.ROOT) + ":" + d.port() + " "
                    + d.transport().configName();
            if (!seen.add(key)) {
                throw new IllegalArgumentException("destination[" + i + "]: \"" + d + "\" is in set " + d.set()
                        + " twice (expected each HOST:PORT and transport once per set)");
            }
        }
        if (!probeInterval.isZero() && (probeInterval.compareTo(MIN_PROBE_INTERVAL) < 0
                || probeInterval.compareTo(MAX_PROBE_INTERVAL) > 0)) {
            throw new IllegalArgumentException("destinations.probeInterval: " + ConfigValues.format(probeInterval)
                    + " (expected 0 for none, or 100ms to 1h)");
        }
        if (probeDownAfter < 1 || probeDownAfter > MAX_PROBES_IN_A_ROW) {
            throw new IllegalArgumentException("destinations.probeDownAfter: " + probeDownAfter + " (expected 1 to "
                    + MAX_PROBES_IN_A_ROW + ")");
        }
        if (probeUpAfter < 1 || probeUpAfter > MAX_PROBES_IN_A_ROW) {
            throw new IllegalArgumentException("destinations.probeUpAfter: " + probeUpAfter + " (expected 1 to "
                    + MAX_PROBES_IN_A_ROW + ")");
        }
    }

    /** No destinations; algorithm priority, a probe every 10 s, down after 3 failures, up after 2 answers. */
    public static DestinationsConfig defaults() {
        return new Builder().build();
    }

    /** Whether destinations are probed. */
    public boolean probing() {
        return !probeInterval.isZero();
    }

    /** The sets by name, each with its destinations in the order given; sets in the order first named. */
    public Map<String, List<DestinationConfig>> sets() {
        Map<String, List<DestinationConfig>> sets = new LinkedHashMap<>();
        for (DestinationConfig d : destinations) {
            sets.computeIfAbsent(d.set(), k -> new ArrayList<>()).add(d);
        }
        sets.replaceAll((k, v) -> List.copyOf(v));
        return sets;
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().destinations(destinations).algorithm(algorithm).probeInterval(probeInterval)
                .probeDownAfter(probeDownAfter).probeUpAfter(probeUpAfter);
    }

    /**
     * Named settings for a {@link DestinationsConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private List<DestinationConfig> destinations = List.of();
        private DestinationAlgorithm algorithm = DestinationAlgorithm.PRIORITY;
        private Duration probeInterval = Duration.ofSeconds(10);
        private int probeDownAfter = 3;
        private int probeUpAfter = 2;

        public Builder destinations(List<DestinationConfig> v) { destinations = v; return this; }
        public Builder algorithm(DestinationAlgorithm v) { algorithm = v; return this; }
        public Builder probeInterval(Duration v) { probeInterval = v; return this; }
        public Builder probeDownAfter(int v) { probeDownAfter = v; return this; }
        public Builder probeUpAfter(int v) { probeUpAfter = v; return this; }

        public DestinationsConfig build() {
            return new DestinationsConfig(destinations, algorithm, probeInterval, probeDownAfter, probeUpAfter);
        }
    }
}
