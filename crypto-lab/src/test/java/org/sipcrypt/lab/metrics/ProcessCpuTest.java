package org.sipcrypt.lab.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** CPU time read from /proc, and the JIT compiler threads' share left out of a server's. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ProcessCpuTest {

    /** A /proc/PID/task/TID/stat line with the given name, utime and stime in ticks. */
    private static void thread(Path taskDir, int tid, String comm, long utime, long stime) throws Exception {
        Path dir = Files.createDirectories(taskDir.resolve(Integer.toString(tid)));
        Files.writeString(dir.resolve("stat"), tid + " (" + comm + ") S 1 1 1 0 -1 4194560 100 0 0 0 " + utime + " "
                + stime + " 0 0 20 0 30 0 1234 0 0\n");
    }

    @Test
    void onlyTheCompilerThreadsCountAsJit(@TempDir Path task) throws Exception {
        thread(task, 100, "java", 50, 5);
        thread(task, 101, "C2 CompilerThre", 300, 2);
        thread(task, 102, "C1 CompilerThre", 40, 1);
        thread(task, 103, "sipcrypt-sip-0", 70, 30);
        thread(task, 104, "a (tricky) name", 9, 9);
        assertEquals((302 + 41) * 10_000L, ProcessCpu.jitMicros(task));
    }

    @Test
    void aProcessWithoutCompilerThreadsHasNoJitTime(@TempDir Path task) throws Exception {
        thread(task, 7, "kamailio", 500, 100);
        assertEquals(0, ProcessCpu.jitMicros(task));
        assertEquals(0, ProcessCpu.jitMicros(task.resolve("gone")));
    }

    @Test
    void thisJvmsCpuWithoutJitIsWithinItsTotal() {
        long pid = ProcessHandle.current().pid();
        long without = ProcessCpu.microsWithoutJit(pid);
        long total = ProcessCpu.micros(pid);
        assertTrue(without >= 0 && without <= total, without + " of " + total);
        assertEquals(-1, ProcessCpu.microsWithoutJit(Long.MAX_VALUE));
    }
}
