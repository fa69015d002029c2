package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.DestinationAlgorithm;
import org.sipcrypt.server.config.DestinationConfig;
import org.sipcrypt.server.transport.ConnectionPattern;

/** The order a destination set tries its destinations in, and how probes move a destination down and up. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DestinationSetTest {

    private static Destination dest(String host, int priority, int weight) {
        return new Destination(DestinationConfig.parse("gw=" + host + ";priority=" + priority + ";weight=" + weight,
                ConnectionPattern.PERSISTENT), 2, 2);
    }

    private static List<String> hosts(List<Destination> ds) {
        return ds.stream().map(d -> d.hop().host()).toList();
    }

    @Test
    void priorityTriesTheLowestValueFirstAndEveryLiveDestinationOnce() {
        List<Destination> all = List.of(dest("10.0.0.3", 3, 1), dest("10.0.0.1", 1, 1), dest("10.0.0.2", 2, 1));
        assertEquals(List.of("10.0.0.1", "10.0.0.2", "10.0.0.3"),
                hosts(DestinationSet.order(all, DestinationAlgorithm.PRIORITY, "x", new SplittableRandom(1))));
    }

    @Test
    void weightsShareTheFirstPlaceAmongEqualPriorities() {
        List<Destination> all = List.of(dest("10.0.0.1", 1, 30), dest("10.0.0.2", 1, 10), dest("10.0.0.9", 2, 1000));
        SplittableRandom random = new SplittableRandom(2026);
        Map<String, Integer> first = new HashMap<>();
        for (int i = 0; i < 4000; i++) {
            List<Destination> order = DestinationSet.order(all, DestinationAlgorithm.PRIORITY, "x", random);
            assertEquals(3, order.size());
            assertEquals("10.0.0.9", order.get(2).hop().host(), "a higher priority value is never before a lower one");
            first.merge(order.get(0).hop().host(), 1, Integer::sum);
        }
        // 3 to 1: about 3000 to 1000; bounds far outside what a fair draw of 4000 strays to
        int heavy = first.getOrDefault("10.0.0.1", 0);
        assertTrue(heavy > 2700 && heavy < 3300, "weight 30 of 40 first in " + heavy + " of 4000");
    }

    @Test
    void aDestinationThatIsDownIsLeftOutAndComesBackAfterItsAnswers() {
        Destination a = dest("10.0.0.1", 1, 1);
        Destination b = dest("10.0.0.2", 2, 1);
        List<Destination> all = List.of(a, b);
        assertTrue(!a.probeFailed(), "one failure is not enough with probeDownAfter 2");
        assertTrue(a.probeFailed());
        assertEquals(List.of("10.0.0.2"), hosts(DestinationSet.order(all, DestinationAlgorithm.PRIORITY, "x",
                new SplittableRandom(1))));
        assertTrue(!a.probeAnswered());
        assertTrue(a.probeAnswered());
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), hosts(DestinationSet.order(all, DestinationAlgorithm.PRIORITY,
                "x", new SplittableRandom(1))));
    }

    @Test
    void anAnswerBetweenFailuresStartsTheCountAgain() {
        Destination a = dest("10.0.0.1", 1, 1);
        a.probeFailed();
        a.probeAnswered();
        assertTrue(!a.probeFailed());
        assertTrue(a.up());
    }

    @Test
    void hashKeepsOneKeyOnOneDestinationAndMovesOnlyTheCallsOfOneThatWentDown() {
        List<Destination> all = List.of(dest("10.0.0.1", 0, 1), dest("10.0.0.2", 0, 1), dest("10.0.0.3", 0, 1));
        Map<String, String> before = new HashMap<>();
        Map<String, Integer> spread = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            String key = "call-" + i + "@example.com";
            List<Destination> order = DestinationSet.order(all, DestinationAlgorithm.HASH_CALLID, key, new SplittableRandom(i));
            assertEquals(order, DestinationSet.order(all, DestinationAlgorithm.HASH_CALLID, key, new SplittableRandom(-i)));
            assertEquals(3, order.size());
            before.put(key, order.get(0).hop().host());
            spread.merge(order.get(0).hop().host(), 1, Integer::sum);
        }
        assertEquals(3, spread.size(), "every destination is first for some keys: " + spread);
        all.get(1).probeFailed();
        all.get(1).probeFailed();
        for (var e : before.entrySet()) {
            String now = DestinationSet.order(all, DestinationAlgorithm.HASH_CALLID, e.getKey(), new SplittableRandom(0))
                    .get(0).hop().host();
            if (!e.getValue().equals("10.0.0.2")) {
                assertEquals(e.getValue(), now, e.getKey() + " moved though its destination stayed up");
            } else {
                assertEquals("10.0.0.3", now, "the next one round the list takes " + e.getKey());
            }
        }
    }

    @Test
    void aSetWithNoLiveDestinationHasNoFailover() {
        Destination a = dest("10.0.0.1", 1, 1);
        a.probeFailed();
        a.probeFailed();
        DestinationSet set = new DestinationSet("gw", List.of(a), DestinationAlgorithm.PRIORITY);
        assertNull(set.failover("c", "sip:a@b", new SplittableRandom(1)));
    }

    @Test
    void aFailoverCountsEachAttemptAndEachFailureOnItsDestination() {
        Destination a = dest("10.0.0.1", 1, 1);
        Destination b = dest("10.0.0.2", 2, 1);
        Failover f = new DestinationSet("gw", List.of(a, b), DestinationAlgorithm.PRIORITY)
                .failover("c", "sip:a@b", new SplittableRandom(1));
        assertEquals(List.of(a.hop(), b.hop()), f.hops());
        f.outcomes().sent(0);
        f.outcomes().failed(0, 503);
        f.outcomes().sent(1);
        assertEquals(1, a.requests());
        assertEquals(1, a.failovers());
        assertEquals(1, b.requests());
        assertEquals(0, b.failovers());
    }
}
