package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs a Compose file of {@code docker/compose/} the way the README does, under a project name of
 * its own: starts a Docker daemon with {@code docker/daemon.sh} when none answers (and stops only
 * that one), makes the base image with {@code docker/bootstrap-base.sh}, runs {@code up --build
 * --abort-on-container-exit --exit-code-from lab}, and takes everything down again, checking that no
 * container, network or volume of the project is left. Without Docker installed it fails with the
 * packages to install: a Docker test never passes without running.
 * Threading: one test thread.
 */
final class DockerCompose implements AutoCloseable {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Duration DAEMON_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration BASE_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration UP_TIMEOUT = Duration.ofMinutes(20);
    private static final Duration DOWN_TIMEOUT = Duration.ofMinutes(3);

    private final Path work;
    private final Path file;
    private final String project;
    private final Map<String, String> env = new TreeMap<>();
    private final Path daemonPid;
    private boolean down;

    /**
     * Prepares Docker for a Compose file.
     *
     * @param work a directory for logs and the daemon's PID file
     * @param name the file under docker/compose/, e.g. {@code chain.yml}
     */
    DockerCompose(Path work, String name) throws Exception {
        this.work = work;
        this.file = ROOT.resolve("docker/compose").resolve(name);
        assertTrue(Files.isRegularFile(file), "compose file " + file);
        this.project = "sipcrypt-it-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
        this.daemonPid = work.resolve("dockerd.pid");
        if (!onPath("docker")) {
            fail("Docker is needed: apt-get install docker.io docker-compose debootstrap (.ci/run installs them)");
        }
        int rc = run(work.resolve("daemon.log"), DAEMON_TIMEOUT, ROOT.resolve("docker/daemon.sh").toString(), "start",
                daemonPid.toString());
        assertEquals(0, rc, "docker/daemon.sh start:\n" + read(work.resolve("daemon.log")));
        rc = run(work.resolve("bootstrap.log"), BASE_TIMEOUT, ROOT.resolve("docker/bootstrap-base.sh").toString());
        assertEquals(0, rc, "docker/bootstrap-base.sh:\n" + read(work.resolve("bootstrap.log")));
    }

    /** Sets an environment variable of the Compose run. */
    DockerCompose env(String key, String value) {
        env.put(key, value);
        return this;
    }

    /**
     * Sets what the lab's generator offers (CIPHERS, RATE calls/s for DURATION seconds after WARMUP
     * seconds) and mounts a new lab-results directory under the work directory for the collector.
     *
     * @return that lab-results directory
     */
    Path load(String ciphers, int rate, int durationSeconds, int warmupSeconds) throws IOException {
        Path results = Files.createDirectories(work.resolve("lab-results"));
        env("CIPHERS", ciphers).env("RATE", Integer.toString(rate)).env("DURATION", Integer.toString(durationSeconds))
                .env("WARMUP", Integer.toString(warmupSeconds)).env("LAB_RESULTS", results.toString());
        return results;
    }

    String project() {
        return project;
    }

    /** {@code up --build --abort-on-container-exit --exit-code-from lab}; returns its exit code. */
    int up(Path log) throws Exception {
        return compose(log, UP_TIMEOUT, "up", "--build", "--abort-on-container-exit", "--exit-code-from", "lab");
    }

    /**
     * Runs {@link #up} with its output in WORK/up.log and fails with the log's tail unless it exits 0;
     * returns the log.
     */
    String upOrFail() throws Exception {
        Path log = work.resolve("up.log");
        int rc = up(log);
        String out = read(log);
        assertEquals(0, rc, "compose up:\n" + tail(out));
        return out;
    }

    /** Checks that a service's container passed its health check, which saw {@code servers} server(s). */
    void assertHealthy(String service, int servers) throws Exception {
        String health = docker("inspect", "--format", "{{json .State.Health.Log}}", container(service));
        assertTrue(health.contains("\"ExitCode\":0") && health.contains("healthy: " + servers + " server(s)"),
                "a passed health check of the " + service + " container: " + health);
    }

    /** The ID of a service's (first) container. */
    String container(String service) throws Exception {
        Path log = work.resolve("ps-" + service + ".log");
        assertEquals(0, compose(log, DOWN_TIMEOUT, "ps", "-q", service), read(log));
        return read(log).lines().filter(l -> l.matches("[0-9a-f]{12,}")).findFirst()
                .orElseThrow(() -> new AssertionError("no container of " + service + ": " + read(work.resolve("ps-" + service + ".log"))));
    }

    /** The output of {@code docker ARGS...}, which must succeed. */
    String docker(String... args) throws Exception {
        Path log = work.resolve("docker.out");
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        int rc = run(log, DOWN_TIMEOUT, cmd.toArray(String[]::new));
        assertEquals(0, rc, String.join(" ", cmd) + ":\n" + read(log));
        return read(log);
    }

    /** Takes the project down ({@code down -v}) and checks nothing of it is left. */
    void downAndCheckNothingLeft() throws Exception {
        Path log = work.resolve("down.log");
        down = true;
        assertEquals(0, compose(log, DOWN_TIMEOUT, "down", "-v", "--remove-orphans"), read(log));
        String label = "label=com.docker.compose.project=" + project;
        assertEquals("", docker("ps", "-a", "-q", "--filter", label).strip(), "containers left");
        assertEquals("", docker("network", "ls", "-q", "--filter", label).strip(), "networks left");
        assertEquals("", docker("volume", "ls", "-q", "--filter", label).strip(), "volumes left");
    }

    @Override
    public void close() throws Exception {
        try {
            if (!down) {
                compose(work.resolve("down.log"), DOWN_TIMEOUT, "down", "-v", "--remove-orphans");
            }
        } finally {
            run(work.resolve("daemon-stop.log"), DAEMON_TIMEOUT, ROOT.resolve("docker/daemon.sh").toString(), "stop",
                    daemonPid.toString());
        }
    }

    private int compose(Path log, Duration timeout, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(onPath("docker-compose") ? List.of("docker-compose") : List.of("docker", "compose"));
        cmd.addAll(List.of("-p", project, "-f", file.toString()));
        cmd.addAll(List.of(args));
        return run(log, timeout, cmd.toArray(String[]::new));
    }

    private int run(Path log, Duration timeout, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
            fail(String.join(" ", cmd) + " still running after " + timeout.toSeconds() + " s:\n" + tail(read(log)));
        }
        return p.exitValue();
    }

    static String read(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + f + ": " + e.getMessage() + ")";
        }
    }

    static String tail(String text) {
        return text.length() <= 20_000 ? text : text.substring(text.length() - 20_000);
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String d : path.split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A base port where {@code count} consecutive ports are free for both TCP and UDP on 127.0.0.1,
     * below the ephemeral range so no connection of another test takes them meanwhile.
     */
    static int freePorts(int count) throws IOException {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(12_000 - count);
            boolean free = true;
            for (int p = base; p < base + count && free; p++) {
                try (ServerSocket t = new ServerSocket()) {
                    t.bind(new InetSocketAddress(lo, p));
                    try (DatagramSocket u = new DatagramSocket(new InetSocketAddress(lo, p))) {
                        free = u.isBound();
                    }
                } catch (IOException e) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IOException("no " + count + " consecutive free ports between 20000 and 32000 on 127.0.0.1");
    }
}
