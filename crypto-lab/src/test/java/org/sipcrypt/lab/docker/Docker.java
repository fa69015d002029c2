package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Docker for one test, set up as the README sets it up: starts a daemon with {@code
 * docker/daemon.sh} when none answers (and stops only that one on {@link #close}), makes the base
 * image with {@code docker/bootstrap-base.sh}, and runs commands from the repository root with their
 * output in a log of the work directory. Without Docker installed it fails with the packages to
 * install: a Docker test never passes without running.
 * Threading: one test thread.
 */
final class Docker implements AutoCloseable {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** How long one docker or Compose command that is not a build or a run may take. */
    static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration DAEMON_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration BASE_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);

    private final Path work;
    private final Path daemonPid;

    /**
     * Starts a daemon unless one answers and makes the base image.
     *
     * @param work a directory for logs and the daemon's PID file
     */
    Docker(Path work) throws Exception {
        this.work = work;
        this.daemonPid = work.resolve("dockerd.pid");
        if (!onPath("docker")) {
            fail("Docker is needed: apt-get install docker.io docker-compose debootstrap (.ci/run installs them)");
        }
        int rc = run(work.resolve("daemon.log"), DAEMON_TIMEOUT, Map.of(), ROOT.resolve("docker/daemon.sh").toString(),
                "start", daemonPid.toString());
        assertEquals(0, rc, "docker/daemon.sh start:\n" + read(work.resolve("daemon.log")));
        rc = run(work.resolve("bootstrap.log"), BASE_TIMEOUT, Map.of(),
                ROOT.resolve("docker/bootstrap-base.sh").toString());
        assertEquals(0, rc, "docker/bootstrap-base.sh:\n" + read(work.resolve("bootstrap.log")));
    }

    /** The output of {@code docker ARGS...}, which must succeed within {@link #COMMAND_TIMEOUT}. */
    String docker(String... args) throws Exception {
        return dockerOrFail(COMMAND_TIMEOUT, args);
    }

    /**
     * Builds one target of {@code docker/Dockerfile} as the README does: {@code docker build
     * --network host -f docker/Dockerfile --target TARGET -t sipcrypt/TARGET .} from the repository
     * root.
     *
     * @return the image's name
     */
    String build(String target) throws Exception {
        String image = "sipcrypt/" + target;
        dockerOrFail(BUILD_TIMEOUT, "build", "--network", "host", "-f", "docker/Dockerfile", "--target", target, "-t",
                image, ".");
        return image;
    }

    private String dockerOrFail(Duration timeout, String... args) throws Exception {
        Path log = work.resolve("docker.out");
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        int rc = run(log, timeout, Map.of(), cmd.toArray(String[]::new));
        String out = read(log);
        assertEquals(0, rc, String.join(" ", cmd) + ":\n" + tail(out));
        return out;
    }

    /**
     * Runs a command from the repository root with {@code env} added to its environment and its
     * output in {@code log}; fails when it runs longer than {@code timeout}.
     *
     * @return its exit code
     */
    int run(Path log, Duration timeout, Map<String, String> env, String... cmd) throws Exception {
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

    /** Stops the daemon if {@link #Docker} started it. */
    @Override
    public void close() throws Exception {
        run(work.resolve("daemon-stop.log"), DAEMON_TIMEOUT, Map.of(), ROOT.resolve("docker/daemon.sh").toString(),
                "stop", daemonPid.toString());
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

    static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String d : path.split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /** A name for the containers or the Compose project of one test: {@code sipcrypt-it-} and a random hex number. */
    static String uniqueName() {
        return "sipcrypt-it-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
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
