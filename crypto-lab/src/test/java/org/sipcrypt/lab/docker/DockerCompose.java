package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a Compose file of {@code docker/compose/} the way the README does, under a project name of
 * its own, on the {@link Docker} it sets up (daemon and base image): runs {@code up --build
 * --abort-on-container-exit --exit-code-from lab}, and takes everything down again, checking that no
 * container, network or volume of the project is left.
 * Threading: one test thread.
 */
final class DockerCompose implements AutoCloseable {

    private static final Duration UP_TIMEOUT = Duration.ofMinutes(20);

    private final Docker docker;
    private final Path work;
    private final Path file;
    private final String project;
    private final Map<String, String> env = new TreeMap<>();
    private boolean down;

    /**
     * Prepares Docker for a Compose file.
     *
     * @param work a directory for logs and the daemon's PID file
     * @param name the file under docker/compose/, e.g. {@code chain.yml}
     */
    DockerCompose(Path work, String name) throws Exception {
        this.work = work;
        this.file = Docker.ROOT.resolve("docker/compose").resolve(name);
        assertTrue(Files.isRegularFile(file), "compose file " + file);
        this.project = Docker.uniqueName();
        this.docker = new Docker(work);
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
        String out = Docker.read(log);
        assertEquals(0, rc, "compose up:\n" + Docker.tail(out));
        return out;
    }

    /** Checks that a service's container passed its health check, which saw {@code servers} server(s). */
    void assertHealthy(String service, int servers) throws Exception {
        String health = docker.docker("inspect", "--format", "{{json .State.Health.Log}}", container(service));
        assertTrue(health.contains("\"ExitCode\":0") && health.contains("healthy: " + servers + " server(s)"),
                "a passed health check of the " + service + " container: " + health);
    }

    /** The ID of a service's (first) container. */
    String container(String service) throws Exception {
        Path log = work.resolve("ps-" + service + ".log");
        assertEquals(0, compose(log, Docker.COMMAND_TIMEOUT, "ps", "-q", service), Docker.read(log));
        return Docker.read(log).lines().filter(l -> l.matches("[0-9a-f]{12,}")).findFirst()
                .orElseThrow(() -> new AssertionError("no container of " + service + ": " + Docker.read(log)));
    }

    /** The output of {@code docker ARGS...}, which must succeed. */
    String docker(String... args) throws Exception {
        return docker.docker(args);
    }

    /** Takes the project down ({@code down -v}) and checks nothing of it is left. */
    void downAndCheckNothingLeft() throws Exception {
        Path log = work.resolve("down.log");
        down = true;
        assertEquals(0, compose(log, Docker.COMMAND_TIMEOUT, "down", "-v", "--remove-orphans"), Docker.read(log));
        String label = "label=com.docker.compose.project=" + project;
        assertEquals("", docker("ps", "-a", "-q", "--filter", label).strip(), "containers left");
        assertEquals("", docker("network", "ls", "-q", "--filter", label).strip(), "networks left");
        assertEquals("", docker("volume", "ls", "-q", "--filter", label).strip(), "volumes left");
    }

    @Override
    public void close() throws Exception {
        try {
            if (!down) {
                compose(work.resolve("down.log"), Docker.COMMAND_TIMEOUT, "down", "-v", "--remove-orphans");
            }
        } finally {
            docker.close();
        }
    }

    private int compose(Path log, Duration timeout, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(
                Docker.onPath("docker-compose") ? List.of("docker-compose") : List.of("docker", "compose"));
        cmd.addAll(List.of("-p", project, "-f", file.toString()));
        cmd.addAll(List.of(args));
        return docker.run(log, timeout, env, cmd.toArray(String[]::new));
    }
}
