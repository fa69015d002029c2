package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.config.DestinationAlgorithm;
import org.sipcrypt.server.config.DestinationConfig;
import org.sipcrypt.server.config.DestinationsConfig;
import org.sipcrypt.server.transport.ConnectionPattern;

/**
 * The destination sets a routes reload builds from those in force: what stays keeps its state, counts and
 * meters, what is new starts up, what goes leaves the registry.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DestinationSetsTest {

    private static DestinationsConfig config(DestinationAlgorithm algorithm, String... destinations) {
        return new DestinationsConfig.Builder().algorithm(algorithm).probeDownAfter(2).probeUpAfter(2)
                .destinations(java.util.Arrays.stream(destinations)
                        .map(d -> DestinationConfig.parse(d, ConnectionPattern.PERSISTENT)).toList())
                .build();
    }

    private static Destination find(DestinationSets sets, String set, String host) {
        return sets.set(set).orElseThrow().destinations().stream().filter(d -> d.hop().host().equals(host))
                .findFirst().orElseThrow();
    }

    private static Double up(SimpleMeterRegistry registry, String set, String destination) {
        var g = registry.find("destinations.up").tags("set", set, "destination", destination).gauge();
        return g == null ? null : g.value();
    }

    @Test
    void aDestinationThatStaysKeepsItsStateCountsAndMetersWhileTheOthersComeAndGo() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DestinationSets before = new DestinationSets(config(DestinationAlgorithm.PRIORITY,
                "gw=10.0.0.1:5060;priority=1", "gw=10.0.0.2:5060;priority=2", "pbx=10.0.0.9:5060"), registry);
        Destination a = find(before, "gw", "10.0.0.1");
        a.sent();
        a.sent();
        a.failedOver();
        a.probeSent(new Object());
        assertFalse(a.probeFailed());
        assertTrue(a.probeFailed(), "down after 2 failed probes");
        assertEquals(0.0, up(registry, "gw", "10.0.0.1:5060/udp"));

        // A stays with another priority; B goes; C comes; the pbx destination moves to set gw2 (a new one)
        DestinationSets after = before.next(config(DestinationAlgorithm.HASH_CALLID,
                "gw=10.0.0.3:5060", "gw=10.0.0.1:5060;priority=7;weight=5", "gw2=10.0.0.9:5060"));
        Destination kept = find(after, "gw", "10.0.0.1");
        assertTrue(kept.sameAs(a));
        assertEquals(7, kept.priority());
        assertEquals(5, kept.weight());
        assertFalse(kept.up(), "a destination that stays keeps its state");
        assertEquals(2, kept.requests());
        assertEquals(1, kept.failovers());
        assertEquals(1, kept.probes());
        assertEquals(2, kept.probesFailed());
        assertEquals(DestinationAlgorithm.HASH_CALLID, after.set("gw").orElseThrow().algorithm());
        Destination c = find(after, "gw", "10.0.0.3");
        assertTrue(c.up(), "a new destination starts up");
        assertEquals(0, c.requests());
        assertFalse(find(after, "gw2", "10.0.0.9").sameAs(find(before, "pbx", "10.0.0.9")));
        assertTrue(after.set("pbx").isEmpty());

        // the meters of those removed stay until the new sets are in force, then leave
        assertNotNull(up(registry, "gw", "10.0.0.2:5060/udp"));
        assertEquals(2, before.retire(after));
        assertNull(up(registry, "gw", "10.0.0.2:5060/udp"));
        assertNull(up(registry, "pbx", "10.0.0.9:5060/udp"));
        assertEquals(1.0, up(registry, "gw2", "10.0.0.9:5060/udp"));
        assertEquals(1.0, up(registry, "gw", "10.0.0.3:5060/udp"));
        assertEquals(3, registry.find("destinations.requests").functionCounters().size(), "one meter per destination");

        // the kept meter reads the kept state: a probe answered twice brings it up
        kept.probeAnswered();
        kept.probeAnswered();
        assertTrue(a.up());
        assertEquals(1.0, up(registry, "gw", "10.0.0.1:5060/udp"));
        kept.sent();
        assertEquals(3.0, registry.find("destinations.requests").tags("set", "gw", "destination", "10.0.0.1:5060/udp")
                .functionCounter().count());
    }

    @Test
    void aRequestStartedBeforeAReloadKeepsItsHopsAndCountsOnTheStateThatStays() {
        DestinationSets before = new DestinationSets(config(DestinationAlgorithm.PRIORITY,
                "gw=10.0.0.1:5060;priority=1", "gw=10.0.0.2:5060;priority=2"), null);
        Failover started = before.failover("gw", "call-1", "sip:a@example.com");
        DestinationSets after = before.next(config(DestinationAlgorithm.PRIORITY, "gw=10.0.0.1:5060"));
        assertEquals(1, before.retire(after), "one destination removed");
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), started.hops().stream().map(NextHop::host).toList());
        started.outcomes().sent(0);
        started.outcomes().failed(0, 503);
        assertEquals(1, find(after, "gw", "10.0.0.1").requests());
        assertEquals(1, find(after, "gw", "10.0.0.1").failovers());
        assertEquals(List.of("10.0.0.1"), after.failover("gw", "call-2", "sip:a@example.com").hops().stream()
                .map(NextHop::host).toList());
    }
}
