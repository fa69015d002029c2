package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Kamailio ({@code kamailio}, {@code kamailio-outbound-modules}) as the edge proxy in
 * front of the server under test, which is its registrar: phones register through it, it adds its
 * Path with the address their REGISTER came from ({@code add_path_received()}, RFC 3327) and relays
 * the REGISTER to the server; a request the server sends back through that Path is routed to the
 * phone by the path module's {@code received} parameter, record-routed. Everything a phone sends
 * outside a dialog goes to the server. It listens on one UDP port of its own loopback address, is
 * started by PID in the foreground ({@code -DD -E}) with a configuration written into its
 * directory, logs every request it routes ({@code edge: METHOD ...}) and the Path of every 200 to
 * a REGISTER ({@code edge: 200 REGISTER Path: ... Require: ...}) to {@code kamailio.log} there, and is stopped by
 * that PID.
 * Threading: drive from one test thread; {@link #close()} from any.
 */
public final class KamailioEdge implements AutoCloseable {

    /** The message of the failure when Kamailio or its outbound module is missing. */
    public static final String INSTALL_HINT =
            "kamailio not found: install it with 'apt-get install -y kamailio kamailio-outbound-modules'";
    private static final Duration START_WAIT = Duration.ofSeconds(30);
    private static final int START_ATTEMPTS = 3;

    private final Process process;
    private final InetSocketAddress address;
    private final Path dir;

    private KamailioEdge(Process process, InetSocketAddress address, Path dir) {
        this.process = process;
        this.address = address;
        this.dir = dir;
    }

    /**
     * Writes the configuration into {@code dir} and starts Kamailio on a free UDP port of
     * {@code host}; returns once it listens.
     *
     * @param registrar the server's UDP listener, where REGISTERs and phones' requests go
     */
    public static KamailioEdge start(Path dir, InetAddress host, InetSocketAddress registrar)
            throws IOException, InterruptedException {
        Objects.requireNonNull(registrar, "registrar");
        Path kamailio = Path.of("/usr/sbin/kamailio");
        if (!Files.isExecutable(kamailio) || !outboundModuleInstalled()) {
            throw new AssertionError(INSTALL_HINT);
        }
        Files.createDirectories(dir.resolve("run"));
        IOException last = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port;
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(host, 0))) {
                port = probe.getLocalPort();
            }
            Path cfg = dir.resolve("kamailio.cfg");
            Files.writeString(cfg, config(host, port, registrar), StandardCharsets.UTF_8);
            Process p = new ProcessBuilder(kamailio.toString(), "-f", cfg.toString(), "-DD", "-E", "-m", "64",
                    "-M", "8", "-Y", dir.resolve("run").toString(), "-P", dir.resolve("run/kamailio.pid").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("kamailio.log").toFile()).start();
            KamailioEdge edge = new KamailioEdge(p, new InetSocketAddress(host, port), dir);
            try {
                edge.awaitListening();
                return edge;
            } catch (IOException e) {
                edge.close();
                last = e;
            }
        }
        throw last;
    }

    /** The configuration: the lines that matter are those docs/operations.md shows. */
    static String config(InetAddress host, int port, InetSocketAddress registrar) {
        String registrarUri = "sip:" + registrar.getAddress().getHostAddress() + ":" + registrar.getPort();
        return """
                #!KAMAILIO
                debug=2
                log_stderror=yes
                children=2
                auto_aliases=no
                dns=no
                rev_dns=no
                use_dns_cache=no
                dns_try_ipv6=no
                listen=udp:%1$s:%2$d
                loadmodule "tm.so"
                loadmodule "tmx.so"
                loadmodule "sl.so"
                loadmodule "rr.so"
                loadmodule "pv.so"
                loadmodule "maxfwd.so"
                loadmodule "textops.so"
                loadmodule "siputils.so"
                loadmodule "xlog.so"
                loadmodule "stun.so"
                loadmodule "outbound.so"
                loadmodule "path.so"
                modparam("path", "use_received", 1)
                modparam("rr", "append_fromtag", 0)
                request_route {
                \txlog("L_INFO", "edge: $rm $ru from $si:$sp\\n");
                \tif (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
                \tif (is_method("CANCEL")) { if (t_check_trans()) { t_relay(); } exit; }
                \tif (!is_method("ACK")) { if (t_precheck_trans()) { t_check_trans(); exit; } t_check_trans(); }
                \tif (has_totag()) {
                \t\tif (loose_route()) { t_relay(); exit; }
                \t\tif (is_method("ACK")) { if (t_check_trans()) { t_relay(); } exit; }
                \t\tsl_send_reply("404", "Not here"); exit;
                \t}
                \tif ($si == "%3$s" && $sp == %4$d) {
                \t\t# from the registrar: a request for a phone, routed here by its Path; the path
                \t\t# module sets the destination from the Path's received parameter
                \t\tif (!loose_route()) { sl_send_reply("404", "No Path"); exit; }
                \t\trecord_route();
                \t\tt_relay();
                \t\texit;
                \t}
                \t# from a phone: everything goes to the registrar
                \tremove_hf("Route");
                \tif (is_method("REGISTER")) { add_path_received(); } else { record_route(); }
                \t$du = "%5$s";
                \tt_relay();
                }
                onreply_route {
                \tif (is_method("REGISTER") && $rs == 200) { xlog("L_INFO", "edge: 200 REGISTER Path: $hdr(Path) Require: $hdr(Require)\\n"); }
                }
                """.formatted(host.getHostAddress(), port, registrar.getAddress().getHostAddress(),
                registrar.getPort(), registrarUri);
    }

    /** Whether {@code /usr/lib/ARCH/kamailio/modules/outbound.so} exists for some ARCH. */
    private static boolean outboundModuleInstalled() throws IOException {
        try (var dirs = Files.list(Path.of("/usr/lib"))) {
            return dirs.anyMatch(d -> Files.exists(d.resolve("kamailio/modules/outbound.so")));
        }
    }

    private void awaitListening() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        byte[] ip = address.getAddress().getAddress();
        // /proc/net/udp writes an IPv4 address as its 32 bits in host (little-endian) order
        String local = String.format(Locale.ROOT, "%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], address.getPort());
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("kamailio exited with " + process.exitValue() + " at start:\n" + log());
            }
            for (String line : Files.readAllLines(Path.of("/proc/net/udp"), StandardCharsets.US_ASCII)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 1 && f[1].equals(local)) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IOException("kamailio did not listen on udp " + address + " within " + START_WAIT + ":\n" + log());
    }

    /** Where phones send: its UDP listener. */
    public InetSocketAddress address() {
        return address;
    }

    /** {@code sip:HOST:PORT;transport=udp}, for a phone's outbound proxy setting. */
    public String uri() {
        return "sip:" + address.getAddress().getHostAddress() + ":" + address.getPort() + ";transport=udp";
    }

    /** The main process's ID. */
    public long pid() {
        return process.pid();
    }

    /** Its log: the {@code edge: METHOD URI from IP:PORT} line of every request it routed, and its own messages. */
    public String log() {
        try {
            return Files.readString(dir.resolve("kamailio.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The {@code edge:} lines of its log, in order. */
    public List<String> routed() {
        return log().lines().filter(l -> l.contains("edge: ")).map(l -> l.substring(l.indexOf("edge: "))).toList();
    }

    /** Stops Kamailio by its PID (TERM, KILL after 10 s) and every process it forked. */
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
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }
}
