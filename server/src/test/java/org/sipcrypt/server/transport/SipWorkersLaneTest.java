package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A task on a lane can tell that it runs on the lane of a key, so work for that key may run at once. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SipWorkersLaneTest {

    @Test
    void aTaskKnowsWhetherItRunsOnTheLaneOfAKey() throws Exception {
        try (SipWorkers w = new SipWorkers(4, 100, 1_000_000, e -> { })) {
            String key = "call-1";
            // a key of another lane: with four lanes, one of the next keys lands elsewhere
            String other = null;
            for (int i = 0; other == null; i++) {
                String k = "call-other-" + i;
                CompletableFuture<Boolean> same = new CompletableFuture<>();
                assertTrue(w.execute(key, () -> same.complete(w.onLaneOf(k))));
                if (!same.get(20, TimeUnit.SECONDS)) {
                    other = k;
                }
            }
            CompletableFuture<Boolean> own = new CompletableFuture<>();
            assertTrue(w.execute(key, 100, () -> own.complete(w.onLaneOf(key))));
            assertTrue(own.get(20, TimeUnit.SECONDS), "a received message's task runs on its key's lane");
            CompletableFuture<Boolean> viaExecutor = new CompletableFuture<>();
            w.lane(key).execute(() -> viaExecutor.complete(w.onLaneOf(key)));
            assertTrue(viaExecutor.get(20, TimeUnit.SECONDS), "as does a continuation handed to the lane");
            String elsewhere = other;
            CompletableFuture<Boolean> foreign = new CompletableFuture<>();
            assertTrue(w.execute(key, () -> foreign.complete(w.onLaneOf(elsewhere))));
            assertFalse(foreign.get(20, TimeUnit.SECONDS));
            assertFalse(w.onLaneOf(key), "the test's own thread is on no lane");
            assertEquals(0, w.queuedBytes());
        }
    }
}
