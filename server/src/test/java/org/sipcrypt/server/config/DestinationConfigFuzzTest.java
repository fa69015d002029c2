package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.ConnectionPattern;

/**
 * Seeded mutations of valid {@code destination} and set-naming {@code route} values: input {@code i} is a
 * pure function of the seed and {@code i} ({@code -Ddestination.fuzz.seed}, {@code -Ddestination.fuzz.inputs}).
 * Invariants: a value either parses or fails with an {@link IllegalArgumentException} that has a message
 * (nothing else is thrown), and what parses prints in a form that parses back to the same value.
 */
@Timeout(60)
class DestinationConfigFuzzTest {

    private static final long SEED = Long.getLong("destination.fuzz.seed", 3263);
    private static final long INPUTS = Long.getLong("destination.fuzz.inputs", 20_000);
    private static final List<String> CORPUS = List.of(
            "gw=10.0.0.2", "gw=10.0.0.2:5070;transport=tcp;priority=1;weight=50",
            "pbx=[::1]:5061;transport=tls;connection=per-call", "media-1=host.example.com;weight=1000;priority=65535");
    private static final List<String> ROUTES = List.of("example.org=set:gw", "set:pbx", "example.org=10.0.0.2;transport=tcp");
    private static final String ALPHABET = "=;:[]., \t-_0123456789abcdefghijklmnopqrstuvwxyzGWSET\u00e9\u0000%";

    @Test
    void everyValueParsesAndPrintsBackOrFailsWithAMessage() {
        for (long i = 0; i < INPUTS; i++) {
            SplittableRandom r = new SplittableRandom(SEED * 1_000_003 + i);
            boolean route = r.nextInt(4) == 0;
            String text = mutate(route ? ROUTES.get(r.nextInt(ROUTES.size())) : CORPUS.get(r.nextInt(CORPUS.size())), r);
            try {
                if (route) {
                    RouteConfig parsed = RouteConfig.parseDomainRoute(text, ConnectionPattern.PERSISTENT);
                    assertEquals(parsed, RouteConfig.parseDomainRoute(parsed.toString(), ConnectionPattern.PER_CALL),
                            "input " + i + ": " + text);
                } else {
                    DestinationConfig parsed = DestinationConfig.parse(text, ConnectionPattern.PERSISTENT);
                    assertEquals(parsed, DestinationConfig.parse(parsed.toString(), ConnectionPattern.PER_CALL),
                            "input " + i + ": " + text);
                }
            } catch (IllegalArgumentException e) {
                assertNotNull(e.getMessage(), "input " + i + ": " + text);
            }
        }
    }

    private static String mutate(String s, SplittableRandom r) {
        StringBuilder b = new StringBuilder(s);
        int edits = 1 + r.nextInt(4);
        for (int k = 0; k < edits; k++) {
            int at = b.length() == 0 ? 0 : r.nextInt(b.length() + 1);
            switch (r.nextInt(4)) {
                case 0 -> b.insert(at, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
                case 1 -> {
                    if (at < b.length()) {
                        b.deleteCharAt(at);
                    }
                }
                case 2 -> {
                    if (at < b.length()) {
                        b.setCharAt(at, ALPHABET.charAt(r.nextInt(ALPHABET.length())));
                    }
                }
                default -> b.insert(at, s, 0, r.nextInt(s.length() + 1));
            }
        }
        return b.toString();
    }
}
