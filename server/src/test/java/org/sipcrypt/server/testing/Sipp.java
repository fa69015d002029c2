package org.sipcrypt.server.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs SIPp (Debian package {@code sip-tester}, 3.6) from tests, on 127.0.0.1 only, with a call
 * limit and a hard timeout: a scenario from {@code scenarios/sipp/} in the repository either runs
 * to completion as a client ({@link #run()}) or is started as a long-running server
 * ({@link #start()}, {@link #startUas}) that is killed by PID when its handle is closed.
 *
 * <p>Results come from SIPp's statistics file ({@code -trace_stat -stf}, last line), not only
 * from its exit code; the tail of its error log ({@code -trace_err}) and of its stderr is kept
 * for assertion messages. Each run writes into its own work directory (a fresh temporary
 * directory unless {@link #workDir(Path)} is given), which is deleted after a clean run (a client
 * whose every call succeeded, a server that failed none) and kept otherwise.
 *
 * <pre>{@code
 * try (Sipp.Running uas = Sipp.startUas(Sipp.Mode.UDP, uasPort, 1_000, Duration.ofSeconds(60))) {
 *     Sipp.Result r = Sipp.scenario("uac.xml").mode(Sipp.Mode.UDP).remote("127.0.0.1", uasPort)
 *             .service("alice").rate(100).calls(50).timeout(Duration.ofSeconds(30)).run();
 *     assertTrue(r.allCallsSucceeded(), r::describe);
 * }
 * }</pre>
 *
 * When {@code sipp} is not on the {@code PATH}, every entry point throws
 * {@link IllegalStateException} with {@link #INSTALL_HINT}.
 * Threading: not thread-safe; configure and run from one test thread. {@link Running} handles may
 * be closed from any thread.
 */
public final class Sipp {

    /** The message of the failure when SIPp is missing. */
    public static final String INSTALL_HINT = "SIPp not found: install it with 'apt-get install -y sip-tester'";

    /** Directory of the scenarios, relative to the repository root. */
    public static final Path SCENARIO_DIR = Path.of("scenarios", "sipp");

    private static final String LOOPBACK = "127.0.0.1";
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);
    private static final Duration HARD_TIMEOUT_SLACK = Duration.ofSeconds(5);
    private static final Duration LISTEN_WAIT = Duration.ofSeconds(10);
    /** Below this host's open-file limit; SIPp refuses -t tn when max_socket exceeds it. */
    private static final int MAX_SOCKETS = 4096;
    private static final int TAIL_CHARS = 2_000;

    /**
     * SIPp transport modes ({@code -t}). Debian's build has no TLS.
     * Threading: immutable.
     */
    public enum Mode {
        /** UDP, one socket ({@code -t u1}). */
        UDP("u1", "udp"),
        /** TCP, one connection for all calls ({@code -t t1}). */
        TCP("t1", "tcp"),
        /** TCP, one connection per call ({@code -t tn}); as a server SIPp serves this in t1 mode. */
        TCP_PER_CALL("tn", "tcp");

        private final String flag;
        private final String transport;

        Mode(String flag, String transport) {
            this.flag = flag;
            this.transport = transport;
        }

        /** The value of SIPp's {@code -t} option. */
        public String flag() {
            return flag;
        }

        /** The SIP transport, lower case as in a URI's {@code transport} parameter. */
        public String transport() {
            return transport;
        }
    }

    private final Path scenario;
    private Mode mode = Mode.UDP;
    private String remoteHost;
    private int remotePort;
    private int localPort;
    private String service;
    private String authUri;
    private double rate = 10;
    private int calls;
    private int maxConcurrentCalls;
    private final Map<String, String> keys = new LinkedHashMap<>();
    private Duration timeout = Duration.ofSeconds(60);
    private Path workDir;
    private Path injectionFile;
    private boolean traceMessages;

    private Sipp(Path scenario) {
        this.scenario = scenario;
    }

    /**
     * A run of {@code scenarios/sipp/<fileName>}.
     *
     * @throws IllegalStateException when SIPp is not installed, the repository root cannot be
     *                               found, or the scenario does not exist
     */
    public static Sipp scenario(String fileName) {
        Objects.requireNonNull(fileName, "fileName");
        executable();
        Path file = repositoryRoot().resolve(SCENARIO_DIR).resolve(fileName);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("SIPp scenario " + file + " does not exist");
        }
        return new Sipp(file);
    }

    /**
     * Starts {@code uas.xml} as a server on {@code 127.0.0.1:localPort} and returns once it listens.
     *
     * @param mode      {@link Mode#UDP} or {@link Mode#TCP} (TCP also serves per-call connections)
     * @param localPort port to listen on, or 0 for a free one ({@link Running#port()})
     * @param calls     SIPp exits after this many calls
     * @param timeout   SIPp is ended after this long at the latest
     */
    public static Running startUas(Mode mode, int localPort, int calls, Duration timeout)
            throws IOException, InterruptedException {
        return scenario("uas.xml").mode(mode).localPort(localPort).calls(calls).timeout(timeout).start();
    }

    /**
     * The {@code sipp} executable on the {@code PATH}.
     *
     * @throws IllegalStateException with {@link #INSTALL_HINT} when there is none
     */
    public static Path executable() {
        String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, "sipp");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException(INSTALL_HINT);
    }

    /**
     * The repository root: the nearest directory, from the working directory upwards, that
     * contains {@code scenarios/sipp}.
     *
     * @throws IllegalStateException when no such directory exists
     */
    public static Path repositoryRoot() {
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve(SCENARIO_DIR))) {
                return dir;
            }
        }
        throw new IllegalStateException("no " + SCENARIO_DIR + " in " + start + " or any directory above it");
    }

    /** A port on 127.0.0.1 that is free for both UDP and TCP at the time of the call. */
    public static int freePort() throws IOException {
        InetAddress loopback = InetAddress.getByName(LOOPBACK);
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket tcp = new ServerSocket(0, 1, loopback)) {
                int port = tcp.getLocalPort();
                if (udpFree(loopback, port)) {
                    return port;
                }
            }
        }
        throw new IOException("no port free for both UDP and TCP on " + LOOPBACK + " after 50 attempts");
    }

    private static boolean udpFree(InetAddress address, int port) {
        DatagramSocket probe;
        try {
            probe = new DatagramSocket(new InetSocketAddress(address, port));
        } catch (SocketException inUse) {
            return false;   // the answer, not an error: this TCP port's UDP twin is taken
        }
        probe.close();
        return true;
    }

    /** Transport mode; default {@link Mode#UDP}. */
    public Sipp mode(Mode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /** Where a client sends its requests; required for {@link #run()}. */
    public Sipp remote(String host, int port) {
        this.remoteHost = Objects.requireNonNull(host, "host");
        this.remotePort = checkPort(port, "port");
        return this;
    }

    /** Local port ({@code -p}); 0, the default, picks a free one (SIPp would otherwise try 5060 first). */
    public Sipp localPort(int port) {
        this.localPort = checkPort(port, "localPort");
        return this;
    }

    /** The user part of the Request-URI ({@code -s}, the {@code [service]} keyword). */
    public Sipp service(String service) {
        this.service = Objects.requireNonNull(service, "service");
        return this;
    }

    /**
     * The digest uri SIPp's {@code [authentication]} puts in its credentials ({@code -auth_uri}, which
     * SIPp prefixes with {@code sip:}), e.g. {@code callee@127.0.0.1:5060}. Without it SIPp writes
     * {@code sip:REMOTE_IP:REMOTE_PORT}, which is the Request-URI of a REGISTER but not of an INVITE,
     * and the server refuses a digest uri other than the Request-URI.
     */
    public Sipp authUri(String uriWithoutScheme) {
        this.authUri = Objects.requireNonNull(uriWithoutScheme, "uriWithoutScheme");
        return this;
    }

    /** New calls per second ({@code -r}); default 10. */
    public Sipp rate(double callsPerSecond) {
        if (!(callsPerSecond > 0)) {
            throw new IllegalArgumentException("rate " + callsPerSecond + " must be positive");
        }
        this.rate = callsPerSecond;
        return this;
    }

    /** Call limit ({@code -m}): SIPp exits after this many calls. Required. */
    public Sipp calls(int calls) {
        if (calls <= 0) {
            throw new IllegalArgumentException("calls " + calls + " must be positive");
        }
        this.calls = calls;
        return this;
    }

    /** At most this many calls open at once ({@code -l}); 0, the default, leaves SIPp's own limit. */
    public Sipp maxConcurrentCalls(int maxCalls) {
        if (maxCalls < 0) {
            throw new IllegalArgumentException("maxConcurrentCalls " + maxCalls + " must not be negative");
        }
        this.maxConcurrentCalls = maxCalls;
        return this;
    }

    /** A scenario keyword value ({@code -key name value}, the {@code [name]} keyword). */
    public Sipp key(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("key name \"" + name + "\" must be one word");
        }
        keys.put(name, value);
        return this;
    }

    /**
     * How long SIPp may run ({@code -timeout}); a few seconds later it is killed. Default 60 s.
     */
    public Sipp timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("timeout " + timeout + " must be at least 1 s");
        }
        this.timeout = timeout;
        return this;
    }

    /**
     * An injection file ({@code -inf}): a first line {@code SEQUENTIAL}, {@code RANDOM} or
     * {@code USER}, then one line of {@code ;}-separated fields per call, the {@code [field0]},
     * {@code [field1]}, ... keywords of the scenario (as {@code sipcrypt users generate --csv} writes).
     */
    public Sipp injectionFile(Path file) {
        Objects.requireNonNull(file, "file");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("injection file " + file + " does not exist");
        }
        this.injectionFile = file.toAbsolutePath();
        return this;
    }

    /**
     * Whether SIPp logs every message it sends and receives ({@code -trace_msg}) to
     * {@code messages.log} in its work directory; default off. For diagnosis: the file grows by
     * about a kilobyte per message.
     */
    public Sipp traceMessages(boolean on) {
        this.traceMessages = on;
        return this;
    }

    /** Directory for SIPp's files (kept); default a fresh temporary directory, deleted after a clean run. */
    public Sipp workDir(Path dir) {
        this.workDir = Objects.requireNonNull(dir, "dir");
        return this;
    }

    /**
     * Runs the scenario as a client to completion: until the call limit, SIPp's own timeout, or
     * the hard timeout 5 s later, when the process gets TERM (SIPp then writes its final
     * statistics) and 5 s after that KILL; {@link Result#timedOut()} tells. An overloaded SIPp
     * that still has calls open does not stop at its own timeout.
     */
    public Result run() throws IOException, InterruptedException {
        if (remoteHost == null) {
            throw new IllegalStateException("remote(host, port) is required to run " + scenario.getFileName());
        }
        Launch launch = launch(true);
        boolean timedOut = !launch.process.waitFor(timeout.plus(HARD_TIMEOUT_SLACK).toMillis(), TimeUnit.MILLISECONDS);
        if (timedOut) {
            destroy(launch.process);
        }
        return launch.result(exitCode(launch.process), timedOut);
    }

    /**
     * Starts the scenario as a server listening on 127.0.0.1 and returns once its port is bound
     * (read from {@code /proc/net}). The process still stops by itself at the call limit or the
     * timeout.
     *
     * @throws IOException when SIPp exits or does not listen within 10 s (with its stderr)
     */
    public Running start() throws IOException, InterruptedException {
        if (localPort == 0) {
            localPort = freePort();
        }
        Launch launch = launch(false);
        long deadline = System.nanoTime() + LISTEN_WAIT.toNanos();
        while (!listening(mode, localPort)) {
            if (!launch.process.isAlive()) {
                Result r = launch.result(launch.process.exitValue(), false);
                throw new IOException("SIPp " + scenario.getFileName() + " exited before listening: " + r.describe());
            }
            if (System.nanoTime() > deadline) {
                destroy(launch.process);
                throw new IOException("SIPp " + scenario.getFileName() + " is not listening on " + mode.transport()
                        + " " + LOOPBACK + ":" + localPort + " after " + LISTEN_WAIT.toSeconds() + " s: "
                        + launch.result(exitCode(launch.process), true).describe());
            }
            Thread.sleep(20);
        }
        return new Running(launch, localPort);
    }

    /** The command line as it would run now (without resolving a local port of 0). */
    public List<String> command() {
        Path dir = workDir != null ? workDir : Path.of("WORKDIR");
        return command(dir, remoteHost != null);
    }

    private List<String> command(Path dir, boolean client) {
        if (calls <= 0) {
            throw new IllegalStateException("calls(n) is required: every SIPp run is bounded by a call limit");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(executable().toString());
        cmd.addAll(List.of("-sf", scenario.toString()));
        cmd.addAll(List.of("-i", LOOPBACK, "-ci", LOOPBACK, "-mi", LOOPBACK, "-bind_local"));
        Mode sippMode = !client && mode == Mode.TCP_PER_CALL ? Mode.TCP : mode;
        cmd.addAll(List.of("-t", sippMode.flag(), "-max_socket", Integer.toString(MAX_SOCKETS)));
        if (localPort != 0) {
            cmd.addAll(List.of("-p", Integer.toString(localPort)));
        }
        if (service != null) {
            cmd.addAll(List.of("-s", service));
        }
        if (client) {
            cmd.addAll(List.of("-r", trimDecimal(rate)));
        }
        cmd.addAll(List.of("-m", Integer.toString(calls)));
        if (maxConcurrentCalls > 0) {
            cmd.addAll(List.of("-l", Integer.toString(maxConcurrentCalls)));
        }
        keys.forEach((k, v) -> cmd.addAll(List.of("-key", k, v)));
        if (authUri != null) {
            cmd.addAll(List.of("-auth_uri", authUri));
        }
        if (injectionFile != null) {
            cmd.addAll(List.of("-inf", injectionFile.toString()));
        }
        cmd.addAll(List.of("-timeout", timeout.toSeconds() + "s", "-nostdin"));
        cmd.addAll(List.of("-trace_stat", "-stf", dir.resolve("stat.csv").toString(), "-fd", "1"));
        cmd.addAll(List.of("-trace_err", "-error_file", dir.resolve("errors.log").toString()));
        if (traceMessages) {
            cmd.addAll(List.of("-trace_msg", "-message_file", dir.resolve("messages.log").toString()));
        }
        if (client) {
            cmd.add(remoteHost + ":" + remotePort);
        }
        return cmd;
    }

    private Launch launch(boolean client) throws IOException {
        if (client && localPort == 0) {
            localPort = freePort();
        }
        boolean ownDir = workDir == null;
        Path dir = ownDir ? Files.createTempDirectory("sipp-") : Files.createDirectories(workDir);
        List<String> cmd = command(dir, client);
        Process process = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve("screen.log").toFile())
                .redirectError(dir.resolve("stderr.log").toFile())
                .start();
        return new Launch(process, List.copyOf(cmd), dir, ownDir, calls, client);
    }

    /** Ends a process we started: TERM (SIPp then writes its final statistics), KILL after 5 s. */
    private static void destroy(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The exit code, or -1 when the process could not be ended. */
    private static int exitCode(Process process) {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** Whether something listens on 127.0.0.1 or the wildcard address at {@code port}, per /proc/net. */
    static boolean listening(Mode mode, int port) throws IOException {
        boolean udp = mode == Mode.UDP;
        String portHex = String.format(Locale.ROOT, "%04X", port);
        for (String table : udp ? List.of("udp", "udp6") : List.of("tcp", "tcp6")) {
            Path file = Path.of("/proc/net", table);
            if (!Files.isReadable(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st ...; TCP listeners are in state 0A
                if (f.length > 3 && f[1].endsWith(":" + portHex) && (udp || f[3].equals("0A"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String trimDecimal(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    private static int checkPort(int port, String name) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(name + " " + port + " is out of range 0-65535");
        }
        return port;
    }

    /**
     * What a SIPp run did: exit code (0 all calls succeeded, 1 some failed, 97/99 other exits,
     * 255 fatal), call counts from the last statistics line, and the tail of its error log and
     * stderr.
     * Threading: immutable.
     *
     * @param command         the command line
     * @param exitCode        SIPp's exit code (after a kill, the signal's)
     * @param timedOut        whether the hard timeout ended it
     * @param callLimit       the {@code -m} it ran with
     * @param successfulCalls {@code SuccessfulCall(C)} of the last statistics line; 0 without one
     * @param failedCalls     {@code FailedCall(C)} of the last statistics line; 0 without one
     * @param workDir         where its files are, or were if deleted
     * @param diagnostics     tail of the error log and of stderr
     */
    public record Result(List<String> command, int exitCode, boolean timedOut, int callLimit,
                         long successfulCalls, long failedCalls, Path workDir, String diagnostics) {

        public Result {
            command = List.copyOf(command);
        }

        /** Exit code 0, no timeout, and every call up to the call limit counted as successful. */
        public boolean allCallsSucceeded() {
            return exitCode == 0 && !timedOut && failedCalls == 0 && successfulCalls == callLimit;
        }

        /** One paragraph for an assertion message. */
        public String describe() {
            return "SIPp exit " + exitCode + (timedOut ? " (killed at hard timeout)" : "")
                    + ", " + successfulCalls + " of " + callLimit + " calls successful, " + failedCalls + " failed"
                    + "\n  command: " + String.join(" ", command)
                    + "\n  files: " + workDir
                    + (diagnostics.isBlank() ? "" : "\n" + diagnostics);
        }
    }

    /**
     * A SIPp process started by {@link #start()}; {@link #close()} ends it by PID (TERM, then KILL
     * after 5 s).
     * Threading: thread-safe.
     */
    public static final class Running implements AutoCloseable {
        private final Launch launch;
        private final int port;
        private Result result;

        private Running(Launch launch, int port) {
            this.launch = launch;
            this.port = port;
        }

        /** The port it listens on (127.0.0.1). */
        public int port() {
            return port;
        }

        /** The SIPp process id. */
        public long pid() {
            return launch.process.pid();
        }

        /** Whether the process is still running. */
        public boolean isAlive() {
            return launch.process.isAlive();
        }

        /**
         * Ends the process if it still runs and returns what it did (SIPp writes its final
         * statistics when terminated). Idempotent.
         */
        public synchronized Result stop() throws InterruptedException {
            if (result == null) {
                if (launch.process.isAlive()) {
                    destroy(launch.process);
                }
                result = launch.result(exitCode(launch.process), false);
            }
            return result;
        }

        @Override
        public void close() {
            try {
                stop();
            } catch (InterruptedException e) {
                launch.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A started process with its files; a client must complete every call, a server fail none. */
    private record Launch(Process process, List<String> command, Path dir, boolean ownDir, int callLimit,
                          boolean client) {

        Result result(int exitCode, boolean timedOut) {
            long[] counts = finalCounts(dir.resolve("stat.csv"));
            String diagnostics = tail(dir.resolve("errors.log"), "errors.log")
                    + tail(dir.resolve("stderr.log"), "stderr");
            Result r = new Result(command, exitCode, timedOut, callLimit, counts[0], counts[1], dir, diagnostics);
            boolean clean = client ? r.allCallsSucceeded() : exitCode == 0 && !timedOut && r.failedCalls() == 0;
            if (ownDir && clean) {
                deleteTree(dir);
            }
            return r;
        }
    }

    /** {SuccessfulCall(C), FailedCall(C)} from the last line of a SIPp statistics file; zeros without one. */
    static long[] finalCounts(Path statFile) {
        if (!Files.isReadable(statFile)) {
            return new long[] {0, 0};
        }
        try (BufferedReader in = Files.newBufferedReader(statFile, StandardCharsets.ISO_8859_1)) {
            String header = in.readLine();
            if (header == null) {
                return new long[] {0, 0};
            }
            List<String> names = List.of(header.split(";", -1));
            int ok = names.indexOf("SuccessfulCall(C)");
            int failed = names.indexOf("FailedCall(C)");
            if (ok < 0 || failed < 0) {
                throw new IllegalStateException(statFile + ": no SuccessfulCall(C)/FailedCall(C) column in " + header);
            }
            String last = null;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.indexOf(';') >= 0) {
                    last = line;
                }
            }
            if (last == null) {
                return new long[] {0, 0};
            }
            String[] values = last.split(";", -1);
            return new long[] {parseCount(values, ok, statFile), parseCount(values, failed, statFile)};
        } catch (IOException e) {
            throw new UncheckedIOException("reading SIPp statistics " + statFile, e);
        }
    }

    private static long parseCount(String[] values, int index, Path file) {
        if (index >= values.length) {
            return 0;   // a line cut short by a kill
        }
        try {
            return Long.parseLong(values[index].trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + ": column " + index + " is \"" + values[index] + "\", not a count", e);
        }
    }

    private static String tail(Path file, String label) {
        try {
            if (!Files.isReadable(file) || Files.size(file) == 0) {
                return "";
            }
            String text = Files.readString(file, StandardCharsets.ISO_8859_1).strip();
            if (text.length() > TAIL_CHARS) {
                text = "..." + text.substring(text.length() - TAIL_CHARS);
            }
            return "  " + label + ":\n    " + text.replace("\n", "\n    ") + "\n";
        } catch (IOException e) {
            return "  " + label + ": unreadable (" + e + ")\n";
        }
    }

    private static void deleteTree(Path dir) {
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("deleting SIPp work directory " + dir, e);
        }
    }
}
