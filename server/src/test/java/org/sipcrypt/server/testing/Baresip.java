package org.sipcrypt.server.testing;

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
import java.util.Objects;
import org.sipcrypt.server.transport.Transport;

/**
 * Debian's baresip 1.0.0 ({@code baresip-core}) as a real softphone in tests: one account
 * registered with digest credentials to the server under test over UDP, TCP or TLS (checking the
 * server's certificate against the test CA), answering calls by itself, driven with commands on
 * standard input ({@code /dial}, {@code /hangup}) and watched through the lines it prints. No sound card: it sends a 440 Hz sine
 * ({@code ausine}) with Opus, the 48 kHz codec {@code ausine} needs, and plays what it receives
 * into a file. SIP and media stay on 127.0.0.1 ({@code net_interface}), or on the address of
 * another {@link Site}: one in this machine's namespace, or one inside a network namespace it is
 * started in ({@code ip netns exec}, e.g. behind a {@link NatNetwork}). {@link Options} add RFC 5626
 * outbound ({@code sipnat=outbound}) and a SIP trace ({@code -s}).
 *
 * <p>Its config directory is written into {@code dir}; it listens for SIP on a free port P (UDP and
 * TCP) and on P+1 (TLS, where it has no certificate, so it refuses connections), and exits by
 * itself after {@link #LIFETIME} should the test JVM die. See {@code docs/softphones.md}.
 * Threading: drive from one test thread; {@link #close()} from any.
 */
public final class Baresip implements AutoCloseable {

    /** The message of the failure when baresip is missing. */
    public static final String INSTALL_HINT = "baresip not found: install it with 'apt-get install -y baresip-core'";
    /** baresip quits by itself after this long ({@code -t}). */
    static final Duration LIFETIME = Duration.ofMinutes(5);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int START_ATTEMPTS = 3;

    private final String user;
    private final SoftphoneProcess process;
    private final int sipPort;

    /**
     * Where baresip runs: the address it binds SIP and media to ({@code sip_listen},
     * {@code net_interface}) and the command prefix that puts it where that address is (empty for
     * this machine's own network namespace, {@code ip netns exec NS} for another).
     * Threading: immutable.
     */
    public record Site(String address, List<String> prefix) {

        /** 127.0.0.1 of this machine's namespace. */
        public static final Site LOOPBACK = new Site("127.0.0.1", List.of());

        public Site {
            Objects.requireNonNull(address, "address");
            prefix = List.copyOf(prefix);
        }

        /** An address of this machine's own namespace. */
        public static Site at(String address) {
            return new Site(address, List.of());
        }

        /** Whether it is in this JVM's network namespace, where its ports can be tried before baresip takes them. */
        boolean here() {
            return prefix.isEmpty();
        }
    }

    /**
     * How baresip runs: its {@link Site}; whether its account uses RFC 5626 outbound
     * ({@code sipnat=outbound}, with the server's listener as its outbound proxy and the
     * {@code uuid} module for its {@code +sip.instance}: without an {@code outbound} proxy
     * baresip 1.0.0 registers nothing); whether it prints every SIP message it sends and receives
     * ({@code -s}), so a test can read its Contact and what reached it.
     * Threading: immutable.
     */
    public record Options(Site site, boolean outbound, boolean sipTrace, String outboundProxy) {

        /** On loopback, plain registration, no trace. */
        public static final Options DEFAULT = new Options(Site.LOOPBACK, false, false, null);

        public Options {
            Objects.requireNonNull(site, "site");
        }

        public Options at(Site where) {
            return new Options(where, outbound, sipTrace, outboundProxy);
        }

        public Options withOutbound(boolean on) {
            return new Options(site, on, sipTrace, outboundProxy);
        }

        public Options withSipTrace(boolean on) {
            return new Options(site, outbound, on, outboundProxy);
        }

        /**
         * An RFC 5626 outbound phone ({@code sipnat=outbound}: its REGISTER carries
         * {@code +sip.instance}, {@code reg-id} and {@code Supported: gruu, outbound, path}, which
         * baresip sends only then) whose requests outside a dialog, its REGISTER included, go to
         * {@code uri} (e.g. an edge proxy in front of the server) rather than to the server.
         */
        public Options withOutboundProxy(String uri) {
            return new Options(site, true, sipTrace, Objects.requireNonNull(uri, "uri"));
        }
    }

    private Baresip(String user, SoftphoneProcess process, int sipPort) {
        this.user = user;
        this.process = process;
        this.sipPort = sipPort;
    }

    /**
     * Writes the config into {@code dir} and starts baresip; returns once it is ready (its
     * REGISTER may still be under way: {@link #awaitRegistered()}).
     *
     * @param server    the server's listener of {@code transport}
     * @param caFile    the CA that signed the server's TLS certificate (used for TLS only)
     */
    public static Baresip start(Path dir, String user, String password, Transport transport,
                                InetSocketAddress server, Path caFile) throws IOException, InterruptedException {
        return start(dir, user, password, transport, server, caFile, Options.DEFAULT);
    }

    /**
     * As {@link #start(Path, String, String, Transport, InetSocketAddress, Path)}, run as
     * {@code options} say.
     */
    public static Baresip start(Path dir, String user, String password, Transport transport,
                                InetSocketAddress server, Path caFile, Options options)
            throws IOException, InterruptedException {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(options, "options");
        SoftphoneProcess.executable("baresip", INSTALL_HINT);
        Files.createDirectories(dir);
        String hostPort = server.getAddress().getHostAddress() + ":" + server.getPort();
        String transportParam = ";transport=" + transport.name().toLowerCase(java.util.Locale.ROOT);
        // RFC 5626: baresip registers an outbound flow only through an outbound proxy: the server
        // itself, or the edge proxy the options name
        String proxy = options.outboundProxy() != null ? options.outboundProxy() : "sip:" + hostPort + transportParam;
        String outbound = options.outbound() ? ";sipnat=outbound;outbound=\"" + proxy + "\"" : "";
        Files.writeString(dir.resolve("accounts"), "<sip:" + user + "@" + hostPort + transportParam
                + ">;auth_pass=" + password + ";answermode=auto;regint=600" + outbound + "\n", StandardCharsets.UTF_8);
        List<String> command = new ArrayList<>(options.site().prefix());
        command.addAll(List.of("baresip", "-4", "-f", dir.toString(), "-t", Long.toString(LIFETIME.toSeconds())));
        if (options.sipTrace()) {
            command.add("-s");
        }
        String where = options.site().address();
        // another program may take the free port before baresip binds it: then try another
        AssertionError lastFailure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port = freePortPair(options.site());
            writeConfig(dir, where, port, caFile, options.outbound());
            SoftphoneProcess p = SoftphoneProcess.start("baresip-" + user, command, dir, Map.of(), INSTALL_HINT);
            String line;
            try {
                line = p.awaitAny(WAIT, "baresip is ready", "init failed", "transport failed");
            } catch (AssertionError e) {
                p.close();
                throw e;
            }
            if (line.contains("baresip is ready")) {
                return new Baresip(user, p, port);
            }
            p.close();
            lastFailure = new AssertionError("baresip-" + user + " did not start on " + where + ":" + port + ": " + line
                    + "\n" + p.describe());
            if (!line.contains("Address already in use")) {
                break;
            }
        }
        throw lastFailure;
    }

    private static void writeConfig(Path dir, String address, int port, Path caFile, boolean outbound)
            throws IOException {
        String config = String.join("\n",
                "poll_method epoll",
                "sip_listen " + address + ":" + port,
                caFile == null ? "" : "sip_cafile " + caFile.toAbsolutePath(),
                "net_interface " + address,
                "module_path /usr/lib/baresip/modules",
                // the uuid module writes DIR/uuid once and gives it to the account as +sip.instance
                outbound ? "module uuid.so" : "",
                "module stdio.so",
                "module menu.so",
                // before account.so: the accounts' user agents take the instance id when they are made
                outbound ? "module uuid.so" : "",
                "module account.so",
                "module opus.so",
                "module ausine.so",
                "module aufile.so",
                "audio_source ausine,440",
                "audio_player aufile," + dir.resolve("received.wav").toAbsolutePath(),
                "audio_alert aufile," + dir.resolve("alert.wav").toAbsolutePath(),
                "");
        Files.writeString(dir.resolve("config"), config, StandardCharsets.UTF_8);
    }

    /**
     * A port P free for UDP and TCP, with P+1 free for TCP (baresip's TLS listener), on the site's
     * address when it is in this namespace; in another namespace (a new one, whose ports are all
     * free) one tried on 127.0.0.1 here.
     */
    static int freePortPair(Site site) throws IOException {
        InetAddress address = InetAddress.getByName(site.here() ? site.address() : "127.0.0.1");
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = freePort(address);
            if (port < 65535) {
                try (ServerSocket tls = new ServerSocket(port + 1, 1, address)) {
                    return port;
                } catch (IOException inUse) {
                    continue;   // the answer, not an error: try another pair
                }
            }
        }
        throw new IOException("no two adjacent ports free on " + address.getHostAddress() + " after 50 attempts");
    }

    /** A port free on {@code address} for both TCP and UDP at the time of the call. */
    private static int freePort(InetAddress address) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket tcp = new ServerSocket(0, 1, address)) {
                int port = tcp.getLocalPort();
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(address, port))) {
                    return port;
                } catch (IOException inUse) {
                    continue;   // the answer, not an error: try another
                }
            }
        }
        throw new IOException("no port free for TCP and UDP on " + address.getHostAddress() + " after 50 attempts");
    }

    /** The SIP port it listens on for UDP and TCP (TLS is the next one). */
    public int sipPort() {
        return sipPort;
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Waits for its REGISTER to be accepted ({@code 200 OK} after the digest challenge).
     *
     * @throws AssertionError when baresip reports a failed registration or none within 30 s
     */
    public void awaitRegistered() throws InterruptedException {
        String line = process.awaitAny(WAIT, "} 200 OK", "reg: ");
        if (!line.contains("} 200 OK")) {
            throw new AssertionError(user + " was not registered: " + line + "\n" + process.describe());
        }
    }

    /** Calls {@code uri} (e.g. {@code sip:bob@127.0.0.1:5060}; the account's transport is added). */
    public void dial(String uri) {
        process.send("/dial " + uri);
    }

    /**
     * Ends the current call (BYE, or CANCEL while it rings) and waits for baresip to confirm it
     * ({@code call: terminate call ...}).
     */
    public void hangup() throws InterruptedException {
        process.send("/hangup");
        process.awaitAny(WAIT, "call: terminate call");
    }

    /**
     * Waits for the current call to be established (the 200 OK and ACK exchanged).
     *
     * @throws AssertionError naming how the call ended when it ends instead, or after 30 s
     */
    public void awaitCallEstablished() throws InterruptedException {
        // a failed call shows as "session closed: <status>"; the "terminated" line of the previous
        // call may still come, so it is no sign of this one
        String line = process.awaitAny(WAIT, "Call established", "session closed");
        if (!line.contains("Call established")) {
            throw new AssertionError(user + "'s call was not established: " + line + "\n" + process.describe());
        }
    }

    /**
     * Waits for the current call to be ended by the other side's BYE, which baresip reports as
     * {@code session closed: Connection reset by peer}. (Its {@code Call with ... terminated} line
     * appears only for calls that lasted a second or more, so it is not waited for.)
     *
     * @throws AssertionError when the call closes for another reason, or not within 30 s
     */
    public void awaitByeReceived() throws InterruptedException {
        String line = process.awaitAny(WAIT, "session closed");
        if (!line.contains("Connection reset by peer")) {
            throw new AssertionError(user + "'s call closed, but not by a BYE: " + line + "\n" + process.describe());
        }
    }

    /**
     * Waits for the current call to close before it was established, and returns the line that
     * says why ({@code session closed: 480 Temporarily Unavailable}).
     *
     * @throws AssertionError when the call is established instead, or nothing closes within 30 s
     */
    public String awaitCallFailed() throws InterruptedException {
        String line = process.awaitAny(WAIT, "Call established", "session closed");
        if (!line.contains("session closed")) {
            throw new AssertionError(user + "'s call was established, not refused: " + line + "\n" + process.describe());
        }
        return line;
    }

    /**
     * Waits for the next line of output that contains {@code fragment} (with {@link Options#sipTrace},
     * the lines of the SIP messages too) and returns it.
     *
     * @throws AssertionError when none comes within 30 s
     */
    public String awaitOutput(String fragment) throws InterruptedException {
        return process.awaitAny(WAIT, fragment);
    }

    /** The last lines of its output. */
    public String describe() {
        return process.describe();
    }

    /**
     * Ends baresip at once by PID (KILL), as a crash or a pulled plug would: it sends nothing
     * more (no un-REGISTER, no BYE) and the kernel closes its sockets, a TCP or TLS connection with
     * a FIN (a RST when bytes were left unread). Returns once the process has gone.
     */
    public void kill() throws InterruptedException {
        process.kill();
    }

    /** Ends baresip by PID (TERM: it unregisters first; KILL after 5 s). */
    @Override
    public void close() {
        process.close();
    }
}
