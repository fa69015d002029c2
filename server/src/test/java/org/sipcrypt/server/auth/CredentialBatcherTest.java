package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SubscriberDatabase;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.DatabaseUnavailableException;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;

@Timeout(30)
class CredentialBatcherTest {

    private static final String REALM = "example.org";

    @TempDir
    Path dir;

    private SubscriberDatabase h2;
    private final MeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void open() throws SQLException {
        List<Subscriber> users = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            users.add(DigestRegistrarIT.subscriber("user" + i, REALM, "pass" + i, true));
        }
        h2 = SubscriberDatabase.open(dir, 4, users);
    }

    @AfterEach
    void close() {
        h2.close();
    }

    private static Optional<Subscriber> get(CompletableFuture<Optional<Subscriber>> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void whileTheBreakerIsOpenLookupsFailAtOnceUnlessCached() throws Exception {
        // a probe interval far beyond the test, so the breaker stays open until the test is done with it
        try (Database probed = Database.open(SubscriberDatabase.url(dir), "sa", "", 2, Duration.ofSeconds(1),
                Duration.ofSeconds(60));
             CredentialBatcher b = new CredentialBatcher(new SubscriberStore(probed.dataSource()), REALM, 1, 1,
                     Duration.ZERO, 1000, 100, Duration.ofMinutes(1), registry, probed.breaker())) {
            assertEquals("user1", get(b.lookup("user1")).orElseThrow().username());
            probed.breaker().failed(new SQLTransientConnectionException("request timed out", "08001"),
                    probed.breaker().now());
            ExecutionException refused = assertThrows(ExecutionException.class, () -> get(b.lookup("user2")));
            assertInstanceOf(DatabaseUnavailableException.class, refused.getCause());
            assertEquals(1, probed.breaker().refused("credentials"));
            assertEquals("user1", get(b.lookup("user1")).orElseThrow().username(), "a cached subscriber is still served");
        }
    }

    @Test
    void lookupsQueuedTogetherGoOutAsOneQuery() throws Exception {
        try (CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 1, 16, Duration.ofSeconds(5), 1000, 0,
                Duration.ofMinutes(1), registry, h2.db().breaker())) {
            List<CompletableFuture<Optional<Subscriber>>> futures = new ArrayList<>();
            for (int i = 1; i <= 16; i++) {
                futures.add(b.lookup("user" + i));
            }
            for (int i = 1; i <= 16; i++) {
                assertEquals("user" + i, get(futures.get(i - 1)).orElseThrow().username());
            }
            // the batch filled long before its 5 s wait ran out: one query of 16 names
            assertEquals(1, registry.get("auth.batch.size").summary().count());
            assertEquals(16.0, registry.get("auth.batch.size").summary().max());
        }
    }

    @Test
    void aLoneLookupIsSentWhenItsWaitRunsOut() throws Exception {
        try (CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 2, 64, Duration.ofMillis(20), 1000, 0,
                Duration.ofMinutes(1), registry, h2.db().breaker())) {
            assertEquals("user7", get(b.lookup("user7")).orElseThrow().username());
            assertEquals(1.0, registry.get("auth.batch.size").summary().max());
        }
    }

    @Test
    void unknownAndOddNamesAreAbsentAndTheTableIsIntact() throws Exception {
        try (CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 1, 4, Duration.ZERO, 1000, 0,
                Duration.ofMinutes(1), registry, h2.db().breaker())) {
            for (String name : List.of("nobody", "x' OR '1'='1", "user1'; DROP TABLE subscribers; --", "\u00e9\u4e2d",
                    "%", "a".repeat(500))) {
                assertFalse(get(b.lookup(name)).isPresent(), name);
            }
            assertEquals(100, h2.store().list(REALM).size());
            assertFalse(get(b.lookup("user1")).isEmpty());
        }
    }

    @Test
    void beyondTheQueueCapacityLookupsFailAtOnce() throws Exception {
        try (CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 1, 100, Duration.ofSeconds(20), 2, 0,
                Duration.ofMinutes(1), registry, h2.db().breaker())) {
            CompletableFuture<Optional<Subscriber>> first = b.lookup("user1");
            b.lookup("user2");
            CompletableFuture<Optional<Subscriber>> third = b.lookup("user3");
            ExecutionException e = assertThrows(ExecutionException.class, () -> third.get(1, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, e.getCause());
            assertEquals(1.0, registry.get("auth.lookups.rejected").counter().count());
            assertFalse(first.isDone(), "still waiting for its batch");
        }
    }

    @Test
    void cacheAnswersRepeatsAndForgetsChangedSubscribers() throws Exception {
        try (CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 1, 1, Duration.ZERO, 1000, 100,
                Duration.ofMinutes(1), registry, h2.db().breaker())) {
            String before = get(b.lookup("user1")).orElseThrow().ha1Md5();
            assertEquals(before, get(b.lookup("user1")).orElseThrow().ha1Md5());
            assertEquals(1.0, registry.get("auth.cache").tag("result", "hit").counter().count());
            h2.store().put(DigestRegistrarIT.subscriber("user1", REALM, "changed", true));
            String after = get(b.lookup("user1")).orElseThrow().ha1Md5();
            assertEquals(DigestAlgorithm.MD5.ha1("user1", REALM, "changed"), after);
            assertEquals(1.0, registry.get("auth.cache").tag("result", "hit").counter().count());
        }
    }

    @Test
    void databaseFailureFailsTheLookupAndLaterOnesSucceedAgain() throws Exception {
        try (CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 1, 1, Duration.ZERO, 1000, 0,
                Duration.ofMinutes(1), registry, h2.db().breaker())) {
            try (var c = h2.db().dataSource().getConnection(); var s = c.createStatement()) {
                s.execute("ALTER TABLE subscribers RENAME TO subscribers_away");
            }
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> b.lookup("user1").get(10, TimeUnit.SECONDS));
            assertInstanceOf(SQLException.class, e.getCause());
            try (var c = h2.db().dataSource().getConnection(); var s = c.createStatement()) {
                s.execute("ALTER TABLE subscribers_away RENAME TO subscribers");
            }
            assertTrue(get(b.lookup("user1")).isPresent());
        }
    }

    @Test
    void closingFailsWaitingLookupsAndRefusesNewOnes() throws Exception {
        CredentialBatcher b = new CredentialBatcher(h2.store(), REALM, 1, 100, Duration.ofSeconds(20), 1000, 0,
                Duration.ofMinutes(1), registry, h2.db().breaker());
        CompletableFuture<Optional<Subscriber>> waiting = b.lookup("user1");
        b.close();
        assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertThrows(ExecutionException.class, () -> b.lookup("user2").get(5, TimeUnit.SECONDS));
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("sipcrypt-auth-") && t.isAlive()));
    }
}
