package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.location.Locations.RECEIVED;
import static org.sipcrypt.server.location.Locations.T0;
import static org.sipcrypt.server.location.Locations.contact;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The location cache in front of the real JDBC location service on an embedded H2 database: what
 * it answers from memory, and that it never answers bindings a completed REGISTER replaced, a
 * lapsed binding, or an answer read while a REGISTER was under way.
 */
@Timeout(30)
class CachedLocationServiceTest {

    private static final String ALICE = "sip:alice@example.com";
    private static final String BOB = "sip:bob@example.com";

    @TempDir
    Path dir;

    private Database db;
    private CachedLocationService cache;

    @BeforeEach
    void open() throws SQLException {
        db = Locations.open(dir);
        cache = new CachedLocationService(new JdbcLocationService(db, 4, 1_000), 100);
    }

    /** Closes the cache and the JDBC store behind it, then the database. */
    @AfterEach
    void close() {
        cache.close();
        db.close();
    }

    @Test
    void aSecondLookupIsAnsweredFromMemoryWithTheSameBindings() throws Exception {
        register(cache, ALICE, "cid-1", 1, T0, "sip:alice@192.0.2.1", 3600);
        LookupResult first = lookup(ALICE, T0.plusSeconds(1));
        LookupResult second = lookup(ALICE, T0.plusSeconds(2));

        assertEquals(List.of("sip:alice@192.0.2.1"), contacts(first));
        assertEquals(first, second);
        assertEquals(1, cache.misses());
        assertEquals(1, cache.hits());
        assertEquals(cache.store().lookup(ALICE, T0.plusSeconds(2)).get(10, TimeUnit.SECONDS), second, "the store agrees");
    }

    @Test
    void unknownAddressesAreKeptToo() throws Exception {
        assertFalse(lookup(BOB, T0).known());
        assertFalse(lookup(BOB, T0).known());
        assertEquals(1, cache.hits());

        register(cache, BOB, "cid-b", 1, T0, "sip:bob@192.0.2.2", 60);
        LookupResult after = lookup(BOB, T0.plusSeconds(1));
        assertTrue(after.known(), "the REGISTER made bob known at once");
        assertEquals(List.of("sip:bob@192.0.2.2"), contacts(after));
    }

    @Test
    void aCompletedRegisterIsSeenByTheNextLookup() throws Exception {
        register(cache, ALICE, "cid-1", 1, T0, "sip:alice@192.0.2.1", 3600);
        assertEquals(List.of("sip:alice@192.0.2.1"), contacts(lookup(ALICE, T0.plusSeconds(1))));

        cache.register(new RegisterChange(ALICE, "cid-1", 2, true, List.of(), RECEIVED, T0.plusSeconds(2)))
                .get(10, TimeUnit.SECONDS);
        register(cache, ALICE, "cid-1", 3, T0.plusSeconds(3), "sip:alice@192.0.2.99", 3600);

        assertEquals(List.of("sip:alice@192.0.2.99"), contacts(lookup(ALICE, T0.plusSeconds(4))));
    }

    @Test
    void anAnswerIsKeptOnlyUntilItsFirstBindingLapses() throws Exception {
        register(cache, ALICE, "cid-1", 1, T0, "sip:alice@192.0.2.1", 60);
        register(cache, ALICE, "cid-2", 1, T0, "sip:alice@192.0.2.2", 3600);
        assertEquals(2, contacts(lookup(ALICE, T0.plusSeconds(1))).size());
        assertEquals(2, contacts(lookup(ALICE, T0.plusSeconds(59))).size());
        assertEquals(1, cache.hits());

        assertEquals(List.of("sip:alice@192.0.2.2"), contacts(lookup(ALICE, T0.plusSeconds(60))),
                "at the lapse the store is asked again");
        assertEquals(2, cache.misses());
    }

    @Test
    void anAnswerReadBeforeARegisterAndReportedAfterItIsNotKept() throws Exception {
        register(cache, ALICE, "cid-1", 1, T0, "sip:alice@192.0.2.1", 3600);
        CompletableFuture<Void> release = new CompletableFuture<>();
        HeldLookups held = new HeldLookups(cache.store(), release, new java.util.concurrent.CopyOnWriteArrayList<>());
        CachedLocationService gated = new CachedLocationService(held, 100);

        // the lookup reads the old binding first, but its answer is reported only after the REGISTER
        // that replaces the binding has completed: it must not be kept
        CompletableFuture<LookupResult> stale = gated.lookup(ALICE, T0.plusSeconds(1));
        // the store's read done before the REGISTER starts (both run on the store's pool, in any order)
        held.reads().get(0).get(10, TimeUnit.SECONDS);
        gated.register(new RegisterChange(ALICE, "cid-1", 2, true, List.of(), RECEIVED, T0.plusSeconds(2)))
                .get(10, TimeUnit.SECONDS);
        register(gated, ALICE, "cid-1", 3, T0.plusSeconds(3), "sip:alice@192.0.2.7", 3600);
        release.complete(null);
        assertEquals(List.of("sip:alice@192.0.2.1"), contacts(stale.get(10, TimeUnit.SECONDS)));

        CompletableFuture<LookupResult> next = gated.lookup(ALICE, T0.plusSeconds(4));
        assertEquals(List.of("sip:alice@192.0.2.7"), contacts(next.get(10, TimeUnit.SECONDS)));
        assertEquals(0, gated.hits());
    }

    @Test
    void atMostMaxEntriesAddressesAreKept() throws Exception {
        CachedLocationService small = new CachedLocationService(cache.store(), 1);
        for (int i = 0; i < 50; i++) {
            small.lookup("sip:u" + i + "@example.com", T0).get(10, TimeUnit.SECONDS);
        }
        small.lookup("sip:u0@example.com", T0).get(10, TimeUnit.SECONDS);
        assertEquals(51, small.misses() + small.hits());
        assertTrue(small.misses() >= 50, "an evicted address goes to the store again: " + small.misses());
    }

    private LookupResult lookup(String aor, Instant now) throws Exception {
        return cache.lookup(aor, now).get(10, TimeUnit.SECONDS);
    }

    private static void register(LocationService service, String aor, String callId, long cseq, Instant now,
                                 String contact, long seconds) throws Exception {
        Locations.register(service, aor, callId, cseq, RECEIVED, now, contact(contact, seconds));
    }

    private static List<String> contacts(LookupResult r) {
        return r.bindings().stream().map(Binding::contact).toList();
    }

    /**
     * The real store, with the answer of every lookup begun before {@code release} completes held
     * until then: the lookup has read the database, but not yet reported, as on a slow database thread.
     */
    /** The store, with every lookup's answer held until {@code release}; {@code reads} are the store's own answers. */
    private record HeldLookups(LocationService store, CompletableFuture<Void> release,
                               List<CompletableFuture<LookupResult>> reads) implements LocationService {
        @Override
        public CompletableFuture<RegisterOutcome> register(RegisterChange change) {
            return store.register(change);
        }

        @Override
        public CompletableFuture<LookupResult> lookup(String aor, Instant now) {
            CompletableFuture<LookupResult> read = store.lookup(aor, now);
            reads.add(read);
            return read.thenCombine(release, (result, released) -> result);
        }

        @Override
        public CompletableFuture<Integer> purgeExpired(Instant now) {
            return store.purgeExpired(now);
        }

        @Override
        public void close() {
            // the test closes the store
        }
    }
}
