package org.sipcrypt.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The DNS settings (RFC 3263 resolution): dns.servers, dns.timeout and dns.cacheMaxTtl, read and checked at start. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DnsConfigTest {

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
    void defaultsAskTheSystemsServersTwoSecondsAQueryAndKeepAnswersFiveMinutes() throws Exception {
        DnsConfig d = load().dns();
        assertEquals(List.of(), d.servers());
        assertEquals(Duration.ofSeconds(2), d.timeout());
        assertEquals(Duration.ofMinutes(5), d.cacheMaxTtl());
    }

    @Test
    void serversTimeoutAndCacheAreReadInOrder() throws Exception {
        DnsConfig d = load("dns.servers", "127.0.0.53:53", "dns.servers", "[::1]:5353", "dns.timeout", "300ms",
                "dns.cacheMaxTtl", "0s").dns();
        assertEquals(List.of(new HostPort("127.0.0.53", 53), new HostPort("::1", 5353)), d.servers());
        assertEquals(Duration.ofMillis(300), d.timeout());
        assertEquals(Duration.ZERO, d.cacheMaxTtl());
        String described = ConfigLoader.describe(load("dns.servers", "127.0.0.53:53"));
        assertTrue(described.contains("127.0.0.53:53"), described);
    }

    @Test
    void badValuesNameTheKeyAndWhatWasExpected() {
        assertTrue(failure("dns.servers", "127.0.0.53").contains("dns.servers: \"127.0.0.53\" has no port"));
        assertTrue(failure("dns.servers", "::1:53").contains("write IPv6 addresses in brackets"));
        assertTrue(failure("dns.timeout", "10ms").contains("dns.timeout: 10ms (expected 50ms to 30s)"));
        assertTrue(failure("dns.timeout", "0s").contains("dns.timeout"));
        assertTrue(failure("dns.cacheMaxTtl", "25h").contains("dns.cacheMaxTtl: 25h (expected 0s to 24h)"));
    }
}
