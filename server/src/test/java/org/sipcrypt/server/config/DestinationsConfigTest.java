package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/** Destination sets' settings: destination, destinations.*, and routes naming a set, read and checked at start. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DestinationsConfigTest {

    private static ServerConfig load(String... keyValues) throws ConfigException {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.computeIfAbsent(keyValues[i], k -> new java.util.ArrayList<>()).add(keyValues[i + 1]);
        }
        return ConfigLoader.load(null, m);
    }

    private static String failure(String... keyValues) {
        return assertThrows(ConfigException.class, () -> load(keyValues)).getMessage();
    }

    @Test
    void defaultsHaveNoSetsAndProbeEveryTenSecondsDownAfterThreeUpAfterTwo() throws Exception {
        DestinationsConfig d = load().destinations();
        assertEquals(List.of(), d.destinations());
        assertEquals(DestinationAlgorithm.PRIORITY, d.algorithm());
        assertEquals(Duration.ofSeconds(10), d.probeInterval());
        assertEquals(3, d.probeDownAfter());
        assertEquals(2, d.probeUpAfter());
    }

    @Test
    void aDestinationIsReadWithItsDefaults() {
        assertEquals(new DestinationConfig("gw", "10.0.0.2", 5060, Transport.UDP, ConnectionPattern.PERSISTENT, 0, 1),
                DestinationConfig.parse("gw=10.0.0.2", ConnectionPattern.PERSISTENT));
        assertEquals(new DestinationConfig("gw", "10.0.0.3", 5070, Transport.TCP, ConnectionPattern.PER_CALL, 2, 50),
                DestinationConfig.parse(" GW = 10.0.0.3:5070 ; transport=tcp;connection=per-call;priority=2;weight=50",
                        ConnectionPattern.PERSISTENT));
        assertEquals(new DestinationConfig("gw", "::1", 5061, Transport.TLS, ConnectionPattern.PERSISTENT, 0, 1),
                DestinationConfig.parse("gw=[::1]:5061;transport=tls", ConnectionPattern.PERSISTENT));
    }

    @Test
    void aDestinationPrintsAsItIsWritten() {
        DestinationConfig d = DestinationConfig.parse("gw=10.0.0.3:5070;transport=tcp;priority=2;weight=50",
                ConnectionPattern.PERSISTENT);
        assertEquals(d, DestinationConfig.parse(d.toString(), ConnectionPattern.PER_CALL));
    }

    @Test
    void settingsAreReadIntoSetsInTheOrderGiven() throws Exception {
        ServerConfig c = load("destination", "gw=10.0.0.2;priority=1", "destination", "pbx=10.0.0.9",
                "destination", "gw=10.0.0.3;priority=2", "destinations.algorithm", "hash-callid",
                "destinations.probeInterval", "500ms", "destinations.probeDownAfter", "1",
                "destinations.probeUpAfter", "5", "route", "example.org=set:gw", "defaultRoute", "set:pbx");
        DestinationsConfig d = c.destinations();
        assertEquals(List.of("gw", "pbx"), List.copyOf(d.sets().keySet()));
        assertEquals(List.of("10.0.0.2", "10.0.0.3"), d.sets().get("gw").stream().map(DestinationConfig::host).toList());
        assertEquals(DestinationAlgorithm.HASH_CALLID, d.algorithm());
        assertEquals(Duration.ofMillis(500), d.probeInterval());
        assertEquals(1, d.probeDownAfter());
        assertEquals(5, d.probeUpAfter());
        assertEquals(RouteConfig.toSet("example.org", "gw"), c.routes().get(0));
        assertEquals("example.org=set:gw", c.routes().get(0).toString());
        assertEquals("set:pbx", c.defaultRoute().toString());
        assertTrue(c.defaultRoute().toSet());
    }

    @Test
    void probingZeroIsOff() throws Exception {
        assertFalse(load("destinations.probeInterval", "0").destinations().probing());
    }

    @Test
    void badValuesFailTheStartNamingKeyAndValue() {
        assertTrue(failure("destination", "10.0.0.2").contains("is not SET=HOST:PORT"));
        assertTrue(failure("destination", "gw=10.0.0.2;weight=0").contains("weight 0 (expected 1 to 1000)"));
        assertTrue(failure("destination", "gw=10.0.0.2;priority=70000").contains("priority 70000"));
        assertTrue(failure("destination", "gw=10.0.0.2;color=red").contains("unknown destination parameter \"color\""));
        assertTrue(failure("destination", "gw=10.0.0.2;weight=x").contains("weight \"x\" is not a whole number"));
        assertTrue(failure("destination", "g w=10.0.0.2").contains("is not a set name"));
        assertTrue(failure("destination", "gw=10.0.0.2;transport=ws").contains("(expected udp, tcp or tls)"));
        assertTrue(failure("destination", "gw=10.0.0.2", "destination", "gw=10.0.0.2:5060").contains("twice"));
        assertTrue(failure("destinations.algorithm", "round-robin")
                .contains("unknown destination algorithm \"round-robin\" (expected priority, hash-callid or hash-from)"));
        assertTrue(failure("destinations.probeInterval", "10ms").contains("(expected 0 for none, or 100ms to 1h)"));
        assertTrue(failure("destinations.probeDownAfter", "0").contains("destinations.probeDownAfter"));
        assertTrue(failure("route", "example.org=set:gw").contains("names set gw, which has no destination"));
        assertTrue(failure("defaultRoute", "set:gw", "destination", "pbx=10.0.0.2")
                .contains("(expected destination=gw=HOST:PORT..., or one of: pbx)"));
        assertTrue(failure("route", "example.org=set:gw;transport=tcp", "destination", "gw=10.0.0.2")
                .contains("a route to a set takes no parameters"));
        assertTrue(failure("destination", "gw=10.0.0.2;transport=tls")
                .contains("destination[0]: transport tls needs a tls listener"));
        assertTrue(failure("destination", "gw=10.0.0.2", "mode", "redirect").contains("proxy mode only"));
    }
}
