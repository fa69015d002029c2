package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * into a file. SIP and media stay on 127.0.0.1 ({@code net_interface}).
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
        return start(dir, user, password, transport, server, caFile, null);
    }

    /**
     * As {@link #start(Path, String, String, Transport, InetSocketAddress, Path)}, sending every
     * request outside a dialog, its REGISTER included, to {@code outboundProxy} (a SIP URI, e.g. an
     * edge proxy in front of the server; null for none) rather than to the server, as an RFC 5626
     * outbound phone ({@code sipnat=outbound}: its REGISTER carries {@code +sip.instance},
     * {@code reg-id} and {@code Supported: gruu, outbound, path}, which baresip sends only then).
     *
     * @param caFile the CA of the server's TLS certificate; null when the phone uses no TLS
     */
    public static Baresip start(Path dir, String user, String password, Transport transport,
                                InetSocketAddress server, Path caFile, String outboundProxy)
            throws IOException, InterruptedException {
        Objects.requireNonNull(transport, "transport");
        SoftphoneProcess.executable("baresip", INSTALL_HINT);
        Files.createDirectories(dir);
        String host = server.getAddress().getHostAddress();
        Files.writeString(dir.resolve("accounts"), "<sip:" + user + "@" + host + ":" + server.getPort()
                + ";transport=" + transport.name().toLowerCase(java.util.Locale.ROOT) + ">;auth_pass=" + password
                + (outboundProxy == null ? "" : ";outbound=\"" + outboundProxy + "\";sipnat=outbound")
                + ";answermode=auto;regint=600\n", StandardCharsets.UTF_8);
        // another program may take the free port before baresip binds it: then try another
        AssertionError lastFailure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            int port = freePortPair();
            writeConfig(dir, port, caFile, outboundProxy != null);
            SoftphoneProcess p = SoftphoneProcess.start("baresip-" + user,
                    List.of("baresip", "-4", "-f", dir.toString(), "-t", Long.toString(LIFETIME.toSeconds())),
                    dir, Map.of(), INSTALL_HINT);
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
            lastFailure = new AssertionError("baresip-" + user + " did not start on 127.0.0.1:" + port + ": " + line
                    + "\n" + p.describe());
            if (!line.contains("Address already in use")) {
                break;
            }
        }
        throw lastFailure;
    }

    /** @param outbound whether to load {@code uuid.so}, which makes the instance id RFC 5626 needs */
    private static void writeConfig(Path dir, int port, Path caFile, boolean outbound) throws IOException {
        String config = String.join("\n",
                "poll_method epoll",
                "sip_listen 127.0.0.1:" + port,
                caFile == null ? "" : "sip_cafile " + caFile.toAbsolutePath(),
                "net_interface 127.0.0.1",
                "module_path /usr/lib/baresip/modules",
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

    /** A port P on 127.0.0.1 free for UDP and TCP, with P+1 free for TCP (baresip's TLS listener). */
    static int freePortPair() throws IOException {
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = Sipp.freePort();
            if (port < 65535) {
                try (ServerSocket tls = new ServerSocket(port + 1, 1, loopback)) {
                    return port;
                } catch (IOException inUse) {
                    continue;   // the answer, not an error: try another pair
                }
            }
        }
        throw new IOException("no two adjacent ports free on 127.0.0.1 after 50 attempts");
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

    /** The last lines of its output. */
    public String describe() {
        return process.describe();
    }

    /** Ends baresip by PID (TERM: it unregisters first; KILL after 5 s). */
    @Override
    public void close() {
        process.close();
    }
}
