package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the lab reads from a server's GC log, as G1 and ZGC write it with {@code -Xlog:gc,gc+phases}. */
class ServerProcessTest {

    @TempDir
    Path dir;

    @Test
    void g1PausesAndHeapWithinTheMeasuredPart() throws Exception {
        Path log = dir.resolve("gc.log");
        Files.writeString(log, """
                [0.010s][info][gc] Using G1
                [1.330s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 12M->4M(256M) 5.415ms
                [2.372s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 14M->5M(256M) 6.545ms
                [2.373s][info][gc,phases] GC(1)   Pre Evacuate Collection Set: 0.1ms
                [3.378s][info][gc] GC(2) Pause Remark 18M->6M(256M) 2.702ms
                [9.455s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 157M->7M(256M) 0.889ms
                """);
        assertArrayEquals(new double[] {6.545 + 2.702, 6.545}, ServerProcess.gcPauses(log, 2.0, 9.0), 1e-9);
        assertEquals(7L << 20, ServerProcess.heapAfterGc(log));
    }

    @Test
    void zgcPausesAndHeap() throws Exception {
        Path log = dir.resolve("gc.log");
        Files.writeString(log, """
                [0.080s][info][gc] Using The Z Garbage Collector
                [0.394s][info][gc,phases] GC(0) Pause Mark Start 0.007ms
                [0.412s][info][gc,phases] GC(0) Pause Mark End 0.013ms
                [0.423s][info][gc,phases] GC(0) Pause Relocate Start 0.009ms
                [0.429s][info][gc       ] GC(0) Garbage Collection (Warmup) 28M(11%)->84M(33%)
                """);
        assertArrayEquals(new double[] {0.029, 0.013}, ServerProcess.gcPauses(log, 0, 1), 1e-9);
        assertEquals(84L << 20, ServerProcess.heapAfterGc(log));
        assertArrayEquals(new double[] {-1, -1}, ServerProcess.gcPauses(dir.resolve("none.log"), 0, 1));
    }
}
