package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.Await;

@Timeout(30)
class DatabaseBreakerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    /** A probe that fails while {@code down} is set, counting its runs. */
    private static final class ScriptedProbe implements DatabaseBreaker.Probe {
        final AtomicBoolean down = new AtomicBoolean(true);
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public void check() throws SQLException {
            runs.incrementAndGet();
            if (down.get()) {
                throw new SQLNonTransientConnectionException("Connection refused", "08001");
            }
        }
    }

    private static SQLException poolTimeout() {
        return new SQLTransientConnectionException("sipcrypt-db-pool - Connection is not available, request timed out",
                "08001", new SQLNonTransientConnectionException("Connection refused", "90067"));
    }

    @Test
    void onlyFailuresToReachTheDatabaseCountAsAnOutage() {
        assertTrue(DatabaseBreaker.isOutage(poolTimeout()));
        assertTrue(DatabaseBreaker.isOutage(new SQLException("broken pipe", "08006")));
        assertTrue(DatabaseBreaker.isOutage(new CompletionException(new SQLNonTransientConnectionException("gone"))));
        assertFalse(DatabaseBreaker.isOutage(new SQLIntegrityConstraintViolationException("duplicate", "23505")));
        // H2 reports a lock timeout as a SQLTimeoutException with state HYT00: a collision, not an outage
        assertFalse(DatabaseBreaker.isOutage(new SQLTimeoutException("lock timeout", "HYT00")));
        assertFalse(DatabaseBreaker.isOutage(new SQLException("syntax error", "42000")));
        assertFalse(DatabaseBreaker.isOutage(new IllegalStateException("bug")));
    }

    @Test
    void aConstraintViolationLeavesTheBreakerClosed() {
        ScriptedProbe probe = new ScriptedProbe();
        try (DatabaseBreaker breaker = new DatabaseBreaker("db", probe, Duration.ofMillis(10), System::nanoTime)) {
            breaker.failed(new SQLIntegrityConstraintViolationException("duplicate", "23505"), breaker.now());
            assertFalse(breaker.isOpen());
            assertNull(breaker.refusal("register"));
            assertEquals(0, breaker.transitions(true));
        }
    }

    @Test
    void anOutageRefusesAtOnceUntilAProbeSucceeds() {
        ScriptedProbe probe = new ScriptedProbe();
        try (DatabaseBreaker breaker = new DatabaseBreaker("db", probe, Duration.ofMillis(10), System::nanoTime)) {
            breaker.failed(poolTimeout(), breaker.now());
            assertTrue(breaker.isOpen());
            assertEquals(1, breaker.transitions(true));

            DatabaseUnavailableException refused = breaker.refusal("register");
            assertNotNull(refused);
            assertTrue(DatabaseBreaker.isOutage(refused), "a refusal is itself an outage failure");
            assertEquals(0, refused.getStackTrace().length, "no stack trace at request rate");
            assertNotNull(breaker.refusal("credentials"));
            assertNotNull(breaker.refusal("credentials"));
            assertEquals(1, breaker.refused("register"));
            assertEquals(2, breaker.refused("credentials"));
            assertEquals(0, breaker.refused("lookup"));

            // probes keep failing while the database is down: the breaker stays open
            // a probe's run is counted before its failure is: wait for the failures themselves
            Await.until(() -> breaker.probesFailed() >= 3, WAIT, () -> "failed probes: " + breaker.probesFailed()
                    + " of " + probe.runs.get() + " run");
            assertTrue(breaker.isOpen());

            probe.down.set(false);
            Await.until(() -> !breaker.isOpen(), WAIT, () -> "breaker still open after " + probe.runs.get() + " probes");
            assertNull(breaker.refusal("register"));
            assertEquals(1, breaker.transitions(false));
            int runs = probe.runs.get();
            // a second outage opens it again and probing resumes
            breaker.failed(poolTimeout(), breaker.now());
            assertTrue(breaker.isOpen());
            assertEquals(2, breaker.transitions(true));
            Await.until(() -> !breaker.isOpen(), WAIT, () -> "breaker still open");
            assertTrue(probe.runs.get() > runs);
        }
    }

    @Test
    void aFailureOfAnOperationBegunBeforeTheBreakerClosedDoesNotReopenIt() {
        AtomicLong clock = new AtomicLong(1_000);
        ScriptedProbe probe = new ScriptedProbe();
        try (DatabaseBreaker breaker = new DatabaseBreaker("db", probe, Duration.ofMillis(10), clock::get)) {
            long begunDuringOutage = breaker.now();
            clock.addAndGet(5);
            breaker.failed(poolTimeout(), breaker.now());
            assertTrue(breaker.isOpen());
            clock.addAndGet(5);
            probe.down.set(false);
            Await.until(() -> !breaker.isOpen(), WAIT, () -> "breaker still open");

            breaker.failed(poolTimeout(), begunDuringOutage);
            assertFalse(breaker.isOpen(), "a late report of the old outage");
            clock.addAndGet(5);
            breaker.failed(poolTimeout(), breaker.now());
            assertTrue(breaker.isOpen(), "a failure begun after recovery is a new outage");
        }
    }

    @Test
    void unknownOperationsAreAProgrammingError() {
        try (DatabaseBreaker breaker = new DatabaseBreaker("db", new ScriptedProbe(), Duration.ofMillis(10),
                System::nanoTime)) {
            breaker.failed(poolTimeout(), breaker.now());
            assertThrows(IllegalArgumentException.class, () -> breaker.refusal("select"));
            assertThrows(IllegalArgumentException.class, () -> breaker.refused("select"));
        }
    }
}
