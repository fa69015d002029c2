package org.sipcrypt.server.sip.proxy;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.sipcrypt.server.config.DestinationConfig;

/**
 * One destination of a destination set: its next hop, priority and weight, whether it is up, and what
 * it has been sent. OPTIONS probes move it down after {@code probeDownAfter} failures in a row and up
 * again after {@code probeUpAfter} answers in a row; a request that fails on it does not move it (one
 * 503 is an answer, not a verdict: the probes decide, as Kamailio's dispatcher does unless told to
 * mark on failure).
 * Threading: thread-safe; probe results come from the probe thread and SIP worker lanes.
 */
public final class Destination {

    private final String set;
    private final NextHop hop;
    private final int priority;
    private final int weight;
    private final int downAfter;
    private final int upAfter;
    private volatile boolean up = true;
    private int failuresInRow;
    private int answersInRow;
    /** The probe awaiting its answer, or null. */
    private Object pendingProbe;
    final AtomicLong requests = new AtomicLong();
    final AtomicLong failovers = new AtomicLong();
    final AtomicLong probes = new AtomicLong();
    final AtomicLong probesFailed = new AtomicLong();

    Destination(DestinationConfig config, int downAfter, int upAfter) {
        Objects.requireNonNull(config, "config");
        this.set = config.set();
        this.hop = new NextHop(config.host(), config.port(), config.transport(), config.connection());
        this.priority = config.priority();
        this.weight = config.weight();
        this.downAfter = downAfter;
        this.upAfter = upAfter;
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

    /** Whether sets send to it. */
    public boolean up() {
        return up;
    }

    /** Requests sent to it (each attempt of a failover counts once). */
    public long requests() {
        return requests.get();
    }

    /** Requests that failed on it (408, 503, timeout, failed connect) and went on to the next destination. */
    public long failovers() {
        return failovers.get();
    }

    /** OPTIONS probes sent to it, and those that failed. */
    public long probes() {
        return probes.get();
    }

    public long probesFailed() {
        return probesFailed.get();
    }

    /** Notes {@code probe} as the one awaiting an answer; returns the one that was still waiting (it failed), or null. */
    synchronized Object probeSent(Object probe) {
        Object unanswered = pendingProbe;
        pendingProbe = probe;
        probes.incrementAndGet();
        return unanswered;
    }

    /** Takes {@code probe} off as answered or failed; false when it was not the one waiting (counted already). */
    synchronized boolean probeEnded(Object probe) {
        if (pendingProbe != probe) {
            return false;
        }
        pendingProbe = null;
        return true;
    }

    /** An answered probe; returns true when the destination has just come up. */
    synchronized boolean probeAnswered() {
        failuresInRow = 0;
        if (!up && ++answersInRow >= upAfter) {
            up = true;
            answersInRow = 0;
            return true;
        }
        return false;
    }

    /** A failed probe; returns true when the destination has just gone down. */
    synchronized boolean probeFailed() {
        probesFailed.incrementAndGet();
        answersInRow = 0;
        if (up && ++failuresInRow >= downAfter) {
            up = false;
            failuresInRow = 0;
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return set + "=" + hop.host() + ":" + hop.port() + ";transport=" + hop.transport().configName();
    }
}
