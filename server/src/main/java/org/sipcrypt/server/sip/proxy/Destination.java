package org.sipcrypt.server.sip.proxy;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.sipcrypt.server.config.DestinationConfig;

/**
 * One destination of a destination set: its next hop, priority and weight, whether it is up, and what
 * it has been sent. OPTIONS probes move it down after {@code probeDownAfter} failures in a row and up
 * again after {@code probeUpAfter} answers in a row; a request that fails on it does not move it (one
 * 503 is an answer, not a verdict: the probes decide, as Kamailio's dispatcher does unless told to
 * mark on failure). A reload that keeps it hands its state and counts on ({@link #keeping}).
 * Threading: thread-safe; probe results come from the probe thread and SIP worker lanes.
 */
public final class Destination {

    private final String set;
    private final NextHop hop;
    private final int priority;
    private final int weight;
    private final int downAfter;
    private final int upAfter;
    /** Shared with the destination that replaces this one in a reload keeping it ({@link #keeping}). */
    private final Health health;

    /**
     * What a destination has been through: up or down, the probes in a row, the counts. A reload that
     * keeps a destination (same set, host, port and transport) hands it on to the new one.
     * Threading: thread-safe; the probe fields under the instance's lock, the counts atomic.
     */
    private static final class Health {
        volatile boolean up = true;
        int failuresInRow;
        int answersInRow;
        /** The probe awaiting its answer, or null. */
        Object pendingProbe;
        final AtomicLong requests = new AtomicLong();
        final AtomicLong failovers = new AtomicLong();
        final AtomicLong probes = new AtomicLong();
        final AtomicLong probesFailed = new AtomicLong();
    }

    Destination(DestinationConfig config, int downAfter, int upAfter) {
        this(config, downAfter, upAfter, new Health());
    }

    private Destination(DestinationConfig config, int downAfter, int upAfter, Health health) {
        Objects.requireNonNull(config, "config");
        this.set = config.set();
        this.hop = new NextHop(config.host(), config.port(), config.transport(), config.connection());
        this.priority = config.priority();
        this.weight = config.weight();
        this.downAfter = downAfter;
        this.upAfter = upAfter;
        this.health = health;
    }

    /**
     * The destination {@code config} describes, carrying on this one's state, its counts and its probe
     * on the way (a reload that keeps it, perhaps with another priority, weight or probe thresholds).
     */
    Destination keeping(DestinationConfig config, int downAfter, int upAfter) {
        if (!key(config).equals(key())) {
            throw new IllegalArgumentException("config: " + config + " is not " + this);
        }
        return new Destination(config, downAfter, upAfter, health);
    }

    /** What a destination is the same one by, over a reload: its set, host (case-blind), port and transport. */
    static String key(DestinationConfig d) {
        return d.set() + " " + d.host().toLowerCase(Locale.ROOT) + ":" + d.port() + " "
                + d.transport().configName();
    }

    String key() {
        return set + " " + hop.host().toLowerCase(Locale.ROOT) + ":" + hop.port() + " "
                + hop.transport().configName();
    }

    /** Whether {@code other} is this destination carried over a reload (they share their state). */
    boolean sameAs(Destination other) {
        return health == other.health;
    }

    /** The object the metrics read this destination's state from: the same for a destination kept over a reload. */
    Object meterSource() {
        return health;
    }

    /** The set it belongs to. */
    public String set() {
        return set;
    }

    public NextHop hop() {
        return hop;
    }

    public int priority() {
        return priority;
    }

    public int weight() {
        return weight;
    }

    /** Answered probes in a row that bring it up, failed ones that take it down. */
    int upAfter() {
        return upAfter;
    }

    int downAfter() {
        return downAfter;
    }

    /** Whether sets send to it. */
    public boolean up() {
        return health.up;
    }

    /** Requests sent to it (each attempt of a failover counts once). */
    public long requests() {
        return health.requests.get();
    }

    /** Requests that failed on it (408, 503, timeout, failed connect) and went on to the next destination. */
    public long failovers() {
        return health.failovers.get();
    }

    /** OPTIONS probes sent to it, and those that failed. */
    public long probes() {
        return health.probes.get();
    }

    public long probesFailed() {
        return health.probesFailed.get();
    }

    /** A request went to it. */
    void sent() {
        health.requests.incrementAndGet();
    }

    /** A request failed on it and went on. */
    void failedOver() {
        health.failovers.incrementAndGet();
    }

    /** Notes {@code probe} as the one awaiting an answer; returns the one that was still waiting (it failed), or null. */
    Object probeSent(Object probe) {
        synchronized (health) {
            Object unanswered = health.pendingProbe;
            health.pendingProbe = probe;
            health.probes.incrementAndGet();
            return unanswered;
        }
    }

    /** Takes {@code probe} off as answered or failed; false when it was not the one waiting (counted already). */
    boolean probeEnded(Object probe) {
        synchronized (health) {
            if (health.pendingProbe != probe) {
                return false;
            }
            health.pendingProbe = null;
            return true;
        }
    }

    /** An answered probe; returns true when the destination has just come up. */
    boolean probeAnswered() {
        synchronized (health) {
            health.failuresInRow = 0;
            if (!health.up && ++health.answersInRow >= upAfter) {
                health.up = true;
                health.answersInRow = 0;
                return true;
            }
            return false;
        }
    }

    /** A failed probe; returns true when the destination has just gone down. */
    boolean probeFailed() {
        synchronized (health) {
            health.probesFailed.incrementAndGet();
            health.answersInRow = 0;
            if (health.up && ++health.failuresInRow >= downAfter) {
                health.up = false;
                health.failuresInRow = 0;
                return true;
            }
            return false;
        }
    }

    @Override
    public String toString() {
        return set + "=" + hop.host() + ":" + hop.port() + ";transport=" + hop.transport().configName();
    }
}
