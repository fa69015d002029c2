package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.ProcessCpu;

/** Pinning the server and the lab to CPUs of their own, applied to real processes with taskset. */
@Timeout(60)
class CpuPinningTest {

    @Test
    void cpuListsReadAndWriteAsTasksetDoes() {
        assertEquals(List.of(0, 1, 2, 5), CpuPinning.parseList("0-2,5"));
        assertEquals(List.of(3), CpuPinning.parseList(" 3 "));
        assertEquals("0,2,3", CpuPinning.format(List.of(0, 2, 3)));
        assertThrows(IllegalArgumentException.class, () -> CpuPinning.parseList("two"));
        assertThrows(IllegalArgumentException.class, () -> CpuPinning.parseList("3-1"));
        assertThrows(IllegalArgumentException.class, () -> CpuPinning.plan("9999"));
    }

    @Test
    void offPinsNothingAndSaysSo() throws Exception {
        CpuPinning off = CpuPinning.plan("off");
        assertFalse(off.pinned());
        assertEquals(List.of(), off.serverLauncher());
        assertEquals("not pinned: pinning off", off.describe());
        off.pinLab().close();
    }

    @Test
    void theServerRunsOnItsCpuAndTheLabOnTheOthers() throws Exception {
        List<Integer> allowed = CpuPinning.allowedCpus();
        assumeTrue(allowed.size() >= 2, "pinning needs two CPUs; this machine has " + allowed);
        CpuPinning p = CpuPinning.plan("auto");
        assertTrue(p.pinned(), p.describe());
        assertEquals(List.of(allowed.get(0)), p.serverCpus());
        assertEquals(allowed.subList(1, allowed.size()), p.labCpus());
        assertEquals("server on CPU " + allowed.get(0) + ", its JIT compiler, generator and UAS on CPU "
                + CpuPinning.format(allowed.subList(1, allowed.size())), p.describe());

        // a process started through the server's launcher runs on the server's CPU only
        List<String> cmd = new ArrayList<>(p.serverLauncher());
        cmd.addAll(List.of("grep", "Cpus_allowed_list", "/proc/self/status"));
        assertEquals(p.serverCpus(), cpusOf(run(cmd)));

        // the lab's own threads, and what they start, run on the other CPUs until the handle is closed
        try (AutoCloseable pinned = p.pinLab()) {
            assertEquals(p.labCpus(), CpuPinning.allowedCpus());
            assertEquals(p.labCpus(), cpusOf(run(List.of("grep", "Cpus_allowed_list", "/proc/self/status"))));
        }
        assertEquals(allowed, CpuPinning.allowedCpus());
    }

    @Test
    void theServersJitCompilerThreadsMoveToTheLabsCpus(@TempDir Path dir) throws Exception {
        List<Integer> allowed = CpuPinning.allowedCpus();
        assumeTrue(allowed.size() >= 2, "pinning needs two CPUs; this machine has " + allowed);
        CpuPinning p = CpuPinning.plan("auto");
        // a JVM started as the lab starts the server: through the launcher, compiler threads kept
        Path idle = Files.writeString(dir.resolve("Idle.java"),
                "public class Idle { public static void main(String[] a) throws Exception { Thread.sleep(60_000); } }");
        List<String> cmd = new ArrayList<>(p.serverLauncher());
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UseDynamicNumberOfCompilerThreads", idle.toString()));
        Process jvm = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            List<Long> jit = ProcessCpu.jitThreads(jvm.pid());
            for (int i = 0; jit.isEmpty() && i < 200; i++) {
                TimeUnit.MILLISECONDS.sleep(100); // the JVM is still starting
                jit = ProcessCpu.jitThreads(jvm.pid());
            }
            assertFalse(jit.isEmpty(), "the JVM's compiler threads are listed");
            assertEquals(p.serverCpus(), threadCpus(jvm.pid(), jit.get(0)));

            p.moveToLab(jit);
            for (long id : jit) {
                assertEquals(p.labCpus(), threadCpus(jvm.pid(), id), "compiler thread " + id);
            }
            // its other threads (the main thread's ID is the process's) stay on the server's CPU
            assertEquals(p.serverCpus(), threadCpus(jvm.pid(), jvm.pid()));
        } finally {
            jvm.destroyForcibly();
            jvm.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static List<Integer> threadCpus(long pid, long tid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "task", Long.toString(tid), "status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return cpusOf(line);
            }
        }
        throw new AssertionError("no CPU list for thread " + tid);
    }

    private static List<Integer> cpusOf(String statusLine) {
        assertTrue(statusLine.startsWith("Cpus_allowed_list:"), statusLine);
        return CpuPinning.parseList(statusLine.substring(statusLine.indexOf(':') + 1));
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
