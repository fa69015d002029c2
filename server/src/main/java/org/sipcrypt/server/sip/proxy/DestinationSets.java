package org.sipcrypt.server.sip.proxy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.sipcrypt.server.config.DestinationConfig;
import org.sipcrypt.server.config.DestinationsConfig;

/**
 * The destination sets of the configuration ({@code destination}, {@code destinations.*}) by name, with
 * their metrics: per destination (tags {@code set}, {@code destination} as {@code host:port/transport})
 * {@code destinations.up} (1 up, 0 down), {@code destinations.requests} (requests sent),
 * {@code destinations.failovers} (requests that failed there and went on), {@code destinations.probes}
 * and {@code destinations.probes.failed}.
 * Threading: thread-safe (immutable but for the destinations' own state).
 */
public final class DestinationSets {

    /** No sets. */
    public static final DestinationSets NONE = new DestinationSets(DestinationsConfig.defaults(), null);

    private final Map<String, DestinationSet> sets;
    private final DestinationsConfig config;

    /** @param registry where the metrics go; null for none */
    public DestinationSets(DestinationsConfig config, MeterRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        Map<String, DestinationSet> m = new LinkedHashMap<>();
        for (var e : config.sets().entrySet()) {
            List<Destination> ds = new ArrayList<>(e.getValue().size());
            for (DestinationConfig d : e.getValue()) {
                Destination dest = new Destination(d, config.probeDownAfter(), config.probeUpAfter());
                ds.add(dest);
                if (registry != null) {
                    register(dest, registry);
                }
            }
            m.put(e.getKey(), new DestinationSet(e.getKey(), ds, config.algorithm()));
        }
        this.sets = java.util.Collections.unmodifiableMap(m);
    }

    private static void register(Destination d, MeterRegistry registry) {
        Tags tags = Tags.of("set", d.set(), "destination", label(d));
        Gauge.builder("destinations.up", d, x -> x.up() ? 1 : 0)
                .description("Whether a destination of a destination set is up (1) or down (0), by its OPTIONS probes")
                .tags(tags).register(registry);
        FunctionCounter.builder("destinations.requests", d, Destination::requests)
                .description("Requests a destination set sent to a destination (each failover attempt once)")
                .tags(tags).register(registry);
        FunctionCounter.builder("destinations.failovers", d, Destination::failovers)
                .description("Requests that failed on a destination (408, 503, timeout, failed connect) and went on")
                .tags(tags).register(registry);
        FunctionCounter.builder("destinations.probes", d, Destination::probes)
                .description("OPTIONS probes sent to a destination").tags(tags).register(registry);
        FunctionCounter.builder("destinations.probes.failed", d, Destination::probesFailed)
                .description("OPTIONS probes to a destination unanswered by the next, or answered 408 or 503")
                .tags(tags).register(registry);
    }

    /** A destination as the metrics and the management API name it: {@code host:port/transport}. */
    public static String label(Destination d) {
        String h = d.hop().host().indexOf(':') >= 0 ? "[" + d.hop().host() + "]" : d.hop().host();
        return h + ":" + d.hop().port() + "/" + d.hop().transport().configName();
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
