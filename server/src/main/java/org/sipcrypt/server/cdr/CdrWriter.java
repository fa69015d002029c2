package org.sipcrypt.server.cdr;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands finished call records from the SIP path to a {@link CdrSink}: a bounded queue
 * ({@code cdr.queueSize}) that {@link #offer} never waits on, drained by one thread
 * ({@code sipcrypt-cdr}) in batches of up to {@link #BATCH} records. A record that finds the queue
 * full is dropped; a batch the sink cannot write is lost (a database outage): each counted in
 * {@code cdr.records{result=written|dropped|failed}}, failures logged at most once a minute. Close
 * writes what is queued (for up to {@link #CLOSE_WAIT}) and closes the sink.
 * Threading: {@link #offer} thread-safe and never blocks; the sink runs on the writer thread only.
 */
public final class CdrWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CdrWriter.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);

    /** Most records written in one batch (one transaction, one flush). */
    static final int BATCH = 500;

    /** How long close waits for the queue to be written. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final ArrayBlockingQueue<CallRecord> queue;
    private final CdrSink sink;
    private final Counter written;
    private final Counter dropped;
    private final Counter failed;
    private final Thread thread;
    private volatile boolean closing;

    /** Starts the writer thread. */
    public CdrWriter(CdrSink sink, int queueSize, MeterRegistry registry) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.queue = new ArrayBlockingQueue<>(queueSize);
        this.written = Counter.builder("cdr.records").tag("result", "written").register(registry);
        this.dropped = Counter.builder("cdr.records").tag("result", "dropped").register(registry);
        this.failed = Counter.builder("cdr.records").tag("result", "failed").register(registry);
        Gauge.builder("cdr.queue.size", queue, ArrayBlockingQueue::size).register(registry);
        this.thread = new Thread(this::run, "sipcrypt-cdr");
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a finished record, or drops and counts it when the queue is full. */
    public void offer(CallRecord record) {
        if (closing || !queue.offer(record)) {
            dropped.increment();
        }
    }

    private void run() {
        List<CallRecord> batch = new ArrayList<>(BATCH);
        while (true) {
            try {
                CallRecord first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    if (closing) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                write(batch);
                batch.clear();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void write(List<CallRecord> batch) {
        try {
            sink.write(batch);
            written.increment(batch.size());
        } catch (Exception | LinkageError e) {
            failed.increment(batch.size());
            rateLimited.warn("cdr_write", "call records: {} lost, cannot write them: {}", batch.size(), e.toString());
        }
    }

    @Override
    public void close() throws Exception {
        closing = true;
        thread.join(CLOSE_WAIT.toMillis());
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(CLOSE_WAIT.toMillis());
        }
        int left = queue.size();
        if (left > 0) {
            dropped.increment(left);
            queue.clear();
            log.warn("call records: {} still queued at shutdown dropped", left);
        }
        sink.close();
    }
}
