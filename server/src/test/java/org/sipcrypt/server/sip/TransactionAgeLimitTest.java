package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TransactionAgeLimitTest {

    private static final long SECOND = 1_000_000_000L;

    private final TransactionAgeLimit<String> limit = new TransactionAgeLimit<>(Duration.ofSeconds(100),
            Duration.ofSeconds(10), t -> t.startsWith("INVITE"));

    @Test
    void aTransactionIsEndedOnlyOnceOlderThanItsBound() {
        List<String> live = List.of("OPTIONS-1");
        assertEquals(List.of(), limit.overage(live, 0));
        assertEquals(List.of(), limit.overage(live, 10 * SECOND), "at its bound, not beyond it");
        assertEquals(live, limit.overage(live, 10 * SECOND + 1));
    }

    @Test
    void inviteTransactionsHaveTheLongerBound() {
        List<String> live = List.of("INVITE-1", "REGISTER-1");
        limit.overage(live, 0);
        assertEquals(List.of("REGISTER-1"), limit.overage(live, 11 * SECOND));
        assertEquals(List.of(), limit.overage(List.of("INVITE-1"), 99 * SECOND));
        assertEquals(List.of("INVITE-1"), limit.overage(List.of("INVITE-1"), 101 * SECOND));
    }

    @Test
    void ageCountsFromTheFirstSweepThatSawTheTransaction() {
        limit.overage(List.of("BYE-1"), 0);
        List<String> live = List.of("BYE-1", "BYE-2");
        limit.overage(live, 5 * SECOND);
        assertEquals(List.of("BYE-1"), limit.overage(live, 11 * SECOND));
        assertEquals(List.of("BYE-2"), limit.overage(List.of("BYE-2"), 16 * SECOND));
    }

    @Test
    void transactionsThatLeftTheTableAreForgotten() {
        limit.overage(List.of("OPTIONS-1", "OPTIONS-2"), 0);
        assertEquals(List.of(), limit.overage(List.of("OPTIONS-2"), SECOND));
        assertEquals(1, limit.tracked());
        // back in the table: its age counts afresh
        assertEquals(List.of(), limit.overage(List.of("OPTIONS-1", "OPTIONS-2"), 5 * SECOND));
        assertEquals(List.of("OPTIONS-2"), limit.overage(List.of("OPTIONS-1", "OPTIONS-2"), 11 * SECOND));
        assertEquals(List.of("OPTIONS-1"), limit.overage(List.of("OPTIONS-1"), 15 * SECOND + 1));
    }

    @Test
    void endedTransactionsAreNotReturnedTwice() {
        List<String> live = List.of("OPTIONS-1");
        limit.overage(live, 0);
        assertEquals(live, limit.overage(live, 11 * SECOND));
        assertEquals(List.of(), limit.overage(live, 12 * SECOND), "still in the table: counted afresh");
    }

    @Test
    void aFloodOfTransactionsIsTrackedOnlyWhileLive() {
        List<String> live = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            live.add("OPTIONS-" + i);
        }
        limit.overage(live, 0);
        assertEquals(100_000, limit.tracked());
        assertEquals(100_000, limit.overage(live, 11 * SECOND).size());
        assertEquals(0, limit.overage(List.of(), 12 * SECOND).size());
        assertEquals(0, limit.tracked());
    }

    @Test
    void theServersBoundsCoverTimerCAndTheTransactionTimers() {
        TransactionAgeLimit<String> server = new TransactionAgeLimit<>(Duration.ofMinutes(3), t -> false);
        assertEquals(Duration.ofMinutes(3).plus(TransactionAgeLimit.TIMER_64_T1).plus(TransactionAgeLimit.MARGIN),
                server.inviteBound());
        assertTrue(server.nonInviteBound().compareTo(Duration.ofSeconds(64)) > 0, server.nonInviteBound().toString());
    }

    @Test
    void boundsMustBePositive() {
        assertThrows(IllegalArgumentException.class,
                () -> new TransactionAgeLimit<String>(Duration.ZERO, Duration.ofSeconds(1), t -> true));
    }
}
