package org.sipcrypt.server.sip;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.sip.ServerTransaction;

/**
 * The timer {@code sip.transaction.duration}: how long each server transaction took, from the
 * request's arrival at the application to its final response (or to the transaction's end when it
 * ended unanswered). Holds one start time per unanswered server transaction.
 * Threading: thread-safe; never blocks.
 */
public final class TransactionTimes {

    private final Map<ServerTransaction, Long> started = new ConcurrentHashMap<>();
    private final Timer timer;

    public TransactionTimes(MeterRegistry registry) {
        timer = Timer.builder("sip.transaction.duration")
                .description("server transaction time, request to final response")
                .register(Objects.requireNonNull(registry, "registry"));
    }

    /** A server transaction began. */
    public void start(ServerTransaction st) {
        started.put(st, System.nanoTime());
    }

    /** A server transaction was answered or ended; one not seen starting, or already timed, is ignored. */
    public void end(ServerTransaction st) {
        Long start = started.remove(st);
        if (start != null) {
            timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }
}
