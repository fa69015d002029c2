package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.http.ServerMetrics;
import org.sipcrypt.server.transport.TransportCounters;

/**
 * The server's TLS engines read from its {@code /metrics} text: the server's own registry's
 * exposition, then lines written here for what the format allows and what it does not.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServerTlsEnginesTest {

    @Test
    void theEnginesTheServersRegistryCountedHandshakesOnAreRead() throws IOException {
        try (ServerMetrics metrics = new ServerMetrics()) {
            TransportCounters counters = new TransportCounters(metrics.registry());
            counters.tlsHandshakeFailed("timeout");
            assertEquals(List.of(), ServerTlsEngines.fromMetrics(metrics.scrape()), "no handshake yet");
            counters.tlsHandshake(false, false, "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", "none", "bc");
            counters.tlsHandshake(false, true, "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", "none", "bc");
            counters.tlsHandshake(true, false, "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", "unknown", "jsse");
            String text = metrics.scrape();
            assertTrue(text.contains(ServerTlsEngines.FAMILY + "{engine=\"jsse\","), text);
            assertEquals(List.of("bc", "jsse"), ServerTlsEngines.fromMetrics(text));
        }
    }

    @Test
    void everyFormTheTextFormatAllowsIsReadAndOtherFamiliesAndZeroesLeftOut() throws IOException {
        String text = """
                # HELP sipcrypt_tls_handshakes_total \\
                # TYPE sipcrypt_tls_handshakes_total counter
                sipcrypt_tls_handshakes_total{engine="openssl",suite="a\\"b,c}\\\\d\\n",} 3.0
                sipcrypt_tls_handshakes_total{kind="full", engine="bc"} 1 1733000000000
                sipcrypt_tls_handshakes_total{engine="jsse",kind="full"} 0.0
                sipcrypt_tls_handshakes_created{engine="rc"} 1.733E9
                sipcrypt_tls_handshakes_failed_total{reason="timeout"} 4.0
                """;
        assertEquals(List.of("bc", "openssl"), ServerTlsEngines.fromMetrics(text), "jsse counted none");
    }

    @Test
    void aBrokenLineOfTheFamilyOrOneWithoutTheEngineIsDeclined() {
        for (String line : List.of("sipcrypt_tls_handshakes_total{engine=\"bc} 1",
                "sipcrypt_tls_handshakes_total{engine=bc} 1",
                "sipcrypt_tls_handshakes_total{engine=\"bc\" kind=\"full\"} 1",
                "sipcrypt_tls_handshakes_total{engine=\"b\\c\"} 1",
                "sipcrypt_tls_handshakes_total{engine=\"bc\"} many",
                "sipcrypt_tls_handshakes_total{engine=\"bc\"}",
                "sipcrypt_tls_handshakes_total{engine=\"bc\"} 1 2 3")) {
            assertThrows(IOException.class, () -> ServerTlsEngines.fromMetrics(line + "\n"), line);
        }
        IOException e = assertThrows(IOException.class, () -> ServerTlsEngines.fromMetrics(
                "sipcrypt_tls_handshakes_total{group=\"none\",kind=\"full\",role=\"server\",suite=\"S\"} 2.0\n"));
        assertTrue(e.getMessage().startsWith("no engine label on sipcrypt_tls_handshakes_total"), e.getMessage());
    }

    @Test
    void enginesAreJoinedSortedAndTakenTogetherOnce() {
        assertEquals("bc+jsse", ServerTlsEngines.joined(List.of("jsse", "bc")));
        assertEquals("openssl", ServerTlsEngines.joined(List.of("openssl")));
        assertEquals("", ServerTlsEngines.joined(List.of()));
        assertEquals(List.of("bc", "jsse", "openssl"), ServerTlsEngines.union(List.of(List.of("openssl"),
                List.of("jsse", "bc"), List.of(), List.of("bc"))));
        assertEquals(List.of("bc", "jsse"), new ServerSample(1, 1, 1, 1, 0, 0, List.of("jsse", "bc", "jsse"))
                .tlsEngines(), "a sample keeps each engine once, sorted");
    }
}
