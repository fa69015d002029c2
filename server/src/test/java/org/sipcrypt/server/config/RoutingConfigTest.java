package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The routing SPI's settings: routing.router, routing.timeout and routing.option, read and checked at start. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RoutingConfigTest {

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
    void defaultsRunNoRouterWithTwoSecondsAndNoOptions() throws Exception {
        RoutingConfig r = load().routing();
        assertFalse(r.enabled());
        assertEquals(Duration.ofSeconds(2), r.timeout());
        assertEquals(Map.of(), r.options());
    }

    @Test
    void routersOptionsAndTimeoutAreReadInOrder() throws Exception {
        RoutingConfig r = load("routing.router", "lcr", "routing.router", "office-hours", "routing.timeout", "500ms",
                "routing.option", "lcr.strip=00", "routing.option", "office.open = 09:00-17:00").routing();
        assertEquals(List.of("lcr", "office-hours"), r.routers());
        assertEquals(Duration.ofMillis(500), r.timeout());
        assertEquals(List.of("lcr.strip", "office.open"), List.copyOf(r.options().keySet()));
        assertEquals("09:00-17:00", r.options().get("office.open"));
    }

    @Test
    void badValuesNameTheKeyAndWhatWasExpected() {
        assertTrue(failure("routing.router", "LCR").contains("routing.router: \"LCR\" is not a router name"));
        assertTrue(failure("routing.router", "lcr", "routing.router", "lcr").contains("\"lcr\" given twice"));
        assertTrue(failure("routing.timeout", "5ms").contains("routing.timeout: 5ms (expected 10ms to 60s)"));
        assertTrue(failure("routing.timeout", "2m").contains("expected 10ms to 60s"));
        assertTrue(failure("routing.option", "novalue").contains("routing.option: \"novalue\" (expected KEY=VALUE"));
        assertTrue(failure("routing.option", "=x").contains("expected KEY=VALUE"));
        assertTrue(failure("routing.option", "a=1", "routing.option", "a=2").contains("routing.option: a given twice"));
        assertTrue(failure("routing.option", "Bad Key=1").contains("is not an option key"));
        assertTrue(failure("routing.option", "k=" + "x".repeat(RoutingConfig.MAX_OPTION_CHARS + 1))
                .contains("the value of k"));
        assertTrue(failure("routing.router", "lcr", "mode", "redirect").contains("routers run in proxy mode only"));
    }

    @Test
    void secretOptionsAreMaskedInTheStartLine() throws Exception {
        ServerConfig c = load("routing.option", "lcr.strip=00", "routing.option", "lcr.db.password=hunter2");
        String described = ConfigLoader.describe(c);
        assertFalse(described.contains("hunter2"), described);
        assertTrue(described.contains("lcr.strip=00"), described);
    }

    /** Seeded fuzz: any text either parses into valid options or is refused with IllegalArgumentException. */
    @Test
    void arbitraryOptionTextsAreParsedOrRefusedNeverAnythingElse() {
        Random random = new Random(44_3);
        String alphabet = "ab.z09_-= \t\u0000\u00e9%:;,=";
        int accepted = 0;
        for (int i = 0; i < 5_000; i++) {
            int n = 1 + random.nextInt(3);
            List<String> values = new java.util.ArrayList<>();
            for (int v = 0; v < n; v++) {
                StringBuilder sb = new StringBuilder();
                int len = random.nextInt(12);
                for (int c = 0; c < len; c++) {
                    sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                values.add(sb.toString());
            }
            try {
                RoutingConfig r = new RoutingConfig.Builder().options(RoutingConfig.parseOptions(values)).build();
                accepted++;
                r.options().forEach((k, v) -> assertTrue(k.matches("[a-z0-9][a-z0-9._-]*"), k));
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().startsWith("routing.option: "), e.getMessage());
            }
        }
        assertTrue(accepted > 0, "the fuzz never produced a valid option");
    }
}
