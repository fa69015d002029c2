package org.sipcrypt.lab.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A lab scenario: the topology UAC generators → proxy under test → UAS, each leg's settings, the
 * workload, authentication, the load, repetitions, and extra settings of the server under test.
 * Threading: immutable.
 *
 * @param name        preset or file name, as in reports
 * @param description what the scenario isolates, for reports
 * @param workload    {@code call}, {@code register}, {@code refresh}, {@code unregister},
 *                    {@code invite-not-found} or {@code redirect}
 * @param auth        digest authentication on the server (users provisioned by the lab)
 * @param users       subscribers provisioned and used round robin
 * @param left        the leg from the generators to the proxy
 * @param right       the leg from the proxy to the UAS
 * @param load        rate, times and ramp
 * @param repeat      repetitions of each point
 * @param generators  UAC generator processes (1 runs in the lab's own process; more each get a JVM)
 * @param ciphers     what {@code run} compares when not told otherwise
 * @param server      extra server settings, key to value (e.g. {@code sip.workers: 4})
 * @param serverJvm   JVM options of the server process ({@link #LAB_SERVER_JVM} when a file gives none)
 * @param handshakes  the handshake combinations {@code compare} runs when not told otherwise
 *                    ({@code compare --handshakes}, e.g. {@code 1.3/ecdhe-x25519}); empty for the single
 *                    handshake of {@code --tls-version}, {@code --kx}, {@code --cert} and {@code --resumption}
 * @param idleConnections idle connections held on the left leg per compared cipher after its
 *                    fixed-rate points, for the server's heap per idle connection ({@code compare
 *                    --idle-connections}); 0 for none
 */
public record Scenario(String name, String description, String workload, boolean auth, int users, Leg left, Leg right,
                       LoadProfile load, int repeat, int generators, List<String> ciphers, Map<String, String> server,
                       List<String> serverJvm, List<String> handshakes, int idleConnections) {

    /** The most idle connections a comparison holds ({@code idleConnections}, {@code --idle-connections}). */
    public static final int MAX_IDLE_CONNECTIONS = 50_000;

    /**
     * The JVM options the lab starts the server with when a scenario file gives none: a fixed 1 GiB heap
     * touched at start, and G1. The server's recommended collector, ZGC (README, "Memory and garbage
     * collection"), runs cycles on a timer as well as on allocation, each marking the whole live heap:
     * a cost per second rather than per call, which made the server's CPU in one-second samples
     * lumpier (a standard error of the mean of 2.7 % against 1.5 % with G1 over 20 s of UDP calls at
     * 800 calls/s, docs/benchmarks.md) and blurred the differences between ciphers the lab measures.
     */
    public static final List<String> LAB_SERVER_JVM = List.of("-Xms1g", "-Xmx1g", "-XX:+UseG1GC",
            "-XX:+AlwaysPreTouch");

    /** The workloads the generator runs. */
    public static final Set<String> WORKLOADS = Set.of("call", "register", "refresh", "unregister", "invite-not-found",
            "redirect");

    public Scenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(left, "left");
        Objects.requireNonNull(right, "right");
        Objects.requireNonNull(load, "load");
        description = description == null ? "" : description;
        if (!WORKLOADS.contains(workload)) {
            throw new IllegalArgumentException("workload: \"" + workload + "\" (expected one of "
                    + String.join(", ", WORKLOADS.stream().sorted().toList()) + ")");
        }
        if (repeat < 1 || repeat > 100) {
            throw new IllegalArgumentException("repeat: " + repeat + " (expected 1 to 100)");
        }
        if (generators < 1 || generators > 32) {
            throw new IllegalArgumentException("generators: " + generators + " (expected 1 to 32)");
        }
        if (users < 1 || users > 1_000_000) {
            throw new IllegalArgumentException("users: " + users + " (expected 1 to 1000000)");
        }
        ciphers = List.copyOf(ciphers);
        if (ciphers.isEmpty()) {
            throw new IllegalArgumentException("ciphers: expected at least one");
        }
        server = Map.copyOf(new LinkedHashMap<>(server));
        serverJvm = List.copyOf(serverJvm);
        handshakes = handshakes == null ? List.of() : List.copyOf(handshakes);
        if (idleConnections < 0 || idleConnections > MAX_IDLE_CONNECTIONS) {
            throw new IllegalArgumentException("idleConnections: " + idleConnections + " (expected 0 to "
                    + MAX_IDLE_CONNECTIONS + ")");
        }
    }

    /** A scenario that measures no heap per idle connection. */
    public Scenario(String name, String description, String workload, boolean auth, int users, Leg left, Leg right,
                    LoadProfile load, int repeat, int generators, List<String> ciphers, Map<String, String> server,
                    List<String> serverJvm, List<String> handshakes) {
        this(name, description, workload, auth, users, left, right, load, repeat, generators, ciphers, server,
                serverJvm, handshakes, 0);
    }

    /** A scenario without a list of handshake combinations. */
    public Scenario(String name, String description, String workload, boolean auth, int users, Leg left, Leg right,
                    LoadProfile load, int repeat, int generators, List<String> ciphers, Map<String, String> server,
                    List<String> serverJvm) {
        this(name, description, workload, auth, users, left, right, load, repeat, generators, ciphers, server,
                serverJvm, List.of());
    }

    /** Whether any leg carries the compared cipher (else every cipher runs the same plaintext). */
    public boolean secured() {
        return left.secured() || right.secured();
    }

    /** Whether the workload goes through the proxy to the UAS (calls), not only to the registrar. */
    public boolean reachesUas() {
        return workload.equals("call");
    }

    /** A copy with another load. */
    public Scenario withLoad(LoadProfile l) {
        return new Scenario(name, description, workload, auth, users, left, right, l, repeat, generators, ciphers, server,
                serverJvm, handshakes, idleConnections);
    }

    /** A copy with another number of repetitions. */
    public Scenario withRepeat(int r) {
        return new Scenario(name, description, workload, auth, users, left, right, load, r, generators, ciphers, server,
                serverJvm, handshakes, idleConnections);
    }

    /** A copy with other handshake combinations (empty: none). */
    public Scenario withHandshakes(List<String> h) {
        return new Scenario(name, description, workload, auth, users, left, right, load, repeat, generators, ciphers, server,
                serverJvm, h, idleConnections);
    }

    /** A copy with another number of generator processes. */
    public Scenario withGenerators(int g) {
        return new Scenario(name, description, workload, auth, users, left, right, load, repeat, g, ciphers, server,
                serverJvm, handshakes, idleConnections);
    }

    /** A copy holding {@code n} idle connections per compared cipher after its fixed-rate points (0: none). */
    public Scenario withIdleConnections(int n) {
        return new Scenario(name, description, workload, auth, users, left, right, load, repeat, generators, ciphers, server,
                serverJvm, handshakes, n);
    }
}
