package org.sipcrypt.server.dns;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The data of one SRV record (RFC 2782) and the order in which a client tries a set of them.
 * Threading: immutable.
 *
 * @param target host name of the server; {@code "."} means the service is not offered there
 * @param ttl    the record's time to live, in seconds
 */
public record SrvRecord(int priority, int weight, int port, String target, long ttl) {

    public SrvRecord {
        Objects.requireNonNull(target, "target");
    }

    /** Whether the record says the service is not available at this domain (RFC 2782: target "."). */
    public boolean unavailable() {
        return target.isEmpty() || target.equals(".");
    }

    /**
     * RFC 2782's selection order: lowest priority first; within a priority, a weighted random
     * draw without replacement, records of weight 0 first in the list so they are picked rarely but
     * can be.
     */
    public static List<SrvRecord> ordered(List<SrvRecord> records, RandomGenerator random) {
        List<SrvRecord> sorted = new ArrayList<>(records);
        sorted.sort(Comparator.comparingInt(SrvRecord::priority));
        List<SrvRecord> out = new ArrayList<>(sorted.size());
        int i = 0;
        while (i < sorted.size()) {
            int p = sorted.get(i).priority();
            List<SrvRecord> group = new ArrayList<>();
            while (i < sorted.size() && sorted.get(i).priority() == p) {
                SrvRecord r = sorted.get(i++);
                // "arrange all SRV RRs (that have not been ordered yet) in any order, except that all
                // those with weight 0 are placed at the beginning of the list"
                if (r.weight() == 0) {
                    group.add(0, r);
                } else {
                    group.add(r);
                }
            }
            while (!group.isEmpty()) {
                long sum = 0;
                for (SrvRecord r : group) {
                    sum += r.weight();
                }
                long pick = sum == 0 ? 0 : random.nextLong(sum + 1);
                long running = 0;
                int chosen = group.size() - 1;
                for (int k = 0; k < group.size(); k++) {
                    running += group.get(k).weight();
                    if (running >= pick) {
                        chosen = k;
                        break;
                    }
                }
                out.add(group.remove(chosen));
            }
        }
        return out;
    }
}
