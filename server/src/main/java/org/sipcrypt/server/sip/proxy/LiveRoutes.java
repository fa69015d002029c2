package org.sipcrypt.server.sip.proxy;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The routing configuration in force: the static routes ({@link RouteTable}: {@code route},
 * {@code defaultRoute}) taken at start, replaced whole by a reload ({@code POST /admin/routes/reload})
 * once the new table has been built and checked. A request reads the table once and keeps it, so it
 * never sees half of an old table and half of a new one. Whatever else routing comes to read from the
 * configuration file belongs in the table this holds, so that one reload swaps it all.
 * Threading: thread-safe; never blocks (one volatile read per request).
 */
public final class LiveRoutes {

    private final AtomicReference<RouteTable> table;

    public LiveRoutes(RouteTable initial) {
        this.table = new AtomicReference<>(Objects.requireNonNull(initial, "initial"));
    }

    /** The table in force now. */
    public RouteTable current() {
        return table.get();
    }

    /** Puts {@code next} in force for every request from now on; returns the table it replaces. */
    public RouteTable replace(RouteTable next) {
        return table.getAndSet(Objects.requireNonNull(next, "next"));
    }
}
