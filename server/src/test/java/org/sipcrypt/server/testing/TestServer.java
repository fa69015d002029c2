package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.transport.Transport;

/**
 * A real sipcrypt server for tests: UDP and TCP on 127.0.0.1 with ephemeral ports, its database in
 * the given directory, settings overridden by configuration key. Closing it shuts the server down
 * gracefully and checks that no connection was left open. The system property
 * {@value #FAST_PATH_PROPERTY} ({@code on} or {@code off}), when set, is the {@code sip.fastPath} of
 * every server a test does not give one itself, so that a build can run the same tests with the byte
 * paths off.
 * Threading: start and close from the test thread.
 */
public final class TestServer implements AutoCloseable {

    /** The system property whose value is the {@code sip.fastPath} of servers whose test does not set it. */
    public static final String FAST_PATH_PROPERTY = "sipcrypt.test.fastPath";

    private final Path dataDir;
    private final Map<String, List<String>> settings;
    private final Clock clock;
    private SipcryptServer server;

    private TestServer(Path dataDir, Map<String, List<String>> settings, Clock clock) {
        this.dataDir = dataDir;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Starts a server.
     *
     * @param dataDir   its data directory (a {@code @TempDir})
     * @param overrides pairs of configuration key and value, e.g. {@code "mode", "redirect"};
     *                  a key given twice becomes a list
     */
    public static TestServer start(Path dataDir, String... overrides) throws Exception {
        return start(dataDir, Clock.systemUTC(), overrides);
    }

    /**
     * Starts a server whose SIP layer reads {@code clock} (a {@link ManualClock} ages nonces and
     * bindings without sleeping).
     */
    public static TestServer start(Path dataDir, Clock clock, String... overrides) throws Exception {
        return start(dataDir, clock, null, overrides);
    }

    /**
     * Starts a server from a configuration file, as {@code --config FILE} does: the file's keys, with
     * {@code overrides} (and the test defaults: data directory, loopback listeners) given beside it,
     * which win. What the server reloads at run time is read from that file again.
     */
    public static TestServer startFromFile(Path dataDir, Path configFile, String... overrides) throws Exception {
        return start(dataDir, Clock.systemUTC(), java.util.Objects.requireNonNull(configFile, "configFile"), overrides);
    }

    private static TestServer start(Path dataDir, Clock clock, Path configFile, String... overrides) throws Exception {
        Map<String, List<String>> given = new LinkedHashMap<>();
        for (int i = 0; i + 1 < overrides.length; i += 2) {
            given.computeIfAbsent(overrides[i], k -> new ArrayList<>()).add(overrides[i + 1]);
        }
        Map<String, List<String>> s = new LinkedHashMap<>();
        s.put("dataDir", List.of(dataDir.toString()));
        s.put("stats.interval", List.of("0"));
        s.put("shutdown.grace", List.of("2s"));
        // wall-clock budgets: a busy build machine could trip them in any test; OverloadGuardTest
        // and StandingQueueTest cover them with a ticker of their own
        s.put("overload.maxQueueDelay", List.of("0"));
        s.put("overload.queueTarget", List.of("0"));
        s.put("listen", List.of("udp:127.0.0.1:0", "tcp:127.0.0.1:0"));
        String fastPath = System.getProperty(FAST_PATH_PROPERTY, "").trim();
        if (!fastPath.isEmpty()) {
            s.put("sip.fastPath", List.of(fastPath));
        }
        s.putAll(given);
        TestServer t = new TestServer(dataDir, s, clock);
        t.server = SipcryptServer.start(ConfigLoader.load(configFile, s), clock,
                new org.sipcrypt.server.config.ConfigSource(configFile, s));
        return t;
    }

    /** The running server. */
    public SipcryptServer server() {
        return server;
    }

    /**
     * Whether the server's fast path is on ({@code sip.fastPath}): only then do its byte-path
     * counters ({@code sip.requests.relayed_early}, ...) count what it settled from bytes.
     */
    public boolean fastPath() {
        return server.config().fastPath();
    }

    /** The address of a transport's listener. */
    public InetSocketAddress address(Transport t) {
        return server.address(t);
    }

    /** A raw SIP socket to a transport's listener (UDP or TCP). */
    public SipSocket socket(Transport t) throws IOException {
        return t == Transport.UDP ? SipSocket.udp(address(t)) : SipSocket.tcp(address(t));
    }

    /** {@code 127.0.0.1:port} of a transport's listener. */
    public String hostPort(Transport t) {
        InetSocketAddress a = address(t);
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** The effective configuration. */
    public ServerConfig config() {
        return server.config();
    }

    /** Stops the server and starts a new one on the same data directory and settings (new ports). */
    public void restart() throws Exception {
        server.close();
        server = SipcryptServer.start(ConfigLoader.load(null, settings), clock);
    }

    /** The data directory. */
    public Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() {
        server.close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (server.transportCounters().openConnections().get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int open = server.transportCounters().openConnections().get();
        if (open != 0) {
            throw new AssertionError(open + " connections still open after the server closed");
        }
    }
}
