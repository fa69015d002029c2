package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The images no Compose test starts, the WAR's and Kamailio's, built and started as the README's
 * Docker section does it by hand ({@code docker build --target}, {@code docker run -d --network
 * host} with the documented environment), on free ports. Verdicts: the container's own health check
 * turns it healthy (the WAR's {@code /sipcrypt/health}, Kamailio's answer to an OPTIONS), {@code
 * docker stop} ends it with SIGTERM (not the kill that follows the grace time), and no container of
 * the test is left.
 * Threading: one test thread.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class HandStartedImagesIT {

    /** Longer than the health checks' start periods (120 s) and retries on a busy machine. */
    private static final Duration HEALTHY_TIMEOUT = Duration.ofMinutes(10);
    /** {@code docker stop -t}: the grace time before Docker kills the container. */
    private static final int STOP_GRACE_SECONDS = 120;

    @TempDir
    Path work;

    @Test
    void warImageRunsTomcatWithTheWarUntilHealthy() throws Exception {
        // Tomcat's connector, then the SIP port (UDP and TCP)
        int http = Docker.freePorts(2);
        String health = buildAndRunUntilHealthyThenStop("war", "-e", "TOMCAT_HTTP=127.0.0.1:" + http,
                "-e", "SIPCRYPT_LISTEN=udp:127.0.0.1:" + (http + 1) + ",tcp:127.0.0.1:" + (http + 1));
        assertTrue(health.contains("healthy: 1 server(s)"), "the WAR's /sipcrypt/health answered 200: " + health);
    }

    @Test
    void kamailioImageAnswersOptionsUntilHealthy() throws Exception {
        // one port for each of CIPHERS=udp,tcp
        int port = Docker.freePorts(2);
        String health = buildAndRunUntilHealthyThenStop("kamailio",
                "-e", "CIPHERS=udp,tcp", "-e", "KAMAILIO_PORT=" + port);
        assertTrue(health.contains("udp " + port + ": SIP/2.0 "), "Kamailio answered the health check's OPTIONS: "
                + health);
    }

    /**
     * Builds the target as the README does, runs it with {@code docker run -d --name NAME --network
     * host OPTIONS sipcrypt/TARGET}, waits until Docker reports the container healthy, stops it with
     * {@code docker stop} and removes it.
     *
     * @return the health check's log (JSON) from when it was healthy
     */
    private String buildAndRunUntilHealthyThenStop(String target, String... options) throws Exception {
        try (Docker docker = new Docker(work)) {
            String image = docker.build(target);
            String name = Docker.uniqueName();
            List<String> run = new ArrayList<>(List.of("run", "-d", "--name", name, "--network", "host"));
            run.addAll(List.of(options));
            run.add(image);
            try {
                docker.docker(run.toArray(String[]::new));
                awaitHealthy(docker, name);
                String health = docker.docker("inspect", "--format", "{{json .State.Health.Log}}", name);
                assertTrue(health.contains("\"ExitCode\":0"), "a passed health check: " + health);

                docker.docker("stop", "-t", Integer.toString(STOP_GRACE_SECONDS), name);
                String exit = docker.docker("inspect", "--format", "{{.State.ExitCode}}", name).strip();
                // 0 from Kamailio, 143 (128 + SIGTERM) from Tomcat's JVM; 137 would be the kill after the grace time
                assertTrue(exit.equals("0") || exit.equals("143"), "stopped by SIGTERM within " + STOP_GRACE_SECONDS
                        + " s (exit code " + exit + "); its log:\n" + Docker.tail(logs(docker, name)));
                return health;
            } finally {
                docker.docker("rm", "-f", "-v", name);
                assertEquals("", docker.docker("ps", "-a", "-q", "--filter", "name=" + name).strip(),
                        "container " + name + " left");
            }
        }
    }

    /** Polls the container's state until its health check reports healthy; fails when it exits or turns unhealthy. */
    private static void awaitHealthy(Docker docker, String name) throws Exception {
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
        String state = "";
        while (System.nanoTime() < deadline) {
            state = docker.docker("inspect", "--format", "{{.State.Status}} {{.State.Health.Status}}", name).strip();
            if (state.equals("running healthy")) {
                return;
            }
            if (!state.startsWith("running ") || state.endsWith(" unhealthy")) {
                fail(name + " is " + state + "; health: "
                        + docker.docker("inspect", "--format", "{{json .State.Health.Log}}", name) + "\nits log:\n"
                        + Docker.tail(logs(docker, name)));
            }
            Thread.sleep(2_000);
        }
        fail(name + " not healthy after " + HEALTHY_TIMEOUT.toSeconds() + " s (" + state + "); its log:\n"
                + Docker.tail(logs(docker, name)));
    }

    private static String logs(Docker docker, String name) {
        try {
            return docker.docker("logs", name);
        } catch (Exception | AssertionError e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
