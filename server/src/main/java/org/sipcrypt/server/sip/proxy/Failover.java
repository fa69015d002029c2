package org.sipcrypt.server.sip.proxy;

import java.util.List;
import java.util.Objects;

/**
 * An ordered list of next hops one branch of a proxied request tries one after another, in one server
 * transaction (sequential failover): the request goes to the first; when that hop answers 408 or 503, its
 * transaction times out (Timer B or F, or Timer C without a provisional response) or its connection cannot
 * be set up, a new branch goes to the next, until a hop answers otherwise or none is left (RFC 3261 §16.6:
 * each attempt is a new branch with a Via branch of its own; §16.7 then picks the best of them). A CANCEL
 * or a response already sent upstream stops it. A destination set makes one per request; any other source
 * of an ordered list of hops (RFC 3263's SRV targets, say) makes one the same way.
 * Threading: immutable; {@link Outcomes} implementations are thread-safe.
 */
public final class Failover {

    /**
     * Told what became of each hop, to count it.
     * Threading: thread-safe; called on SIP worker lanes, never blocks.
     */
    public interface Outcomes {
        /** Nothing to count. */
        Outcomes NONE = new Outcomes() {
            @Override
            public void sent(int index) {
            }

            @Override
            public void failed(int index, int status) {
            }
        };

        /** The request went to hop {@code index}. */
        void sent(int index);

        /** Hop {@code index} failed with {@code status} (408 or 503) and the request went on to the next. */
        void failed(int index, int status);
    }

    private final List<NextHop> hops;
    private final Outcomes outcomes;

    private Failover(List<NextHop> hops, Outcomes outcomes) {
        this.hops = List.copyOf(Objects.requireNonNull(hops, "hops"));
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
        if (this.hops.isEmpty()) {
            throw new IllegalArgumentException("hops: none");
        }
    }

    /** Tries {@code hops} in order, counting nothing. */
    public static Failover of(List<NextHop> hops) {
        return new Failover(hops, Outcomes.NONE);
    }

    /** Tries {@code hops} in order, telling {@code outcomes} of each. */
    public static Failover of(List<NextHop> hops, Outcomes outcomes) {
        return new Failover(hops, outcomes);
    }

    /** The hops, in the order they are tried. */
    public List<NextHop> hops() {
        return hops;
    }

    Outcomes outcomes() {
        return outcomes;
    }

    /** Whether a branch that ended with {@code status} goes on to the next hop: 408 and 503 (a failed connect is a 503). */
    static boolean failsOver(int status) {
        return status == 408 || status == 503;
    }

    @Override
    public String toString() {
        return "failover" + hops;
    }
}
