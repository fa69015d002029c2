package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.store.LabJson;

/**
 * The heap per idle connection's figures ({@link IdleHeap}) and the reads they come from
 * ({@link IdleHeapStep}): a class histogram's Total line, {@code VmRSS}, the open-connection gauge.
 */
class IdleHeapTest {

    @TempDir
    Path dir;

    private static IdleHeap measured(long openBefore, long openHeld) {
        return new IdleHeap("aes", "tls", 1000, 998, 2, "java.net.ConnectException: refused", 4.2,
                new IdleHeap.Snapshot(40_000_000, 300_000, 1_000_000_000, openBefore),
                new IdleHeap.Snapshot(52_000_000, 470_000, 1_020_000_000, openHeld),
                new IdleHeap.Snapshot(40_100_000, 300_500, 1_019_000_000, openBefore), List.of("openssl"), null);
    }

    @Test
    void perConnectionIsTheGrowthOverTheConnectionsTheServerCountedOpen() {
        // the server counted 1,000 more open (one before: the proxy's connection to the UAS); the lab held 998
        IdleHeap h = measured(1, 1001);
        assertTrue(h.valid());
        assertEquals(1000, h.connections());
        assertEquals(12_000, h.bytesPerConnection(), 1e-9);
        assertEquals(170, h.objectsPerConnection(), 1e-9);
        assertEquals(100, h.leftAfterClosingBytesPerConnection(), 1e-9);
        assertEquals(20_000, h.rssBytesPerConnection(), 1e-9);
    }

    @Test
    void withoutTheServersGaugeTheLabsOwnCountDivides() {
        IdleHeap h = measured(-1, -1);
        assertEquals(998, h.connections());
        assertEquals(12_000_000.0 / 998, h.bytesPerConnection(), 1e-9);
    }

    @Test
    void nothingCountsWhenTheServerCountedNoneOpenOrTheRunSaysWhyNot() {
        IdleHeap none = measured(5, 5);
        assertFalse(none.valid());
        assertEquals(-1, none.bytesPerConnection());
        IdleHeap failed = new IdleHeap("tcp", "tcp", 100, 0, 100, "refused", 0.1, null, null, null, null,
                "no connection held: refused");
        assertFalse(failed.valid());
        assertEquals(IdleHeap.Snapshot.UNKNOWN, failed.whileHeld());
        assertEquals(List.of(), failed.tlsEngines());
        assertEquals(-1, failed.bytesPerConnection());
        assertEquals(-1, failed.rssBytesPerConnection());
    }

    @Test
    void itsJsonHoldsThePerConnectionFiguresAndReadsBackToTheSameRecord() throws IOException {
        IdleHeap h = measured(1, 1001);
        String json = LabJson.write(h);
        assertTrue(json.contains("\"bytesPerConnection\":12000.0") && json.contains("\"connections\":1000"), json);
        assertEquals(h, LabJson.read(json, IdleHeap.class));
    }

    @Test
    void aClassHistogramsTotalLineGivesObjectsAndBytes() throws IOException {
        String histogram = "12345:\n"
                + " num     #instances         #bytes  class name (module)\n"
                + "-------------------------------------------------------\n"
                + "   1:         51234        4567890  [B (java.base@17.0.15)\n"
                + "   2:          9876         237024  java.lang.String (java.base@17.0.15)\n"
                + "Total        304512       21987456\n";
        assertEquals(List.of(304_512L, 21_987_456L), toList(IdleHeapStep.histogramTotal(histogram)));
        IOException e = assertThrows(IOException.class, () -> IdleHeapStep.histogramTotal("12345:\n"
                + "com.sun.tools.attach.AttachNotSupportedException: Unable to open socket file\n"));
        assertTrue(e.getMessage().contains("no Total line") && e.getMessage().contains("AttachNotSupported"),
                e.getMessage());
    }

    @Test
    void theResidentSetIsReadInBytesFromProcStatus() throws IOException {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmPeak:\t 5000 kB\nVmRSS:\t  123456 kB\nThreads:\t40\n");
        assertEquals(123_456L * 1024, IdleHeapStep.rssBytes(status));
        Files.writeString(status, "Name:\tjava\n");
        assertEquals(-1, IdleHeapStep.rssBytes(status));
        assertEquals(-1, IdleHeapStep.rssBytes(dir.resolve("gone")));
        assertTrue(IdleHeapStep.rssBytes(Path.of("/proc/self/status")) > 0, "this JVM's own");
    }

    @Test
    void theOpenConnectionGaugeIsItsSamplesSummedAndOnlyItsFamilysLines() throws IOException {
        String family = IdleHeapStep.OPEN_GAUGE;
        String text = "# HELP " + family + " open\n# TYPE " + family + " gauge\n"
                + family + "{application=\"sipcrypt\"} 1001.0\n"
                + family + "_max 5.0\n"
                + "sipcrypt_tls_handshakes_total{engine=\"bc\",} 12.0\n";
        assertEquals(1001, IdleHeapStep.gauge(text, family));
        assertEquals(7, IdleHeapStep.gauge(family + " 3.0\n" + family + "{a=\"}b\"} 4.0 1700000000\n", family));
        assertEquals(-1, IdleHeapStep.gauge("other 1\n", family));
        assertThrows(IOException.class, () -> IdleHeapStep.gauge(family + " NaNx\n", family));
    }

    private static List<Long> toList(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }
}
