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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
 * Kamailio reuses connections to the UAS, so scenarios whose right leg opens a connection per call
 * ({@code inbound}, {@code local}) are not run on it; its OpenSSL 3 has no 3DES or RC4 suites.
 * Threading: one owner thread.
 */
public final class KamailioServer implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(KamailioServer.class);

    /** The ciphers OpenSSL names by their RSA key-exchange suites, as the lab measures them. */
    private static final Map<String, String> OPENSSL_SUITES = Map.of(
            "aes", "AES128-SHA",
            "camellia", "CAMELLIA128-SHA",
            "seed", "SEED-SHA");

    private static final Set<String> NO_SUCH_SUITE = Set.of("3des", "rc4");

    private final Process process;
    private final InetSocketAddress address;
    private final Path dir;

    private KamailioServer(Process process, InetSocketAddress address, Path dir) {
        this.process = process;
        this.address = address;
        this.dir = dir;
    }

    /** Why Kamailio cannot run this scenario and cipher, or null when it can. */
    public static String unsupported(Scenario s, String cipher) {
        if (!s.reachesUas()) {
            return "Kamailio runs the call scenarios only (this one is a registrar or redirect workload)";
        }
        if (s.secured() && Leg.comparedTransport(cipher).webSocket()) {
            return "SIP over WebSocket on Kamailio (its websocket module) is not built in the lab";
        }
        if (NO_SUCH_SUITE.contains(cipher)) {
            return "Debian's Kamailio uses OpenSSL 3, which has no " + cipher.toUpperCase(Locale.ROOT) + " TLS suites";
        }
        Transport left = s.left().transportFor(cipher);
        Transport right = s.right().transportFor(cipher);
        if ((left == Transport.TLS || right == Transport.TLS) && !OPENSSL_SUITES.containsKey(cipher)) {
            return "no OpenSSL suite is known for cipher " + cipher;
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
    public static KamailioServer start(Scenario s, String cipher, Path dir, Path certs, InetSocketAddress uasAt,
                                       CpuPinning pinning) throws IOException, InterruptedException {
        String why = unsupported(s, cipher);
        if (why != null) {
            throw new IllegalArgumentException(s.name() + " " + cipher + ": " + why);
        }
        Path kamailio = executable();
        Files.createDirectories(dir.resolve("run"));
        Transport left = s.left().transportFor(cipher);
        Transport right = s.right().transportFor(cipher);
        IOException last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            int port = freePort(left);
            Path cfg = dir.resolve("kamailio.cfg");
            // a worker process per CPU the server may use, as sipcrypt has a worker lane per core
            int workers = pinning.pinned() ? pinning.serverCpus().size() : Runtime.getRuntime().availableProcessors();
            Files.writeString(cfg, config(s, cipher, left, right, port, uasAt, certs, dir, workers),
                    StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(pinning.serverLauncher());
            cmd.addAll(List.of(kamailio.toString(), "-f", cfg.toString(), "-DD", "-E", "-m", "256", "-M", "16",
                    "-Y", dir.resolve("run").toString(), "-P", dir.resolve("run/kamailio.pid").toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(dir.resolve("kamailio.log").toFile()));
            if (cipher.equals("seed")) {
                // SEED lives in OpenSSL 3's legacy provider
                pb.environment().put("OPENSSL_CONF", writeOpensslLegacyConf(dir).toString());
            }
            Process p = ChildProcesses.track(pb.start());
            KamailioServer k = new KamailioServer(p, new InetSocketAddress(InetAddress.getLoopbackAddress(), port), dir);
            try {
                k.awaitListening(left, port, Duration.ofSeconds(30));
                log.info("kamailio pid {} on {}:{} ({} {})", p.pid(), left.configName(), port, s.name(), cipher);
                return k;
            } catch (IOException e) {
                k.close();
                last = e;
            }
        }
        throw last;
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

    /** The configuration for one scenario and cipher. */
    static String config(Scenario s, String cipher, Transport left, Transport right, int port, InetSocketAddress uasAt,
                         Path certs, Path dir, int workers) throws IOException {
        boolean tls = left == Transport.TLS || right == Transport.TLS;
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
        if (tls) {
            b.append("enable_tls=yes\n");
        }
        for (String m : List.of("tm", "tmx", "sl", "rr", "pv", "maxfwd", "textops", "siputils", "sanity")) {
            b.append("loadmodule \"").append(m).append(".so\"\n");
        }
        if (tls) {
            b.append("loadmodule \"tls.so\"\n");
            b.append("modparam(\"tls\", \"config\", \"").append(writeTlsConfig(cipher, certs, dir)).append("\")\n");
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

    private static Path writeTlsConfig(String cipher, Path certs, Path dir) throws IOException {
        String suite = OPENSSL_SUITES.get(cipher);
        // SEED is allowed by OpenSSL only at security level 0
        String list = cipher.equals("seed") ? suite + ":@SECLEVEL=0" : suite;
        String text = """
                [server:default]
                method = TLSv1.2
                verify_certificate = no
                require_certificate = no
                private_key = %s
                certificate = %s
                ca_list = %s
                cipher_list = %s

                [client:default]
                method = TLSv1.2
                verify_certificate = no
                require_certificate = no
                cipher_list = %s
                """.formatted(certs.resolve("server-key.pem"), certs.resolve("server.pem"), certs.resolve("ca.pem"),
                list, list);
        Path p = dir.resolve("tls.cfg");
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    private static Path writeOpensslLegacyConf(Path dir) throws IOException {
        Path p = dir.resolve("openssl-legacy.cnf");
        Files.writeString(p, """
                openssl_conf = openssl_init
                [openssl_init]
                providers = provider_sect
                [provider_sect]
                default = default_sect
                legacy = legacy_sect
                [default_sect]
                activate = 1
                [legacy_sect]
                activate = 1
                """, StandardCharsets.UTF_8);
        return p;
    }

    private static int freePort(Transport t) throws IOException {
        // Kamailio cannot take port 0 and say which it got: a port free for both this and the next
        // transport is chosen, and a start that fails to bind is retried on another
        for (int i = 0; i < 50; i++) {
            int port;
            try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = ss.getLocalPort();
            }
            if (port < 65535 && free(port) && free(port + 1)) {
                return port;
            }
        }
        throw new IOException("no free loopback port pair found for Kamailio");
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
