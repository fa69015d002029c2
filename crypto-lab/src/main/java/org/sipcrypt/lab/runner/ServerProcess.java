package org.sipcrypt.lab.runner;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sipcrypt.lab.metrics.ProcessCpu;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sipcrypt server under test in a JVM of its own, so its CPU is measured on its own process
 * ({@code /proc/PID/stat}) apart from the generator's. It runs {@code org.sipcrypt.server.ServerMain}
 * from the lab's own class path (the lab jar holds the server), logs to {@code server.log} and
 * writes a GC log ({@code gc.log}, from which the heap after the last collection is read) in its work
 * directory. Started when its "ready on" line names every listener; stopped by SIGTERM to its PID,
 * then killed if it has not exited in 20 s, and in any case when the lab's JVM exits. With an
 * {@code http} listener, named in its log before it is ready, its {@code /metrics} tell the TLS
 * engines of its handshakes ({@link #tlsEngines}).
 * Threading: one owner thread; {@link #cpuMicros} and {@link #heapAfterGcBytes} from any thread.
 */
public final class ServerProcess implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(ServerProcess.class);
    private static final Pattern READY = Pattern.compile("ready on (.+)$", Pattern.MULTILINE);
    private static final Pattern LISTENER = Pattern.compile("(udp|tcp|tls|wss|ws):(\\S+):(\\d+)");
    /** The server's {@code http} listener: {@code http endpoints on http://127.0.0.1:40123/metrics and /health}. */
    private static final Pattern METRICS = Pattern.compile("http endpoints on (http://\\S+/metrics) ");
    /** How long a read of {@code /metrics} may take to connect, and then to answer. */
    private static final int METRICS_TIMEOUT_MILLIS = 5_000;
    /** e.g. {@code [3.127s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 52M->6M(256M) 2.416ms}. */
    private static final Pattern GC = Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)");
    /** ZGC's line at the end of a cycle: {@code Garbage Collection (Warmup) 28M(11%)->84M(33%)}. */
    private static final Pattern ZGC = Pattern.compile("(\\d+)([KMG])\\(\\d+%\\)->(\\d+)([KMG])\\(\\d+%\\)");
    /** A pause, G1's ({@code [gc]}) or ZGC's ({@code [gc,phases]}): {@code [12.345s]... GC(3) Pause ... 0.012ms}. */
    private static final Pattern PAUSE = Pattern.compile("^\\[(\\d+\\.\\d+)s].*GC\\(\\d+\\) Pause .* (\\d+(?:\\.\\d+)?)ms$");

    private final Process process;
    private final Path workDir;
    private final Map<Transport, InetSocketAddress> listeners;
    /** The server's {@code /metrics}, or null when it has no {@code http} listener. */
    private final URI metrics;
    private boolean metricsFailed;

    private ServerProcess(Process process, Path workDir, Map<Transport, InetSocketAddress> listeners, URI metrics) {
        this.process = process;
        this.workDir = workDir;
        this.listeners = listeners;
        this.metrics = metrics;
    }

    /**
     * Starts a server and waits until it is ready.
     *
     * @param workDir    its log files go here (and its data directory, when the arguments say so)
     * @param jvmOptions JVM options, e.g. {@code -Xmx1g}
     * @param args       the server's command line ({@code --listen ... --data-dir ...})
     * @param timeout    how long it may take to start
     * @throws IOException it exited or did not become ready in time (the message quotes its log)
     */
    public static ServerProcess start(Path workDir, List<String> jvmOptions, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        return start(workDir, List.of(), jvmOptions, args, timeout);
    }

    /**
     * Starts a server through a launcher ({@code taskset -c 0}: see {@link CpuPinning#serverLauncher()})
     * and waits until it is ready; the launcher must exec the JVM, so that the process is the server.
     */
    public static ServerProcess start(Path workDir, List<String> launcher, List<String> jvmOptions, List<String> args,
                                      Duration timeout) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path logFile = workDir.resolve("server.log");
        List<String> cmd = new ArrayList<>(launcher);
        cmd.add(javaCommand());
        // compiler threads stay, so their CPU time can be left out of the server's (ProcessCpu)
        cmd.add("-XX:-UseDynamicNumberOfCompilerThreads");
        cmd.addAll(jvmOptions);
        // gc+phases: ZGC logs its pauses there
        cmd.add("-Xlog:gc,gc+phases:file=" + workDir.resolve("gc.log"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("org.sipcrypt.server.ServerMain");
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(logFile.toFile()));
        pb.environment().putIfAbsent("SIPCRYPT_LOG_LEVEL", "INFO");
        Process p = ChildProcesses.track(pb.start());
        log.debug("server pid {}: {}", p.pid(), String.join(" ", args));
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                String text = Files.exists(logFile) ? Files.readString(logFile, StandardCharsets.UTF_8) : "";
                Matcher m = READY.matcher(text);
                if (m.find()) {
                    Map<Transport, InetSocketAddress> bound = new EnumMap<>(Transport.class);
                    Matcher l = LISTENER.matcher(m.group(1));
                    while (l.find()) {
                        bound.put(Transport.parse(l.group(1)), new InetSocketAddress(l.group(2),
                                Integer.parseInt(l.group(3))));
                    }
                    Matcher http = METRICS.matcher(text);
                    return new ServerProcess(p, workDir, bound, http.find() ? URI.create(http.group(1)) : null);
                }
                if (!p.isAlive()) {
                    throw new IOException("the server exited with " + p.exitValue() + " at start: " + tail(text));
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            throw new IOException("the server was not ready in " + timeout.toSeconds() + " s: "
                    + tail(Files.readString(logFile, StandardCharsets.UTF_8)));
        } catch (IOException | InterruptedException | RuntimeException e) {
            stop(p);
            throw e;
        }
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String tail(String text) {
        String t = text.strip();
        return t.length() <= 1500 ? t : "..." + t.substring(t.length() - 1500);
    }

    /** The process ID. */
    public long pid() {
        return process.pid();
    }

    /** The address of the server's listener of a transport. */
    public InetSocketAddress address(Transport transport) {
        InetSocketAddress a = listeners.get(transport);
        if (a == null) {
            throw new IllegalStateException("the server has no " + transport.configName() + " listener");
        }
        return a;
    }

    /** Whether the process still runs. */
    public boolean alive() {
        return process.isAlive();
    }

    /** CPU time the server used so far in microseconds, JIT compiler threads left out; -1 when unknown. */
    public long cpuMicros() {
        return ProcessCpu.microsWithoutJit(process.pid());
    }

    /**
     * The TLS engines the server made handshakes on since it started, read from its {@code /metrics}
     * ({@link ServerTlsEngines#fromMetrics}); null when it has no {@code http} listener or the read
     * failed (said once per server at WARN, with why).
     */
    public List<String> tlsEngines() {
        if (metrics == null) {
            return null;
        }
        try {
            return ServerTlsEngines.fromMetrics(get(metrics));
        } catch (IOException e) {
            if (!metricsFailed) {
                metricsFailed = true;
                log.warn("server pid {}: cannot read its TLS engines from {}: {}", process.pid(), metrics, e.toString());
            } else {
                log.debug("server pid {}: cannot read its TLS engines from {}: {}", process.pid(), metrics,
                        e.toString());
            }
            return null;
        }
    }

    /**
     * The server's {@code /metrics} now, in the Prometheus text format.
     *
     * @throws IOException it has no {@code http} listener, or the read failed
     */
    public String metricsText() throws IOException {
        if (metrics == null) {
            throw new IOException("the server has no http listener");
        }
        return get(metrics);
    }

    /** The body of a 200 answer to a GET of {@code uri}, on this thread, the connection closed after it. */
    private static String get(URI uri) throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        try {
            c.setConnectTimeout(METRICS_TIMEOUT_MILLIS);
            c.setReadTimeout(METRICS_TIMEOUT_MILLIS);
            c.setRequestProperty("Connection", "close");
            int status = c.getResponseCode();
            if (status != 200) {
                throw new IOException("GET " + uri + ": " + status);
            }
            try (InputStream in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } finally {
            c.disconnect();
        }
    }

    /** The heap in use after the most recent garbage collection, -1 before the first one. */
    public long heapAfterGcBytes() {
        return heapAfterGc(workDir.resolve("gc.log"));
    }

    static long heapAfterGc(Path gcLog) {
        try {
            List<String> lines = Files.readAllLines(gcLog, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                Matcher m = GC.matcher(lines.get(i));
                if (!m.find()) {
                    m = ZGC.matcher(lines.get(i));
                    if (!m.find()) {
                        continue;
                    }
                }
                return Long.parseLong(m.group(3)) * unit(m.group(4));
            }
        } catch (IOException e) {
            log.debug("no GC log at {}: {}", gcLog, e.toString());
        }
        return -1;
    }

    /** Seconds since the server's JVM started, as its GC log stamps lines; -1 unknown. */
    public double uptimeSeconds() {
        return process.info().startInstant()
                .map(t -> java.time.Duration.between(t, java.time.Instant.now()).toNanos() / 1e9).orElse(-1.0);
    }

    /**
     * The collector's pauses between two uptimes ({@link #uptimeSeconds()}): {total ms, longest ms},
     * or {-1, -1} without a GC log.
     */
    public double[] gcPauses(double fromSeconds, double toSeconds) {
        return gcPauses(workDir.resolve("gc.log"), fromSeconds, toSeconds);
    }

    static double[] gcPauses(Path gcLog, double fromSeconds, double toSeconds) {
        List<String> lines;
        try {
            lines = Files.readAllLines(gcLog, StandardCharsets.UTF_8);
        } catch (IOException e) {
            log.debug("no GC log at {}: {}", gcLog, e.toString());
            return new double[] {-1, -1};
        }
        double total = 0;
        double max = 0;
        for (String line : lines) {
            Matcher m = PAUSE.matcher(line.strip());
            if (m.find()) {
                double at = Double.parseDouble(m.group(1));
                if (at >= fromSeconds && at <= toSeconds) {
                    double ms = Double.parseDouble(m.group(2));
                    total += ms;
                    max = Math.max(max, ms);
                }
            }
        }
        return new double[] {total, max};
    }

    private static long unit(String u) {
        return switch (u) {
            case "K" -> 1L << 10;
            case "M" -> 1L << 20;
            default -> 1L << 30;
        };
    }

    /** The server's log so far. */
    public String logText() throws IOException {
        return Files.readString(workDir.resolve("server.log"), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        stop(process);
    }

    private static void stop(Process p) {
        if (!p.isAlive()) {
            ChildProcesses.forget(p);
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                log.warn("server pid {} did not stop in 20 s; killed", p.pid());
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            ChildProcesses.forget(p);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
