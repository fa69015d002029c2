package org.sipcrypt.lab.runner;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The processes the lab started (servers under test, generator processes), stopped when the lab's
 * JVM exits for any reason (the end of {@code main}, Ctrl-C, a kill) so that none outlives it and
 * keeps loading the machine or holding ports.
 * Threading: thread-safe.
 */
final class ChildProcesses {

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::stopAll, "lab-children-stop"));
    }

    private ChildProcesses() {
    }

    /** Tracks a process until {@link #forget} (or the JVM's exit, which stops it). */
    static Process track(Process p) {
        LIVE.add(p);
        return p;
    }

    /** Stops tracking a process, once it is stopped or stopping. */
    static void forget(Process p) {
        LIVE.remove(p);
    }

    /** Asks every tracked process to stop, then kills those still alive after 5 s. */
    private static void stopAll() {
        List<Process> all = List.copyOf(LIVE);
        all.forEach(Process::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Process p : all) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
    }
}
