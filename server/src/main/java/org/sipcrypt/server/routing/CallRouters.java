package org.sipcrypt.server.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * The routers chosen by {@code routing.router}, found with {@link ServiceLoader} (as the cipher-suite
 * providers are) and started, in the order given. A name that no router on the class path reports, two
 * routers reporting one name, or a router whose {@link CallRouter#start} fails, fail the server's start
 * with a message naming the router.
 * Threading: immutable once loaded; {@link #close} once, at shutdown.
 */
public final class CallRouters implements AutoCloseable {

    private final List<CallRouter> routers;

    private CallRouters(List<CallRouter> routers) {
        this.routers = List.copyOf(routers);
    }

    /**
     * Finds the routers named {@code names} on {@code loader}'s class path and starts each with
     * {@code context}; those started already are closed again when a later one fails.
     *
     * @throws IllegalStateException naming the router that is missing, given twice or failed to start
     */
    public static CallRouters load(List<String> names, ClassLoader loader, RouterContext context) {
        Objects.requireNonNull(names, "names");
        Objects.requireNonNull(context, "context");
        Map<String, CallRouter> found = new LinkedHashMap<>();
        if (!names.isEmpty()) {
            for (CallRouter r : ServiceLoader.load(CallRouter.class, loader)) {
                CallRouter twin = found.putIfAbsent(r.name(), r);
                if (twin != null && names.contains(r.name())) {
                    throw new IllegalStateException("routing.router: two routers on the class path are named \""
                            + r.name() + "\": " + twin.getClass().getName() + " and " + r.getClass().getName());
                }
            }
        }
        List<CallRouter> chosen = new ArrayList<>(names.size());
        for (String name : names) {
            CallRouter r = found.get(name);
            if (r == null) {
                throw new IllegalStateException("routing.router: no router named \"" + name
                        + "\" on the class path (found: " + (found.isEmpty() ? "none" : String.join(", ",
                        new TreeSet<>(found.keySet()))) + "); a router's jar goes on the class path"
                        + " (java -cp) or in the WAR's WEB-INF/lib, with META-INF/services/" + CallRouter.class.getName());
            }
            chosen.add(r);
        }
        List<CallRouter> started = new ArrayList<>(chosen.size());
        for (CallRouter r : chosen) {
            try {
                r.start(context);
                started.add(r);
            } catch (Exception e) {
                IllegalStateException failed = new IllegalStateException("routing.router: router \"" + r.name()
                        + "\" failed to start: " + e.getMessage(), e);
                closeAll(started, failed);
                throw failed;
            }
        }
        return new CallRouters(started);
    }

    /** The routers, in the order they run. */
    public List<CallRouter> routers() {
        return routers;
    }

    /** The routers' names, in the order they run. */
    public List<String> names() {
        return routers.stream().map(CallRouter::name).toList();
    }

    /** Closes every router, the last first; a failure to close is added to the one thrown at the end. */
    @Override
    public void close() {
        IllegalStateException failed = new IllegalStateException("routing.router: closing routers failed");
        closeAll(routers, failed);
        if (failed.getSuppressed().length > 0) {
            throw failed;
        }
    }

    private static void closeAll(List<CallRouter> routers, Exception into) {
        for (int i = routers.size() - 1; i >= 0; i--) {
            try {
                routers.get(i).close();
            } catch (Exception e) {
                into.addSuppressed(e);
            }
        }
    }
}
