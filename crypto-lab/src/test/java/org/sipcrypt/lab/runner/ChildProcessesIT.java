package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A lab process stopped by SIGTERM (as by Ctrl-C or kill) takes its server under test with it. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChildProcessesIT {

    @Test
    void theServerUnderTestStopsWhenTheLabProcessIsKilled(@TempDir Path dir) throws Exception {
        Process lab = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ServerKeeper.class.getName(), dir.toString()))
                .redirectErrorStream(true).start();
        long serverPid = -1;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(lab.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("server pid ")) {
                    serverPid = Long.parseLong(line.substring("server pid ".length()).trim());
                    break;
                }
            }
            assertTrue(serverPid > 0, "the lab process started a server and said its PID");
            Optional<ProcessHandle> server = ProcessHandle.of(serverPid);
            assertTrue(server.isPresent() && server.get().isAlive(), "the server runs while the lab does");
            lab.destroy();
            assertTrue(lab.waitFor(30, TimeUnit.SECONDS), "the lab process exits on SIGTERM");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.get().isAlive() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            assertTrue(!server.get().isAlive(), "the server under test stopped with the lab process");
        } finally {
            lab.destroyForcibly();
            if (serverPid > 0) {
                ProcessHandle.of(serverPid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }
}
