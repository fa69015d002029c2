package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.transport.Transport;

/**
 * {@code uac-serve} in a process of its own, as {@code compare} starts its generator processes:
 * two runs handed to it one after the other against a UAS on loopback both run in the same JVM,
 * which stays up between them, and the end of its input ends it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UacServeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RATE = 20;

    @TempDir
    Path dir;

    private Process serve;

    @AfterEach
    void stop() {
        if (serve != null && serve.isAlive()) {
            serve.destroyForcibly();
        }
    }

    private Process start() throws IOException {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "org.sipcrypt.lab.LabMain", "uac-serve");
        serve = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("serve.log").toFile())
                .start();
        return serve;
    }

    private static void hand(Writer in, InetSocketAddress uas, Path json, Path done) throws IOException {
        List<String> args = List.of("--target", "127.0.0.1:" + uas.getPort(), "--transport", "udp", "--rate",
                Integer.toString(RATE), "--duration", "1", "--warmup", "0", "--uri",
                "sip:lab-uas@127.0.0.1:" + uas.getPort(), "--json", json.toString());
        in.write(JSON.writeValueAsString(Map.of("uac", args, "done", done.toString())) + "\n");
        in.flush();
    }

    private String log() throws IOException {
        return Files.readString(dir.resolve("serve.log"), StandardCharsets.UTF_8);
    }

    private void awaitFile(Path f) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(f)) {
            assertTrue(serve.isAlive() || Files.exists(f), "uac-serve ended early:\n" + log());
            assertTrue(System.nanoTime() < deadline, "no " + f.getFileName() + " within 60 s:\n" + log());
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    @Test
    void runsHandedOneAfterTheOtherRunInOneJvmThatTheEndOfItsInputEnds() throws Exception {
        try (Uas uas = new Uas()) {
            InetSocketAddress at = uas.listen(Transport.UDP, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    null);
            Process p = start();
            Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
            for (int run = 1; run <= 2; run++) {
                Path json = dir.resolve("run-" + run + ".json");
                Path done = dir.resolve("run-" + run + ".rc");
                hand(in, at, json, done);
                awaitFile(done);
                assertEquals("0", Files.readString(done, StandardCharsets.UTF_8).strip(), "run " + run + " passed:\n" + log());
                RunSummary s = RunSummary.parseSummaryJson(Files.readString(json, StandardCharsets.UTF_8));
                assertEquals(RATE, s.completed(), s.text());
                assertTrue(p.isAlive(), "still up after run " + run + ", for the next one");
            }
            assertEquals(2L * RATE, uas.requests("BYE"), "both runs' calls reached the UAS");
            in.close();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the end of its input ended it:\n" + log());
            assertEquals(0, p.exitValue(), log());
        }
    }

    @Test
    void aLineThatIsNoRunEndsItWithExitTwo() throws Exception {
        Process p = start();
        try (Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
            in.write("[\"--target\", \"127.0.0.1:5060\"]\n");
        }
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), log());
        assertEquals(2, p.exitValue(), log());
        assertTrue(log().contains("expected {\"uac\""), log());
    }
}
