package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PartialMessagesTest {

    private final List<String> evicted = new ArrayList<>();

    private Runnable evict(String name) {
        return () -> evicted.add(name);
    }

    @Test
    void withinTheBoundNothingIsEvicted() {
        PartialMessages p = new PartialMessages(1000);
        PartialMessages.Message a = p.begin(400, evict("a"));
        PartialMessages.Message b = p.begin(600, evict("b"));
        assertEquals(1000, p.heldBytes());
        assertTrue(evicted.isEmpty());
        assertFalse(a.gone());
        assertFalse(b.gone());
    }

    @Test
    void beyondTheBoundTheOldestMessagesAreEvictedFirst() {
        PartialMessages p = new PartialMessages(1000);
        PartialMessages.Message a = p.begin(400, evict("a"));
        PartialMessages.Message b = p.begin(400, evict("b"));
        PartialMessages.Message c = p.begin(400, evict("c"));
        assertEquals(List.of("a"), evicted);
        assertTrue(a.gone());
        assertFalse(b.gone());
        assertFalse(c.gone());
        assertEquals(800, p.heldBytes());
        assertEquals(1, p.evictedCount());
    }

    @Test
    void growingAMessageEvictsOlderOnesUntilWithinTheBound() {
        PartialMessages p = new PartialMessages(1000);
        p.begin(300, evict("a"));
        p.begin(300, evict("b"));
        PartialMessages.Message c = p.begin(100, evict("c"));
        assertTrue(p.update(c, 750));
        assertEquals(List.of("a", "b"), evicted);
        assertEquals(750, p.heldBytes());
    }

    @Test
    void anEvictedMessageReportsItAndNoLongerCounts() {
        PartialMessages p = new PartialMessages(1000);
        PartialMessages.Message a = p.begin(600, evict("a"));
        p.begin(600, evict("b"));
        assertFalse(p.update(a, 700), "a was evicted");
        p.end(a);
        assertEquals(600, p.heldBytes());
        assertEquals(List.of("a"), evicted);
    }

    @Test
    void endedMessagesReleaseTheirBytesAndAreNeverEvicted() {
        PartialMessages p = new PartialMessages(1000);
        PartialMessages.Message a = p.begin(900, evict("a"));
        p.end(a);
        p.end(a);
        assertEquals(0, p.heldBytes());
        p.begin(900, evict("b"));
        assertTrue(evicted.isEmpty());
        assertEquals(900, p.heldBytes());
    }
}
