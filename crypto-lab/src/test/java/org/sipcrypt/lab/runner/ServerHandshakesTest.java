package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's handshakes of a point by side and kind: from the lab's counts, the dominant kind, per call. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ServerHandshakesTest {

    private static PointRun point(long handshakes, long resumed, long uasHandshakes, long uasResumed) {
        // 100 calls/s for 10 s: 1000 completed calls
        return Studies.withHandshakeCounts(Studies.point("local", "aes", 1, 100, 500), handshakes, resumed,
                uasHandshakes, uasResumed);
    }

    @Test
    void theGeneratorsHandshakesAreTheServersAsTlsServerAndTheUassAsTlsClient() {
        assertEquals(new ServerHandshakes(700, 300, 150, 850), point(1000, 300, 1000, 850).serverHandshakes());
        assertEquals(2000, point(1000, 300, 1000, 850).serverHandshakes().total());
        assertEquals(new ServerHandshakes.PerCall(0.7, 0.3, 0.15, 0.85),
                point(1000, 300, 1000, 850).serverHandshakesPerCall());
    }

    @Test
    void oneKindNamesThemFromNinetyPercentOnElseMixed() {
        assertEquals("as server, full", new ServerHandshakes(900, 100, 0, 0).kind());
        assertEquals("mixed", new ServerHandshakes(899, 101, 0, 0).kind());
        assertEquals("as server, resumed", new ServerHandshakes(0, 10, 0, 0).kind());
        assertEquals("as client, full", new ServerHandshakes(1, 0, 99, 0).kind());
        assertEquals("as client, resumed", new ServerHandshakes(0, 0, 5, 95).kind());
        assertEquals(ServerHandshakes.MIXED, new ServerHandshakes(500, 0, 500, 0).kind());
        assertNull(new ServerHandshakes(0, 0, 0, 0).kind(), "no handshakes, no kind");
    }

    @Test
    void pointsAddUpKindByKind() {
        ServerHandshakes sum = List.of(new ServerHandshakes(1, 2, 3, 4), new ServerHandshakes(10, 20, 30, 40)).stream()
                .reduce(new ServerHandshakes(0, 0, 0, 0), ServerHandshakes::plus);
        assertEquals(new ServerHandshakes(11, 22, 33, 44), sum);
    }

    @Test
    void withoutACompletedCallThereIsNoFigurePerCall() {
        assertEquals(new ServerHandshakes.PerCall(-1, -1, -1, -1), new ServerHandshakes(5, 0, 0, 0).perCall(0));
    }

    @Test
    void aNegativeCountIsAProgrammingError() {
        assertThrows(IllegalArgumentException.class, () -> new ServerHandshakes(-1, 0, 0, 0));
    }
}
