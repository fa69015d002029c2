package org.sipcrypt.server.transport;

import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;

/**
 * Counts inbound stream connections per source IP address and refuses one beyond the cap, so one
 * client (or one flood) cannot take every connection the server allows and lock the others out.
 * An address is in the table only while it has connections open, so the table is bounded by the
 * number of open connections.
 * Threading: thread-safe; never blocks.
 */
public final class ConnectionsPerSource {

    private final int max;
    private final Predicate<InetAddress> exempt;
    private final ConcurrentMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

    /**
     * @param max    most connections open at once from one address
     * @param exempt addresses never refused here (trusted peers)
     */
    public ConnectionsPerSource(int max, Predicate<InetAddress> exempt) {
        if (max < 1) {
            throw new IllegalArgumentException("max below 1: " + max);
        }
        this.max = max;
        this.exempt = Objects.requireNonNull(exempt, "exempt");
    }

    /** The cap per source. */
    public int max() {
        return max;
    }

    /**
     * Counts a new connection from {@code source}; false (and nothing counted) when the source
     * already has {@link #max()} open. A true answer must be matched by one {@link #closed}.
     */
    public boolean tryOpen(InetAddress source) {
        if (exempt.test(source)) {
            return true;
        }
        if (open.merge(source, 1, Integer::sum) > max) {
            closed(source);
            return false;
        }
        return true;
    }

    /** A connection counted by {@link #tryOpen} has closed. */
    public void closed(InetAddress source) {
        if (exempt.test(source)) {
            return;
        }
        open.computeIfPresent(source, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** Connections open from {@code source} (0 for exempt sources, which are not counted). */
    public int openFrom(InetAddress source) {
        return open.getOrDefault(source, 0);
    }
}
