package org.sipcrypt.lab.runner;

import java.io.Closeable;
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
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.sipcrypt.lab.metrics.ProcessCpu;
import org.sipcrypt.lab.scenario.Leg;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kamailio (Debian's {@code kamailio} and {@code kamailio-tls-modules}) as the server under test, in
 * place of sipcrypt: a configuration written for the scenario and cipher (a stateful proxy with
 * Record-Route that relays {@code lab.test} to the lab's UAS, as the lab's sipcrypt does), started
 * in the foreground on loopback, its CPU read over all of its processes.
 * Its TLS runs the comparison's {@link Handshake} as {@link KamailioTls} sets it up: TLS 1.2 and 1.3,
 * RSA and ECDHE key exchange on X25519 and P-256, RSA and ECDSA certificates, session-ID
 * resumption; not the ML-KEM hybrids, nor 3DES and RC4 (OpenSSL 3.0 here has none of them).
 * Kamailio reuses connections to the UAS, so scenarios whose right leg opens a connection per call
 * ({@code inbound}, {@code local}) are not run on it.
 * Threading: one owner thread.
 */
public final class KamailioServer implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(KamailioServer.class);
    /**
     * Kamailio's shared memory, MB ({@code -m}): as much as the lab's sipcrypt gets as its heap
     * ({@link org.sipcrypt.lab.scenario.Scenario#LAB_SERVER_JVM}), as {@code vs-kamailio.sh} gives it.
     * Transactions, TLS connections and their OpenSSL state live there; with 256 MB a chain over TLS
     * ran out at about 1,750 calls/s with its core a third busy, and it failed calls for want of
     * memory, not CPU.
     */
    static final int SHARED_MEMORY_MB = 1024;
    /** Each Kamailio process's private memory, MB ({@code -M}), as {@code vs-kamailio.sh} gives it. */
    static final int PRIVATE_MEMORY_MB = 16;

    private final Process process;
    private final InetSocketAddress address;
    private final Path dir;

    private KamailioServer(Process process, InetSocketAddress address, Path dir) {
        this.process = process;
        this.address = address;
        this.dir = dir;
    }

    /** Why Kamailio cannot run this handshake at all, or null when it can ({@link KamailioTls#refusal}). */
    public static String refusal(Handshake handshake) {
        return KamailioTls.refusal(handshake);
    }

    /** Why Kamailio cannot run this scenario and cipher under the handshake, or null when it can. */
    public static String unsupported(Scenario s, String cipher, Handshake handshake) {
        if (!s.reachesUas()) {
            return "Kamailio runs the call scenarios only (this one is a registrar or redirect workload)";
        }
        if (s.secured() && Leg.comparedTransport(cipher).webSocket()) {
            return "SIP over WebSocket on Kamailio (its websocket module) is not built in the lab";
        }
        Transport left = s.left().transportFor(cipher);
        Transport right = s.right().transportFor(cipher);
        if (left == Transport.TLS || right == Transport.TLS) {
            String why = KamailioTls.refusal(handshake);
            if (why == null) {
                why = KamailioTls.unsupported(cipher, handshake);
            }
            if (why != null) {
                return why;
            }
        }
        if (right != Transport.UDP && s.right().connection() != ConnectionPattern.PERSISTENT) {
            return "Kamailio reuses its connections to the UAS; a connection per call on the right leg is not built";
        }
        if (s.auth()) {
            return "digest authentication on Kamailio is not built in the lab (scenarios/sipp/vs-kamailio.sh has it)";
        }
        return null;
    }

    /**
     * Writes the configuration and starts Kamailio.
     *
     * @param uasAt where the lab's UAS listens
     * @throws IOException Kamailio is missing, or did not listen within 30 s (the message quotes its log)
     */
    public static KamailioServer start(Scenario s, String cipher, Handshake handshake, Path dir, Path certs,
                                       InetSocketAddress uasAt, CpuPinning pinning)
            throws IOException, InterruptedException {
        String why = unsupported(s, cipher, handshake);
        if (why != null) {
            throw new IllegalArgumentException(s.name() + " " + cipher + ": " + why);
        }
        Path kamailio = executable();
        // Kamailio leaves the working directory at start (its pid file is then written): paths are absolute
        dir = dir.toAbsolutePath();
        Files.createDirectories(dir.resolve("run"));
        Transport left = s.left().transportFor(cipher);
        Transport right = s.right().transportFor(cipher);
        KamailioTls tls = left == Transport.TLS || right == Transport.TLS ? KamailioTls.of(cipher, handshake) : null;
        if (tls != null) {
            Files.writeString(dir.resolve("tls.cfg"), tls.tlsCfg(certs), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("openssl.cnf"), tls.opensslCnf(), StandardCharsets.UTF_8);
        }
        IOException last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            int port = freePort(left);
            Path cfg = dir.resolve("kamailio.cfg");
            int workers = workers(pinning);
            Files.writeString(cfg, config(s, cipher, tls, left, right, port, uasAt, dir, workers),
                    StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(pinning.serverLauncher());
            cmd.addAll(List.of(kamailio.toString(), "-f", cfg.toString(), "-DD", "-E",
                    "-m", Integer.toString(SHARED_MEMORY_MB), "-M", Integer.toString(PRIVATE_MEMORY_MB),
                    "-Y", dir.resolve("run").toString(), "-P", dir.resolve("run/kamailio.pid").toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(dir.resolve("kamailio.log").toFile()));
            if (tls != null) {
                // what the tls module has no setting for (KamailioTls), in place of the machine's configuration
                pb.environment().put("OPENSSL_CONF", dir.resolve("openssl.cnf").toString());
            }
            Process p = ChildProcesses.track(pb.start());
            KamailioServer k = new KamailioServer(p, new InetSocketAddress(InetAddress.getLoopbackAddress(), port), dir);
            try {
                k.awaitListening(left, port, Duration.ofSeconds(30));
                log.info("kamailio pid {} on {}:{} ({} {}{})", p.pid(), left.configName(), port, s.name(), cipher,
                        tls == null ? "" : ", " + tls.opensslSuite() + " under " + handshake.describe());
                return k;
            } catch (IOException e) {
                k.close();
                last = e;
            }
        }
        throw last;
    }

    /** Its worker processes (UDP and TCP each): one per CPU it may use, as sipcrypt has a worker lane per core. */
    public static int workers(CpuPinning pinning) {
        return pinning.pinned() ? pinning.serverCpus().size() : Runtime.getRuntime().availableProcessors();
    }

    private static Path executable() throws IOException {
        for (String d : List.of("/usr/sbin", "/usr/local/sbin", "/usr/bin")) {
            Path p = Path.of(d, "kamailio");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IOException("kamailio is not installed (Debian: apt-get install kamailio kamailio-tls-modules)");
    }

    /**
     * The configuration for one scenario and cipher.
     *
     * @param tls its TLS, null when no leg runs TLS; the tls module reads {@code dir/tls.cfg}
     */
    static String config(Scenario s, String cipher, KamailioTls tls, Transport left, Transport right, int port,
                         InetSocketAddress uasAt, Path dir, int workers) {
        StringBuilder b = new StringBuilder();
        b.append("#!KAMAILIO\n");
        b.append("# written by the sipcrypt lab for scenario ").append(s.name()).append(", cipher ").append(cipher)
                .append('\n');
        b.append("debug=-1\nlog_stderror=yes\nchildren=").append(workers).append("\ntcp_children=").append(workers)
                .append("\nauto_aliases=no\ndns=no\nrev_dns=no\n");
        b.append("use_dns_cache=no\ndns_try_ipv6=no\ntcp_connection_lifetime=3605\ntcp_max_connections=16384\n");
        b.append("server_header=\"Server: kamailio-lab\"\nuser_agent_header=\"User-Agent: kamailio-lab\"\n");
        b.append("alias=\"").append(Bench.DOMAIN).append("\"\n");
        b.append("listen=").append(left.configName()).append(":127.0.0.1:").append(port).append('\n');
        if (right != left) {
            // Kamailio sends on a transport only where it listens on it
            b.append("listen=").append(right.configName()).append(":127.0.0.1:").append(port + 1).append('\n');
        }
        if (tls != null) {
            b.append("enable_tls=yes\n");
        }
        for (String m : List.of("tm", "tmx", "sl", "rr", "pv", "maxfwd", "textops", "siputils", "sanity")) {
            b.append("loadmodule \"").append(m).append(".so\"\n");
        }
        if (tls != null) {
            b.append("loadmodule \"tls.so\"\n");
            b.append("modparam(\"tls\", \"config\", \"").append(dir.resolve("tls.cfg").toAbsolutePath()).append("\")\n");
            tls.moduleParameters().forEach(line -> b.append(line).append('\n'));
        }
        b.append("modparam(\"tm\", \"fr_timer\", 30000)\nmodparam(\"tm\", \"fr_inv_timer\", 120000)\n");
        b.append("modparam(\"rr\", \"enable_full_lr\", 0)\nmodparam(\"rr\", \"append_fromtag\", 0)\n");
        String uas = "sip:127.0.0.1:" + uasAt.getPort() + ";transport=" + right.configName();
        b.append("""
                request_route {
                \tif (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
                \tif (!sanity_check()) { exit; }
                \tif (is_method("CANCEL")) { if (t_check_trans()) { t_relay(); } exit; }
                \tif (!is_method("ACK")) { if (t_precheck_trans()) { t_check_trans(); exit; } t_check_trans(); }
                \tif (has_totag()) {
                \t\tif (loose_route()) { t_relay(); exit; }
                \t\tif (is_method("ACK")) { if (t_check_trans()) { t_relay(); } exit; }
                \t\tsl_send_reply("404", "Not here"); exit;
                \t}
                \tremove_hf("Route");
                \tif (is_method("INVITE")) { record_route(); }
                \tif ($rd != "%s") { sl_send_reply("404", "Not Found"); exit; }
                \t$du = "%s";
                \tif (!t_relay()) { sl_reply_error(); }
                \texit;
                }
                """.formatted(Bench.DOMAIN, uas));
        return b.toString();
    }

    private static int freePort(Transport t) throws IOException {
        // Kamailio cannot take port 0 and say which it got: a port free for both this and the next
        // transport is chosen, and a start that fails to bind is retried on another
        int[] ephemeral = ephemeralPorts(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        for (int i = 0; i < 200; i++) {
            int port = candidatePort(ephemeral, ThreadLocalRandom.current());
            if (port == 0) {
                try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = ss.getLocalPort();
                }
            }
            if (port < 65535 && free(port) && free(port + 1)) {
                return port;
            }
        }
        throw new IOException("no free loopback port pair found for Kamailio");
    }

    /**
     * The kernel's ephemeral ports, first and last, from {@code net.ipv4.ip_local_port_range};
     * Linux's default, 32768 to 60999, where the file cannot be read or parsed.
     */
    static int[] ephemeralPorts(Path rangeFile) {
        try {
            String[] f = Files.readString(rangeFile, StandardCharsets.US_ASCII).trim().split("\\s+");
            int first = Integer.parseInt(f[0]);
            int last = Integer.parseInt(f[1]);
            if (first > 0 && first <= last && last <= 65535) {
                return new int[] {first, last};
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a range that is not two numbers: Linux's default
        }
        return new int[] {32768, 60999};
    }

    /**
     * A port to try for Kamailio, it and the next below the ephemeral range: drawn from 10,000 up
     * to the range's start, or 0 (let the kernel pick) where that leaves fewer than 1,000. A run
     * with a connection per call leaves thousands of the generator's client ports in TIME_WAIT,
     * which a listening socket cannot bind for a minute; Linux's connect() takes even ephemeral
     * ports and bind(0) odd ones, so the port after a kernel-picked one was taken in 44 of 50 tries
     * during a Kamailio ramp of outbound-no-reuse, and all 50 tries failed for a Kamailio started
     * after one.
     */
    static int candidatePort(int[] ephemeral, RandomGenerator random) {
        int low = 10_000;
        int high = ephemeral[0] - 2;
        if (high - low < 1_000) {
            return 0;
        }
        return low + random.nextInt(high - low + 1);
    }

    private static boolean free(int port) {
        try (ServerSocket ss = new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
             DatagramSocket ds = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            return ss.getLocalPort() == port && ds.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    private void awaitListening(Transport t, int port, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("kamailio exited with " + process.exitValue() + " at start: " + logTail());
            }
            if (listening(t, port)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IOException("kamailio did not listen on " + t.configName() + " port " + port + " in "
                + timeout.toSeconds() + " s: " + logTail());
    }

    /** Whether a socket of this machine listens on 127.0.0.1:port ({@code /proc/net/udp} or {@code tcp}). */
    static boolean listening(Transport t, int port) throws IOException {
        String file = t == Transport.UDP ? "/proc/net/udp" : "/proc/net/tcp";
        String local = String.format(Locale.ROOT, "0100007F:%04X", port);
        for (String line : Files.readAllLines(Path.of(file), StandardCharsets.US_ASCII)) {
            String[] f = line.trim().split("\\s+");
            // a UDP socket is bound (state 07); a TCP socket listens (0A)
            if (f.length > 3 && f[1].equals(local) && f[3].equals(t == Transport.UDP ? "07" : "0A")) {
                return true;
            }
        }
        return false;
    }

    private String logTail() {
        try {
            String text = Files.readString(dir.resolve("kamailio.log"), StandardCharsets.UTF_8).strip();
            return text.length() <= 1500 ? text : "..." + text.substring(text.length() - 1500);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Where the generators send. */
    public InetSocketAddress address() {
        return address;
    }

    /** The main process's ID. */
    public long pid() {
        return process.pid();
    }

    /** The CPU time of the main process and every process it forked, in microseconds; -1 unknown. */
    public long cpuMicros() {
        long sum = ProcessCpu.micros(process.pid());
        if (sum < 0) {
            return -1;
        }
        for (ProcessHandle h : process.descendants().toList()) {
            long c = ProcessCpu.micros(h.pid());
            if (c > 0) {
                sum += c;
            }
        }
        return sum;
    }

    @Override
    public void close() {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ProcessHandle h : children) {
            h.destroyForcibly();
        }
    }
}
