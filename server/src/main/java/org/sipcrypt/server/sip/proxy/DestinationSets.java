package org.sipcrypt.server.sip.proxy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.sipcrypt.server.config.DestinationConfig;
import org.sipcrypt.server.config.DestinationsConfig;

/**
 * The destination sets of the configuration ({@code destination}, {@code destinations.*}) by name, with
 * their metrics: per destination (tags {@code set}, {@code destination} as {@code host:port/transport})
 * {@code destinations.up} (1 up, 0 down), {@code destinations.requests} (requests sent),
 * {@code destinations.failovers} (requests that failed there and went on), {@code destinations.probes}
 * and {@code destinations.probes.failed}. A routes reload builds the next sets from these ({@link #next}),
 * so that a destination that stays keeps its state, and puts them in force with the routes.
 * Threading: thread-safe (immutable but for the destinations' own state).
 */
public final class DestinationSets {

    /** No sets. */
    public static final DestinationSets NONE = new DestinationSets(DestinationsConfig.defaults(), null);

    private final Map<String, DestinationSet> sets;
    private final DestinationsConfig config;
    private final MeterRegistry registry;
    /** Each destination's meters, by {@link Destination#key()}; empty without a registry. */
    private final Map<String, List<Meter>> meters;

    /** @param registry where the metrics go; null for none */
    public DestinationSets(DestinationsConfig config, MeterRegistry registry) {
        this(config, registry, Map.of(), Map.of());
    }

    /**
     * @param kept       the destinations of the sets in force before, by key, whose state the new ones keep
     * @param keptMeters their meters, which stay registered for those kept
     */
    private DestinationSets(DestinationsConfig config, MeterRegistry registry, Map<String, Destination> kept,
                            Map<String, List<Meter>> keptMeters) {
        this.config = Objects.requireNonNull(config, "config");
        this.registry = registry;
        Map<String, DestinationSet> m = new LinkedHashMap<>();
        Map<String, List<Meter>> ms = new HashMap<>();
        for (var e : config.sets().entrySet()) {
            List<Destination> ds = new ArrayList<>(e.getValue().size());
            for (DestinationConfig d : e.getValue()) {
                Destination before = kept.get(Destination.key(d));
                Destination dest = before != null
                        ? before.keeping(d, config.probeDownAfter(), config.probeUpAfter())
                        : new Destination(d, config.probeDownAfter(), config.probeUpAfter());
                ds.add(dest);
                if (registry != null) {
                    List<Meter> old = keptMeters.get(dest.key());
                    ms.put(dest.key(), old != null ? old : register(dest, registry));
                }
            }
            m.put(e.getKey(), new DestinationSet(e.getKey(), ds, config.algorithm()));
        }
        this.sets = java.util.Collections.unmodifiableMap(m);
        this.meters = Map.copyOf(ms);
    }

    /**
     * The sets {@code next} describes, to take over from these: a destination that stays (same set, host,
     * port and transport) keeps its state, its counts and its meters; a new one starts up, with meters of
     * its own. Those left out keep their meters until {@link #retire} once the new sets are in force.
     */
    public DestinationSets next(DestinationsConfig next) {
        Map<String, Destination> kept = new HashMap<>();
        for (Destination d : destinations()) {
            kept.put(d.key(), d);
        }
        return new DestinationSets(next, registry, kept, meters);
    }

    /**
     * Removes from the registry the meters of the destinations that are not in {@code successor}, the
     * sets that have replaced these; returns how many destinations went.
     */
    public int retire(DestinationSets successor) {
        Set<String> staying = new HashSet<>();
        successor.destinations().forEach(d -> staying.add(d.key()));
        int gone = 0;
        for (Destination d : destinations()) {
            if (!staying.contains(d.key())) {
                gone++;
                for (Meter m : meters.getOrDefault(d.key(), List.of())) {
                    registry.remove(m);
                }
            }
        }
        return gone;
    }

    private static List<Meter> register(Destination d, MeterRegistry registry) {
        Tags tags = Tags.of("set", d.set(), "destination", label(d));
        // the functions hold d, which shares its state with whatever keeps it over a reload
        Object source = d.meterSource();
        return List.of(
                Gauge.builder("destinations.up", source, x -> d.up() ? 1 : 0)
                        .description("Whether a destination of a destination set is up (1) or down (0), by its OPTIONS probes")
                        .tags(tags).strongReference(true).register(registry),
                FunctionCounter.builder("destinations.requests", source, x -> d.requests())
                        .description("Requests a destination set sent to a destination (each failover attempt once)")
                        .tags(tags).register(registry),
                FunctionCounter.builder("destinations.failovers", source, x -> d.failovers())
                        .description("Requests that failed on a destination (408, 503, timeout, failed connect) and went on")
                        .tags(tags).register(registry),
                FunctionCounter.builder("destinations.probes", source, x -> d.probes())
                        .description("OPTIONS probes sent to a destination").tags(tags).register(registry),
                FunctionCounter.builder("destinations.probes.failed", source, x -> d.probesFailed())
                        .description("OPTIONS probes to a destination unanswered by the next, or answered 408 or 503")
                        .tags(tags).register(registry));
    }

    /** A destination as the metrics and the management API name it: {@code host:port/transport}. */
    public static String label(Destination d) {
        String h = d.hop().host().indexOf(':') >= 0 ? "[" + d.hop().host() + "]" : d.hop().host();
        return h + ":" + d.hop().port() + "/" + d.hop().transport().configName();
    }

    /**
     * Each set as {@code NAME -> DESTINATION (priority P, weight W), ...}, in the order first configured,
     * with the algorithm last: what a reload answers.
     */
    public List<String> describe() {
        List<String> out = new ArrayList<>(sets.size());
        for (DestinationSet s : sets.values()) {
            StringBuilder b = new StringBuilder(s.name()).append(" ->");
            String sep = " ";
            for (Destination d : s.destinations()) {
                b.append(sep).append(label(d)).append(" (priority ").append(d.priority()).append(", weight ")
                        .append(d.weight()).append(", ").append(d.hop().connection().configName()).append(')');
                sep = ", ";
            }
            out.add(b.append("; ").append(s.algorithm().configName()).toString());
        }
        return out;
    }

    /** The set named {@code name}, if configured. */
    public Optional<DestinationSet> set(String name) {
        return Optional.ofNullable(sets.get(name));
    }

    /** Every set, in the order first configured. */
    public List<DestinationSet> all() {
        return List.copyOf(sets.values());
    }

    /** Every destination of every set. */
    public List<Destination> destinations() {
        return sets.values().stream().flatMap(s -> s.destinations().stream()).toList();
    }

    public DestinationsConfig config() {
        return config;
    }

    /**
     * The failover of a request through set {@code name} (which must exist): its live destinations in
     * the set's order; null when none is up.
     */
    Failover failover(String name, String callId, String fromUri) {
        DestinationSet s = sets.get(name);
        if (s == null) {
            throw new IllegalArgumentException("no destination set " + name);
        }
        return s.failover(callId, fromUri, ThreadLocalRandom.current());
    }

    /**
     * What the management API lists: each set with its algorithm and its destinations' state and counts.
     * Threading: immutable.
     */
    public record Snapshot(String name, String algorithm, List<DestinationState> destinations) {
    }

    /**
     * One destination as the management API lists it.
     * Threading: immutable.
     */
    public record DestinationState(String destination, String host, int port, String transport, int priority,
                                   int weight, String state, long requests, long failovers, long probes,
                                   long probesFailed) {
    }

    /** Every set and destination now. */
    public List<Snapshot> snapshot() {
        List<Snapshot> out = new ArrayList<>(sets.size());
        for (DestinationSet s : sets.values()) {
            List<DestinationState> ds = new ArrayList<>();
            for (Destination d : s.destinations()) {
                ds.add(new DestinationState(label(d), d.hop().host(), d.hop().port(), d.hop().transport().configName(),
                        d.priority(), d.weight(), d.up() ? "up" : "down", d.requests(), d.failovers(), d.probes(),
                        d.probesFailed()));
            }
            out.add(new Snapshot(s.name(), s.algorithm().configName(), ds));
        }
        return out;
    }
}
