package org.sipcrypt.server.location;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * The location service (RFC 3261 §10.2): bindings of addresses-of-record to contacts. Every call
 * returns at once; the work runs elsewhere and the future completes on the service's own threads,
 * exceptionally (with the cause kept) when the store fails or is overloaded.
 * Threading: thread-safe; never blocks.
 */
public interface LocationService extends AutoCloseable {

    /** Applies one REGISTER's changes atomically and reports the AOR's bindings afterwards. */
    CompletableFuture<RegisterOutcome> register(RegisterChange change);

    /** Whether the AOR is known, and its bindings live at {@code now}. */
    CompletableFuture<LookupResult> lookup(String aor, Instant now);

    /** Deletes bindings that lapsed before {@code now}; completes with how many. */
    CompletableFuture<Integer> purgeExpired(Instant now);

    /** Stops accepting work and releases the store. */
    @Override
    void close();
}
