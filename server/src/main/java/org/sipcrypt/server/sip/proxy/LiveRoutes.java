package org.sipcrypt.server.sip.proxy;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The routing configuration in force: the static routes ({@link RouteTable}: {@code route},
 * {@code defaultRoute}) and the destination sets they name ({@link DestinationSets}: {@code destination}),
 * taken at start, replaced together by a reload ({@code POST /admin/routes/reload}) once the new ones
 * have been built and checked. A request reads them once ({@link #current}) and keeps what it read, so
 * it never sees half of an old configuration and half of a new one, nor a route naming a set that the
 * sets it reads lack. Whatever else routing comes to read from the configuration file belongs in
 * {@link InForce}, so that one reload swaps it all.
 * Threading: thread-safe; never blocks (one volatile read per request).
 */
public final class LiveRoutes {

    /**
     * The routes and the destination sets in force together.
     * Threading: immutable (but for the destinations' own state).
     */
    public record InForce(RouteTable table, DestinationSets sets) {
        public InForce {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(sets, "sets");
        }
    }

    private final AtomicReference<InForce> current;

    public LiveRoutes(RouteTable table, DestinationSets sets) {
        this.current = new AtomicReference<>(new InForce(table, sets));
    }

    /** The routes and sets in force now. */
    public InForce current() {
        return current.get();
    }

    /** Puts {@code next} in force for every request from now on; returns what it replaces. */
    public InForce replace(InForce next) {
        return current.getAndSet(Objects.requireNonNull(next, "next"));
    }
}
