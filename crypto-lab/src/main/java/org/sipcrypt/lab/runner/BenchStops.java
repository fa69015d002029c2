package org.sipcrypt.lab.runner;

import java.util.ArrayList;
import java.util.List;
import org.sipcrypt.server.concurrent.NamedThreads;

/**
 * Benches being closed in the background: a bench measured and done with is closed on a thread of
 * its own ({@code lab-bench-stop-N}) while the runner starts the next one, and the runner waits for
 * every such close before it warms a bench up or measures, so that no stopping server shares the
 * machine with a warm-up or a measured window. A server's stop (its drain, the SIP stack, the
 * database) takes a second or more, and a fresh server per point or per ramp paid it each time
 * before the next start could begin.
 * Threading: one owner thread (the runner's); the closes run on threads of their own.
 */
final class BenchStops implements AutoCloseable {

    private final NamedThreads threads = NamedThreads.numbered("lab-bench-stop");
    private final List<Thread> stopping = new ArrayList<>();

    /** Closes {@code b} on a thread of its own; {@link #awaitAll} waits for it. */
    void closeLater(Bench b) {
        stopping.add(threads.start(b::close));
    }

    /** Returns once every bench handed to {@link #closeLater} is closed. */
    void awaitAll() throws InterruptedException {
        for (Thread t : stopping) {
            t.join();
        }
        stopping.clear();
    }

    /**
     * Waits for every close, also when interrupted (each ends by itself: a server that does not stop
     * is killed after 20 s), and keeps the interruption for the caller.
     */
    @Override
    public void close() {
        boolean interrupted = false;
        for (Thread t : stopping) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        stopping.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
