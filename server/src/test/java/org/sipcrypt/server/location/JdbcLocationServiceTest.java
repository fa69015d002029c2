package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.location.Locations.RECEIVED;
import static org.sipcrypt.server.location.Locations.T0;
import static org.sipcrypt.server.location.Locations.contact;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class JdbcLocationServiceTest {

    private static final String ALICE = "sip:alice@example.com";

    @TempDir
    Path dir;

    private Database db;
    private JdbcLocationService locations;

    @BeforeEach
    void open() throws SQLException {
        db = Locations.open(dir);
        locations = new JdbcLocationService(db, 4, 1_000);
    }

    @AfterEach
    void close() {
        locations.close();
        db.close();
    }

    // ---- adding and refreshing ----------------------------------------------------------------

    @Test
    void bindingKeepsItsFlowNatAndOutboundInstance() throws Exception {
        String flow = "tls 127.0.0.1:5061 192.0.2.7:40312 42";
        String instance = "<urn:uuid:00000000-0000-1000-8000-000000000001>";
        RegisterChange change = new RegisterChange(ALICE, "cid-1", 1, false, List.of(new ContactChange(
                "sip:alice@10.0.0.7:5060", "sip:alice@10.0.0.7:5060", Duration.ofSeconds(600), -1f, true,
                instance, 1)), RECEIVED, T0, flow);
        Binding b = applied(locations.register(change).get(30, TimeUnit.SECONDS)).get(0);
        assertEquals(flow, b.flow());
        assertTrue(b.nat());
        assertTrue(b.outbound());
        assertEquals(instance, b.instance());
        assertEquals(1, b.regId());
        assertEquals(List.of(b), lookup(ALICE, T0.plusSeconds(1)).bindings());
    }

    @Test
    void sameInstanceAndRegIdReplaceEachOther() throws Exception {
        String instance = "<urn:uuid:00000000-0000-1000-8000-000000000002>";
        ContactChange first = new ContactChange("sip:alice@10.0.0.7:5060", "sip:alice@10.0.0.7:5060",
                Duration.ofSeconds(600), -1f, true, instance, 1);
        ContactChange otherFlow = new ContactChange("sip:alice@10.0.0.8:5060", "sip:alice@10.0.0.8:5060",
                Duration.ofSeconds(600), -1f, true, instance, 2);
        ContactChange moved = new ContactChange("sip:alice@10.0.0.9:5060", "sip:alice@10.0.0.9:5060",
                Duration.ofSeconds(600), -1f, true, instance, 1);
        applied(register(ALICE, "cid-1", 1, T0, first, otherFlow));
        List<Binding> after = applied(register(ALICE, "cid-2", 1, T0.plusSeconds(5), moved));
        // RFC 5626 §6: reg-id 1 of the instance moved to a new contact; reg-id 2 stays
        assertEquals(Set.of("sip:alice@10.0.0.8:5060", "sip:alice@10.0.0.9:5060"),
                after.stream().map(Binding::contactKey).collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void registerAddsOneBinding() throws Exception {
        List<Binding> bindings = applied(register(ALICE, "cid-1", 1, T0,
                new ContactChange("sip:alice@192.0.2.1", "<sip:alice@192.0.2.1;transport=udp>",
                        Duration.ofSeconds(3600), 0.7f)));

        assertEquals(1, bindings.size());
        Binding b = bindings.get(0);
        assertEquals(ALICE, b.aor());
        assertEquals("sip:alice@192.0.2.1", b.contactKey());
        assertEquals("<sip:alice@192.0.2.1;transport=udp>", b.contact());
        assertEquals(T0.plusSeconds(3600), b.expiresAt());
        assertEquals("cid-1", b.callId());
        assertEquals(1, b.cseq());
        assertEquals(0.7f, b.q());
        assertEquals(RECEIVED, b.received());
        assertEquals(bindings, lookup(ALICE, T0.plusSeconds(1)).bindings());
    }

    @Test
    void severalContactsPerAorAreKept() throws Exception {
        applied(register(ALICE, "cid-desk", 1, T0, contact("sip:desk@192.0.2.1", 3600)));
        applied(register(ALICE, "cid-phone", 1, T0, contact("sip:phone@192.0.2.2", 3600),
                contact("sip:tablet@192.0.2.3", 600)));

        assertEquals(Set.of("sip:desk@192.0.2.1", "sip:phone@192.0.2.2", "sip:tablet@192.0.2.3"),
                keys(lookup(ALICE, T0.plusSeconds(1)).bindings()));
    }

    @Test
    void refreshWithHigherCseqOfSameCallIdExtendsExpiry() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:alice@192.0.2.1", 60)));
        Instant later = T0.plusSeconds(50);
        List<Binding> bindings = applied(register(ALICE, "cid-1", 2, later, contact("sip:alice@192.0.2.1", 60)));

        assertEquals(1, bindings.size());
        assertEquals(later.plusSeconds(60), bindings.get(0).expiresAt());
        assertEquals(2, bindings.get(0).cseq());
        assertEquals(1, lookup(ALICE, T0.plusSeconds(100)).bindings().size());
    }

    @Test
    void sameCallIdWithCseqNotHigherIsOutOfOrderAndChangesNothing() throws Exception {
        List<Binding> before = applied(register(ALICE, "cid-1", 5, T0, contact("sip:alice@192.0.2.1", 60)));

        for (long cseq : new long[] {5, 4}) {
            RegisterOutcome outcome = register(ALICE, "cid-1", cseq, T0.plusSeconds(10),
                    contact("sip:new@192.0.2.9", 3600),
                    new ContactChange("sip:alice@192.0.2.1", "<sip:alice@192.0.2.1>", Duration.ofSeconds(7200), -1f));

            assertEquals(new RegisterOutcome.OutOfOrder("<sip:alice@192.0.2.1>", 5), outcome);
            assertEquals(before, lookup(ALICE, T0.plusSeconds(10)).bindings(), "cseq " + cseq);
        }
    }

    @Test
    void differentCallIdUpdatesTheBindingWhateverItsCseq() throws Exception {
        applied(register(ALICE, "cid-1", 100, T0, contact("sip:alice@192.0.2.1", 60)));
        List<Binding> bindings = applied(register(ALICE, "cid-2", 1, T0.plusSeconds(10),
                new ContactChange("sip:alice@192.0.2.1", "<sip:alice@192.0.2.1>", Duration.ofSeconds(120), 0.3f)));

        assertEquals(1, bindings.size());
        Binding b = bindings.get(0);
        assertEquals("cid-2", b.callId());
        assertEquals(1, b.cseq());
        assertEquals(0.3f, b.q());
        assertEquals("<sip:alice@192.0.2.1>", b.contact());
        assertEquals(T0.plusSeconds(130), b.expiresAt());
    }

    // ---- removing ---------------------------------------------------------------------------

    @Test
    void expiresZeroRemovesBinding() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 60), contact("sip:b@192.0.2.2", 60)));
        List<Binding> bindings = applied(register(ALICE, "cid-2", 1, T0.plusSeconds(1), contact("sip:a@192.0.2.1", 0)));

        assertEquals(Set.of("sip:b@192.0.2.2"), keys(bindings));
        assertEquals(Set.of("sip:b@192.0.2.2"), keys(lookup(ALICE, T0.plusSeconds(2)).bindings()));
    }

    @Test
    void expiresZeroForAnAbsentBindingDoesNothing() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 60)));
        List<Binding> bindings = applied(register(ALICE, "cid-1", 2, T0.plusSeconds(1), contact("sip:zz@192.0.2.9", 0)));

        assertEquals(Set.of("sip:a@192.0.2.1"), keys(bindings));
    }

    @Test
    void contactStarRemovesBindingsOfOtherCallIdsAndOfSameCallIdWithLowerCseq() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 60)));
        applied(register(ALICE, "cid-2", 7, T0, contact("sip:b@192.0.2.2", 60)));

        RegisterOutcome outcome = locations.register(new RegisterChange(ALICE, "cid-2", 8, true, List.of(),
                RECEIVED, T0.plusSeconds(1))).get(10, TimeUnit.SECONDS);

        assertEquals(List.of(), applied(outcome));
        LookupResult after = lookup(ALICE, T0.plusSeconds(2));
        assertTrue(after.known());
        assertEquals(List.of(), after.bindings());
    }

    @Test
    void contactStarWithSameCallIdAndCseqNotHigherIsOutOfOrderAndRemovesNothing() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 60)));
        List<Binding> before = applied(register(ALICE, "cid-2", 7, T0, contact("sip:b@192.0.2.2", 60)));

        RegisterOutcome outcome = locations.register(new RegisterChange(ALICE, "cid-2", 7, true, List.of(),
                RECEIVED, T0.plusSeconds(1))).get(10, TimeUnit.SECONDS);

        assertEquals(new RegisterOutcome.OutOfOrder("sip:b@192.0.2.2", 7), outcome);
        assertEquals(before, lookup(ALICE, T0.plusSeconds(1)).bindings());
    }

    // ---- lapsed bindings --------------------------------------------------------------------

    @Test
    void lapsedBindingsAreNotReturnedAndArePurged() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:short@192.0.2.1", 10), contact("sip:long@192.0.2.2", 100)));
        applied(register("sip:bob@example.com", "cid-9", 1, T0, contact("sip:bob@192.0.2.3", 10)));

        assertEquals(Set.of("sip:long@192.0.2.2"), keys(lookup(ALICE, T0.plusSeconds(10)).bindings()));
        assertEquals(2, locations.purgeExpired(T0.plusSeconds(10)).get(10, TimeUnit.SECONDS));
        assertEquals(0, locations.purgeExpired(T0.plusSeconds(10)).get(10, TimeUnit.SECONDS));
        assertEquals(Set.of("sip:long@192.0.2.2"), keys(lookup(ALICE, T0.plusSeconds(10)).bindings()));
        // Purging never forgets the AOR: bob is known, with no binding (480 rather than 404).
        assertEquals(new LookupResult(true, List.of()), lookup("sip:bob@example.com", T0.plusSeconds(10)));
    }

    @Test
    void lapsedBindingCountsAsAbsentForCseqRules() throws Exception {
        applied(register(ALICE, "cid-1", 10, T0, contact("sip:a@192.0.2.1", 10)));

        List<Binding> bindings = applied(register(ALICE, "cid-1", 3, T0.plusSeconds(20), contact("sip:a@192.0.2.1", 60)));

        assertEquals(1, bindings.size());
        assertEquals(3, bindings.get(0).cseq());
        assertEquals(T0.plusSeconds(80), bindings.get(0).expiresAt());
    }

    @Test
    void registerReturnsOnlyLiveBindingsAndDeletesLapsedOnes() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 10)));

        List<Binding> bindings = applied(register(ALICE, "cid-2", 1, T0.plusSeconds(20), contact("sip:b@192.0.2.2", 60)));

        assertEquals(Set.of("sip:b@192.0.2.2"), keys(bindings));
        assertEquals(0, locations.purgeExpired(T0.plusSeconds(20)).get(10, TimeUnit.SECONDS));
    }

    // ---- lookup -----------------------------------------------------------------------------

    @Test
    void lookupOfUnknownAorIsNotKnown() throws Exception {
        assertEquals(new LookupResult(false, List.of()), lookup("sip:nobody@example.com", T0));
    }

    @Test
    void aorWhoseBindingsWereAllRemovedIsKnownWithoutBindings() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 60)));
        applied(register(ALICE, "cid-1", 2, T0.plusSeconds(1), contact("sip:a@192.0.2.1", 0)));

        assertEquals(new LookupResult(true, List.of()), lookup(ALICE, T0.plusSeconds(2)));
    }

    @Test
    void bindingsAreOrderedByQThenMostRecentlyWritten() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0,
                new ContactChange("sip:low@h", "sip:low@h", Duration.ofSeconds(600), 0.1f),
                new ContactChange("sip:none@h", "sip:none@h", Duration.ofSeconds(600), -1f),
                new ContactChange("sip:old@h", "sip:old@h", Duration.ofSeconds(600), 0.5f)));
        List<Binding> afterRegister = applied(register(ALICE, "cid-2", 1, T0.plusSeconds(5),
                new ContactChange("sip:high@h", "sip:high@h", Duration.ofSeconds(600), 1.0f),
                new ContactChange("sip:new@h", "sip:new@h", Duration.ofSeconds(600), 0.5f)));

        List<String> expected = List.of("sip:high@h", "sip:new@h", "sip:old@h", "sip:low@h", "sip:none@h");
        assertEquals(expected, afterRegister.stream().map(Binding::contactKey).toList());
        assertEquals(expected, lookup(ALICE, T0.plusSeconds(6)).bindings().stream().map(Binding::contactKey).toList());
    }

    // ---- concurrency and failure ------------------------------------------------------------

    @Test
    @Timeout(120)
    void concurrentRegistersOfOneAorLoseNoUpdates() throws Exception {
        int clients = 8;
        int registersEach = 50;
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients,
                r -> new Thread(r, "test-client-" + next.getAndIncrement()));
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                int client = t;
                done.add(pool.submit(() -> {
                    start.await();
                    int applied = 0;
                    for (int i = 0; i < registersEach; i++) {
                        RegisterOutcome o = register(ALICE, "cid-" + client, i + 1, T0.plusMillis(i),
                                contact("sip:c" + client + "-" + i + "@192.0.2.1", 3600));
                        if (o instanceof RegisterOutcome.Applied) {
                            applied++;
                        }
                    }
                    return applied;
                }));
            }
            start.countDown();
            for (Future<Integer> f : done) {
                assertEquals(registersEach, f.get(100, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }

        LookupResult result = lookup(ALICE, T0.plusSeconds(1));
        assertEquals(clients * registersEach, result.bindings().size());
        assertEquals(clients * registersEach, keys(result.bindings()).size());
    }

    @Test
    void closedDatabaseCompletesFuturesExceptionallyInsteadOfHanging() {
        db.close();

        List<CompletableFuture<?>> calls = List.of(
                locations.register(new RegisterChange(ALICE, "cid-1", 1, false,
                        List.of(contact("sip:a@192.0.2.1", 60)), RECEIVED, T0)),
                locations.lookup(ALICE, T0),
                locations.purgeExpired(T0));
        for (CompletableFuture<?> call : calls) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(20, TimeUnit.SECONDS));
            assertInstanceOf(SQLException.class, e.getCause());
        }
    }

    @Test
    @Timeout(60)
    void fullQueueRejectsAtOnceWithRejectedExecutionException() throws Exception {
        applied(register(ALICE, "cid-1", 1, T0, contact("sip:a@192.0.2.1", 60)));
        List<CompletableFuture<?>> accepted = new ArrayList<>();
        try (JdbcLocationService tiny = new JdbcLocationService(db, 1, 1);
             Connection blocker = db.dataSource().getConnection()) {
            // Hold the AOR's row lock so the single sipcrypt-db thread waits inside register.
            blocker.setAutoCommit(false);
            try (PreparedStatement ps = blocker.prepareStatement(
                    "UPDATE aors SET last_registered = last_registered WHERE aor = ?")) {
                ps.setString(1, ALICE);
                assertEquals(1, ps.executeUpdate());
            }
            accepted.add(tiny.register(new RegisterChange(ALICE, "cid-1", 2, false,
                    List.of(contact("sip:b@192.0.2.2", 60)), RECEIVED, T0)));
            CompletableFuture<LookupResult> rejected = null;
            for (int i = 0; i < 3 && rejected == null; i++) {
                CompletableFuture<LookupResult> f = tiny.lookup(ALICE, T0);
                if (f.isCompletedExceptionally()) {
                    rejected = f;
                } else {
                    accepted.add(f);
                }
            }
            assertNotNull(rejected, "one of three calls beyond a queue of one must be refused");
            CompletableFuture<LookupResult> refused = rejected;
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(1, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, e.getCause());

            blocker.rollback();
            for (CompletableFuture<?> f : accepted) {
                assertNotNull(f.get(30, TimeUnit.SECONDS));
            }
        }
        assertEquals(Set.of("sip:a@192.0.2.1", "sip:b@192.0.2.2"), keys(lookup(ALICE, T0).bindings()));
    }

    @Test
    void closedServiceRefusesWorkButLeavesTheDatabaseOpen() throws Exception {
        locations.close();

        ExecutionException e = assertThrows(ExecutionException.class,
                () -> locations.lookup(ALICE, T0).get(1, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, e.getCause());
        try (Connection c = db.dataSource().getConnection()) {
            assertFalse(c.isClosed());
        }
    }

    @Test
    void jdbcRunsOnNamedDbThreads() throws Exception {
        lookup(ALICE, T0);

        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith("sipcrypt-db-")), "a sipcrypt-db-N thread");
    }

    // ---- helpers ----------------------------------------------------------------------------

    // ---- bounded state ----------------------------------------------------------------------

    @Test
    void bindingBeyondMaxContactsIsRefusedAndNothingOfThatRequestIsWritten() throws Exception {
        try (JdbcLocationService bounded = new JdbcLocationService(db, 2, 100, 2, 100)) {
            applied(Locations.register(bounded, ALICE, "c", 1, RECEIVED, T0,
                    contact("sip:a1@192.0.2.1", 60), contact("sip:a2@192.0.2.1", 60)));

            RegisterOutcome third = Locations.register(bounded, ALICE, "c", 2, RECEIVED, T0,
                    contact("sip:a1@192.0.2.1", 120), contact("sip:a3@192.0.2.1", 60));

            assertEquals(new RegisterOutcome.TooManyContacts(2), third);
            List<Binding> kept = bounded.lookup(ALICE, T0).get(5, TimeUnit.SECONDS).bindings();
            assertEquals(Set.of("sip:a1@192.0.2.1", "sip:a2@192.0.2.1"), keys(kept));
            assertEquals(T0.plusSeconds(60), kept.get(0).expiresAt(), "the refresh in the refused request was not applied");
        }
    }

    @Test
    void bindingBeyondMaxBindingsIsRefusedWhileRemovalsPass() throws Exception {
        try (JdbcLocationService bounded = new JdbcLocationService(db, 2, 100, 5, 2)) {
            applied(Locations.register(bounded, ALICE, "c", 1, RECEIVED, T0,
                    contact("sip:a1@192.0.2.1", 60), contact("sip:a2@192.0.2.1", 60)));
            RegisterOutcome bob = Locations.register(bounded, "sip:bob@example.org", "b", 1, "udp:192.0.2.2:5060", T0,
                    contact("sip:b@192.0.2.2", 60));
            assertEquals(new RegisterOutcome.Full(2), bob);

            applied(Locations.register(bounded, ALICE, "c", 2, RECEIVED, T0, contact("sip:a1@192.0.2.1", 0)));
            applied(Locations.register(bounded, "sip:bob@example.org", "b", 2, "udp:192.0.2.2:5060", T0,
                    contact("sip:b@192.0.2.2", 60)));
        }
    }

    private RegisterOutcome register(String aor, String callId, long cseq, Instant now, ContactChange... contacts)
            throws Exception {
        return Locations.register(locations, aor, callId, cseq, RECEIVED, now, contacts);
    }

    private LookupResult lookup(String aor, Instant now) throws Exception {
        return locations.lookup(aor, now).get(10, TimeUnit.SECONDS);
    }

    private static List<Binding> applied(RegisterOutcome outcome) {
        return assertInstanceOf(RegisterOutcome.Applied.class, outcome).bindings();
    }

    private static Set<String> keys(List<Binding> bindings) {
        Set<String> keys = new HashSet<>();
        for (Binding b : bindings) {
            keys.add(b.contactKey());
        }
        return keys;
    }
}
