package org.sipcrypt.server.sip.proxy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;
import java.util.zip.CRC32;
import org.sipcrypt.server.config.DestinationAlgorithm;

/**
 * A named set of destinations ({@code destination=NAME=...}) and the order it tries them in for one
 * request ({@code destinations.algorithm}): with {@code priority}, lowest priority value first and,
 * among destinations of one priority, a weighted random order (each is first with the share of its
 * weight); with {@code hash-callid} or {@code hash-from}, the destination the CRC-32 of the Call-ID or
 * the From URI picks among all of the set's destinations, then round the list in the order configured.
 * Destinations that are down are left out.
 * Threading: thread-safe (immutable but for the destinations' own state).
 */
public final class DestinationSet {

    private final String name;
    private final List<Destination> destinations;
    private final DestinationAlgorithm algorithm;

    DestinationSet(String name, List<Destination> destinations, DestinationAlgorithm algorithm) {
        this.name = Objects.requireNonNull(name, "name");
        this.destinations = List.copyOf(destinations);
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        if (this.destinations.isEmpty()) {
            throw new IllegalArgumentException("set " + name + ": no destinations");
        }
    }

    public String name() {
        return name;
    }

    public DestinationAlgorithm algorithm() {
        return algorithm;
    }

    /** Every destination, in the order configured. */
    public List<Destination> destinations() {
        return destinations;
    }

    /**
     * The failover of one request through this set: its live destinations in the order the algorithm
     * gives, counting each attempt and each failover on its destination; null when none is up.
     *
     * @param callId  the request's Call-ID ({@code hash-callid})
     * @param fromUri the request's From URI, without parameters of the header ({@code hash-from})
     */
    Failover failover(String callId, String fromUri, RandomGenerator random) {
        List<Destination> order = order(destinations, algorithm, algorithm == DestinationAlgorithm.HASH_FROM
                ? fromUri : callId, random);
        if (order.isEmpty()) {
            return null;
        }
        List<NextHop> hops = order.stream().map(Destination::hop).toList();
        return Failover.of(hops, new Failover.Outcomes() {
            @Override
            public void sent(int index) {
                order.get(index).sent();
            }

            @Override
            public void failed(int index, int status) {
                order.get(index).failedOver();
            }
        });
    }

    /** The destinations that are up, in the order {@code algorithm} tries them for a request with {@code key}. */
    static List<Destination> order(List<Destination> all, DestinationAlgorithm algorithm, String key,
                                   RandomGenerator random) {
        List<Destination> out = new ArrayList<>(all.size());
        if (algorithm == DestinationAlgorithm.PRIORITY) {
            List<Destination> live = new ArrayList<>(all.size());
            for (Destination d : all) {
                if (d.up()) {
                    live.add(d);
                }
            }
            // stable: destinations of one priority keep the order configured before the draw
            live.sort((a, b) -> Integer.compare(a.priority(), b.priority()));
            int i = 0;
            while (i < live.size()) {
                int j = i;
                while (j < live.size() && live.get(j).priority() == live.get(i).priority()) {
                    j++;
                }
                weightedOrder(live.subList(i, j), random, out);
                i = j;
            }
            return out;
        }
        int start = Math.floorMod(hash(key == null ? "" : key), all.size());
        for (int k = 0; k < all.size(); k++) {
            Destination d = all.get((start + k) % all.size());
            if (d.up()) {
                out.add(d);
            }
        }
        return out;
    }

    /** Weighted random sampling without replacement: each next one with the share of its weight among those left. */
    private static void weightedOrder(List<Destination> group, RandomGenerator random, List<Destination> out) {
        List<Destination> left = new ArrayList<>(group);
        int total = 0;
        for (Destination d : left) {
            total += d.weight();
        }
        while (!left.isEmpty()) {
            int draw = random.nextInt(total);
            int k = 0;
            while (draw >= left.get(k).weight()) {
                draw -= left.get(k).weight();
                k++;
            }
            Destination d = left.remove(k);
            total -= d.weight();
            out.add(d);
        }
    }

    /** CRC-32 of the key's UTF-8 bytes: the same on every server and every run. */
    static int hash(String key) {
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }

    @Override
    public String toString() {
        return name + destinations;
    }
}
