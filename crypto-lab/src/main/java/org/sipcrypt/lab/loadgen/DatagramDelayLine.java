package org.sipcrypt.lab.loadgen;

import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lab delay stage of a UDP socket ({@link UdpEndpoint}): each datagram sent and each received
 * waits for the one-way delay D on one thread of its own, then is sent or passed on, in the order it
 * was handed in (one queue for both directions; every entry waits the same D, so the queue is in
 * order of its times). What is held is bounded by {@link #MAX_HELD_BYTES}: a datagram that would pass
 * it is dropped, as a router's full queue drops it, with a WARN at the first and the count at close.
 * Threading: thread-safe; {@link #hold} never blocks; the actions run on the line's own thread.
 */
final class DatagramDelayLine implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(DatagramDelayLine.class);

    /** Bytes held at most, both directions together. */
    static final int MAX_HELD_BYTES = 8 << 20;

    private record Held(long due, int bytes, Runnable action) {
    }

    private final long delayNanos;
    private final String name;
    private final ArrayDeque<Held> queue = new ArrayDeque<>();
    private final LongAdder dropped = new LongAdder();
    private long heldBytes;
    private boolean closed;
    private boolean warned;

    /** Starts the line's thread, named {@code name}. */
    DatagramDelayLine(Duration delay, String name) {
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay: " + delay + " (expected more than 0)");
        }
        this.delayNanos = delay.toNanos();
        this.name = name;
        NamedThreads.named(name).start(this::run);
    }

    /**
     * Runs {@code action} (a send, or passing a received datagram on) D from now.
     *
     * @return false when the datagram was dropped: the line holds too much, or it is closed
     */
    boolean hold(int bytes, Runnable action) {
        synchronized (queue) {
            if (closed || heldBytes + bytes > MAX_HELD_BYTES) {
                if (closed) {
                    return false;
                }
                if (!warned) {
                    warned = true;
                    log.warn("{}: more than {} bytes held, datagrams dropped", name, MAX_HELD_BYTES);
                }
                dropped.increment();
                return false;
            }
            heldBytes += bytes;
            queue.add(new Held(System.nanoTime() + delayNanos, bytes, action));
            if (queue.size() == 1) {
                queue.notifyAll();
            }
            return true;
        }
    }

    private void run() {
        while (true) {
            Held h;
            synchronized (queue) {
                while (!closed && (queue.isEmpty() || queue.peek().due > System.nanoTime())) {
                    try {
                        if (queue.isEmpty()) {
                            queue.wait();
                        } else {
                            long wait = queue.peek().due - System.nanoTime();
                            TimeUnit.NANOSECONDS.timedWait(queue, Math.max(1, wait));
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                h = queue.poll();
                heldBytes -= h.bytes;
            }
            try {
                h.action.run();
            } catch (RuntimeException e) {
                log.warn("{}: a held datagram failed: {}", name, e.toString());
            }
        }
    }

    /** Stops the line; what it still holds is dropped (the socket closes with it). */
    @Override
    public void close() {
        synchronized (queue) {
            closed = true;
            queue.clear();
            queue.notifyAll();
        }
        if (dropped.sum() > 0) {
            log.warn("{}: {} datagrams dropped while more than {} bytes were held", name, dropped.sum(), MAX_HELD_BYTES);
        }
    }
}
