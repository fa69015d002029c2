package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped lab jar started as a user starts it, with the README's command lines: {@code java -jar
 * target/sipcrypt-lab.jar} in processes of their own with nothing else on the class path, against the
 * shipped server jar ({@code java -jar ../server/target/sipcrypt-server.jar}, its {@code certs} and
 * {@code users generate --csv} commands first). A {@code uas} process listens on UDP and TLS, the
 * server routes {@code lab.test} to its UDP listener and {@code tls.lab.test} to its TLS listener
 * (as {@code compare} routes {@code lab.test}), and {@code uac} runs calls through the server over
 * UDP, over TLS with AES, and with digest credentials against a server started with {@code --auth}.
 * Verdicts are what the programs control: exit codes and the counts of the {@code --json} summary,
 * never how fast the machine was.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LabJarIT {

    private static final Path LAB_JAR = Path.of("target", "sipcrypt-lab.jar");
    private static final Path SERVER_JAR = Path.of("..", "server", "target", "sipcrypt-server.jar");
    private static final Pattern SERVER_READY = Pattern.compile("ready on (.*)$", Pattern.MULTILINE);
    private static final Pattern UAS_LISTENING = Pattern.compile("^listening on (udp|tcp|tls):([^:\\s]+):(\\d+)$",
            Pattern.MULTILINE);
    private static final Pattern UAS_COUNTS = Pattern.compile("uas: INVITE (\\d+) ACK (\\d+) BYE (\\d+)");
    /** The load of every uac run: 20 calls/s, 3 s measured after 1 s of warm-up. */
    private static final int RATE = 20;
    private static final int DURATION_S = 3;
    private static final int MEASURED_CALLS = RATE * DURATION_S;
    private static final long START_TIMEOUT_S = 60;
    private static final long RUN_TIMEOUT_S = 120;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** {@code java -jar JAR ARGS...}, its output (stdout and stderr) to {@code log}. */
    private Process start(Path jar, Path log, String... args) throws IOException {
        assertTrue(Files.isRegularFile(jar), "built in the package phase: " + jar.toAbsolutePath());
        List<String> cmd = new ArrayList<>(List.of(java(), "-jar", jar.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        // -jar ignores CLASSPATH anyway; drop it so nothing but the jar can reach the JVM
        pb.environment().remove("CLASSPATH");
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** Runs {@code java -jar JAR ARGS...} to its end (bounded) and returns its exit code. */
    private int run(Path jar, Path log, String... args) throws Exception {
        Process p = start(jar, log, args);
        assertTrue(p.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS),
                "finished within " + RUN_TIMEOUT_S + " s: " + String.join(" ", args) + "\n" + read(log));
        return p.exitValue();
    }

    /** Runs the jar and fails with its output unless it exits 0. */
    private void runOk(Path jar, String name, String... args) throws Exception {
        Path log = dir.resolve(name + ".log");
        assertEquals(0, run(jar, log, args), jar + " " + String.join(" ", args) + "\n" + read(log));
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(" + log + " unreadable: " + e.getMessage() + ")";
        }
    }

    /** Polls until {@code done} or the deadline; the caller asserts what it waited for. */
    private static void await(BooleanSupplier done, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** Stops every process this test started: SIGTERM first, then forcibly, each bounded. */
    @AfterEach
    void stopStarted() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroy();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** The UAS: {@code uas --listen udp:127.0.0.1:0 --listen tls:127.0.0.1:0}; its ports by transport. */
    private Map<String, Integer> startUas(Process[] uas, Path certs, Path log) throws Exception {
        uas[0] = start(LAB_JAR, log, "uas", "--listen", "udp:127.0.0.1:0", "--listen", "tls:127.0.0.1:0",
                "--cert", certs.resolve("server.pem").toString(), "--key", certs.resolve("server-key.pem").toString());
        Process p = uas[0];
        await(() -> count(UAS_LISTENING, read(log)) >= 2 || !p.isAlive(), START_TIMEOUT_S);
        assertTrue(p.isAlive(), "uas exited at start:\n" + read(log));
        Map<String, Integer> ports = new TreeMap<>();
        Matcher m = UAS_LISTENING.matcher(read(log));
        while (m.find()) {
            ports.put(m.group(1), Integer.parseInt(m.group(3)));
        }
        assertEquals(List.of("tls", "udp"), List.copyOf(ports.keySet()), "uas listeners:\n" + read(log));
        return ports;
    }

    private static long count(Pattern p, String text) {
        return p.matcher(text).results().count();
    }

    /** The server jar with {@code args}; the listeners of its "ready on udp:H:P, tls:H:P" line. */
    private Map<String, String> startServer(Path log, String... args) throws Exception {
        // the verdict is 0 failed calls: without the wall-clock admission budget a pause of a busy
        // build machine cannot turn into refused calls (as the lab itself runs its server)
        String[] all = java.util.Arrays.copyOf(args, args.length + 4);
        all[args.length] = "--overload-max-queue-delay";
        all[args.length + 1] = "0";
        all[args.length + 2] = "--overload-queue-target";
        all[args.length + 3] = "0";
        Process server = start(SERVER_JAR, log, all);
        await(() -> SERVER_READY.matcher(read(log)).find() || !server.isAlive(), START_TIMEOUT_S);
        assertTrue(server.isAlive(), "server exited at start:\n" + read(log));
        Matcher m = SERVER_READY.matcher(read(log));
        assertTrue(m.find(), "server ready:\n" + read(log));
        Map<String, String> out = new TreeMap<>();
        for (String item : m.group(1).trim().split(",\\s*")) {
            int colon = item.indexOf(':');
            out.put(item.substring(0, colon), item.substring(colon + 1));
        }
        return out;
    }

    /** The summary of a uac {@code --json} file, read with Jackson. */
    private static JsonNode summary(Path json) throws IOException {
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        JsonNode summary = root.get("summary");
        assertNotNull(summary, "a summary in " + json + ": " + root);
        return summary;
    }

    /**
     * Runs {@code uac ... --rate 20 --duration 3 --warmup 1 --json FILE}; asserts exit code 0, every
     * measured call completed and none failed; returns the summary.
     */
    private JsonNode uacPasses(String name, String... args) throws Exception {
        Path json = dir.resolve(name + ".json");
        Path log = dir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>(List.of("uac"));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--rate", Integer.toString(RATE), "--duration", Integer.toString(DURATION_S),
                "--warmup", "1", "--json", json.toString()));
        int rc = run(LAB_JAR, log, cmd.toArray(String[]::new));
        assertEquals(0, rc, String.join(" ", cmd) + "\n" + read(log));
        JsonNode s = summary(json);
        assertEquals(0, s.get("failed").asLong(), name + ": no call failed: " + s);
        assertTrue(s.get("completed").asLong() > 0, name + ": calls completed: " + s);
        assertEquals(MEASURED_CALLS, s.get("completed").asLong(), name + ": every measured call completed: " + s);
        assertTrue(s.get("passed").asBoolean(), name + ": " + s);
        return s;
    }

    /** Stops the UAS with SIGTERM (as Ctrl-C does) and returns how many INVITEs, ACKs and BYEs it counted. */
    private static long[] stopUas(Process uas, Path log) throws InterruptedException {
        uas.destroy();
        assertTrue(uas.waitFor(30, TimeUnit.SECONDS), "uas stops on SIGTERM:\n" + read(log));
        Matcher m = UAS_COUNTS.matcher(read(log));
        assertTrue(m.find(), "uas printed its counts when stopped:\n" + read(log));
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
    }

    private Path certs() throws Exception {
        Path certs = dir.resolve("certs");
        runOk(SERVER_JAR, "certs", "certs", "--out", certs.toString(), "--san", "127.0.0.1,localhost");
        return certs;
    }

    @Test
    void labJarCallsThroughTheServerJarOverUdpAndTlsAndListsItsDatabase() throws Exception {
        Path certs = certs();
        Process[] uas = new Process[1];
        Path uasLog = dir.resolve("uas.log");
        Map<String, Integer> uasPorts = startUas(uas, certs, uasLog);
        Map<String, String> server = startServer(dir.resolve("server.log"), "--data-dir", dir.resolve("data").toString(),
                "--listen", "udp:127.0.0.1:0", "--listen", "tls:127.0.0.1:0",
                "--tls-cert", certs.resolve("server.pem").toString(),
                "--tls-key", certs.resolve("server-key.pem").toString(),
                "--tls-trust", certs.resolve("ca.pem").toString(),
                "--route", "lab.test=127.0.0.1:" + uasPorts.get("udp") + ";transport=udp",
                "--route", "tls.lab.test=127.0.0.1:" + uasPorts.get("tls") + ";transport=tls",
                "--stats-interval", "0", "--shutdown-grace", "2s");
        assertNotNull(server.get("udp"), server.toString());
        assertNotNull(server.get("tls"), server.toString());

        uacPasses("uac-udp", "--target", server.get("udp"), "--transport", "udp", "--uri", "sip:lab-uas@lab.test");
        JsonNode tls = uacPasses("uac-tls", "--target", server.get("tls"), "--transport", "tls", "--cipher", "aes",
                "--trust", certs.resolve("ca.pem").toString(), "--uri", "sip:lab-uas@tls.lab.test");
        // the one persistent connection's handshake falls in the warm-up, outside the measured counts
        assertTrue(tls.get("description").asText().startsWith("tls to " + server.get("tls") + " persistent"),
                "the measured calls ran over TLS to the server's TLS listener: " + tls);

        long[] uasCounts = stopUas(uas[0], uasLog);
        assertTrue(uasCounts[0] >= 2 * MEASURED_CALLS, "both runs' INVITEs reached the uas:\n" + read(uasLog));
        assertTrue(uasCounts[2] >= 2 * MEASURED_CALLS, "both runs' BYEs reached the uas:\n" + read(uasLog));
        assertTrue(read(uasLog).matches("(?s).*tls handshakes [1-9]\\d*.*"),
                "the server reached the uas over TLS:\n" + read(uasLog));

        runOk(LAB_JAR, "list", "list", "--db", "jdbc:h2:file:" + dir.resolve("lab-data").resolve("lab"));
        assertTrue(read(dir.resolve("list.log")).contains("no studies"), read(dir.resolve("list.log")));
    }

    @Test
    void labJarAnswersTheDigestChallengesOfTheServerJarWithAuth() throws Exception {
        Path certs = certs();
        String data = dir.resolve("data").toString();
        Path users = dir.resolve("users.csv");
        runOk(SERVER_JAR, "users", "users", "--data-dir", data, "--realm", "lab.test", "generate", "--count", "20",
                "--csv", users.toString());
        Process[] uas = new Process[1];
        Path uasLog = dir.resolve("uas.log");
        Map<String, Integer> uasPorts = startUas(uas, certs, uasLog);
        Map<String, String> server = startServer(dir.resolve("server.log"), "--data-dir", data,
                "--listen", "udp:127.0.0.1:0", "--realm", "lab.test", "--auth",
                "--route", "lab.test=127.0.0.1:" + uasPorts.get("udp") + ";transport=udp",
                "--stats-interval", "0", "--shutdown-grace", "2s");
        assertNotNull(server.get("udp"), server.toString());

        JsonNode s = uacPasses("uac-auth", "--target", server.get("udp"), "--transport", "udp",
                "--uri", "sip:lab-uas@lab.test", "--domain", "lab.test", "--users", users.toString());
        assertTrue(s.get("challenges").asLong() >= MEASURED_CALLS, "every measured INVITE was challenged: " + s);

        long[] uasCounts = stopUas(uas[0], uasLog);
        assertTrue(uasCounts[0] >= MEASURED_CALLS, "the authenticated INVITEs reached the uas:\n" + read(uasLog));
    }
}
