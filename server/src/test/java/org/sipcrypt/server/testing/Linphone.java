package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.sipcrypt.server.transport.Transport;

/**
 * Debian's linphonec 5.1 ({@code linphone-cli}) as a real softphone in tests: one account
 * registered with digest credentials to the server under test over UDP, TCP or TLS, answering
 * calls by itself ({@code -a}), driven with its console commands on standard input. It gets a
 * home directory of its own in {@code dir} (its database, ZRTP cache and history live there) and
 * its own {@code linphonerc}; SIP binds to 127.0.0.1 only, video is off, and sound goes to files
 * ({@code soundcard use files}) so no sound card is needed.
 *
 * <p>Over TLS it checks the server's certificate against the test CA by name, and its TLS library
 * matches DNS names only: the server is dialled as {@code localhost}, which the test certificate
 * names. linphonec does not exit when its standard input closes; {@link #close()} ends it by PID.
 * See {@code docs/softphones.md}.
 * Threading: drive from one test thread; {@link #close()} from any.
 */
public final class Linphone implements AutoCloseable {

    /** The message of the failure when linphonec is missing. */
    public static final String INSTALL_HINT = "linphonec not found: install it with 'apt-get install -y linphone-cli'";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration STATUS_POLL = Duration.ofMillis(300);

    private final String user;
    private final SoftphoneProcess process;

    private Linphone(String user, SoftphoneProcess process) {
        this.user = user;
        this.process = process;
    }

    /**
     * Writes the config into {@code dir} and starts linphonec; returns once its console answers.
     *
     * @param server the server's listener of {@code transport} (for TLS dialled as {@code localhost})
     * @param caFile the CA that signed the server's TLS certificate
     */
    public static Linphone start(Path dir, String user, String password, Transport transport,
                                 InetSocketAddress server, Path caFile) throws IOException, InterruptedException {
        Objects.requireNonNull(transport, "transport");
        SoftphoneProcess.executable("linphonec", INSTALL_HINT);
        Path home = dir.resolve("home");
        // without this directory its database cannot be created and the core never leaves GlobalStartup
        Files.createDirectories(home.resolve(".local/share/linphone"));
        String host = transport == Transport.TLS ? "localhost" : server.getAddress().getHostAddress();
        String realm = server.getAddress().getHostAddress();
        int sipPort = Sipp.freePort();
        Path rc = dir.resolve("linphonerc");
        Files.writeString(rc, String.join("\n",
                "[sip]",
                // only the account's transport listens; 0 turns a transport off
                "sip_port=" + (transport == Transport.UDP ? sipPort : 0),
                "sip_tcp_port=" + (transport == Transport.TCP ? sipPort : 0),
                "sip_tls_port=" + (transport == Transport.TLS ? sipPort : 0),
                "bind_address=127.0.0.1",
                "use_ipv6=0",
                "default_proxy=0",
                "root_ca=" + caFile.toAbsolutePath(),
                "verify_server_certs=1",
                "verify_server_cn=1",
                "",
                "[rtp]",
                "audio_rtp_port=-1",
                "",
                "[video]",
                "enabled=0",
                "capture=0",
                "display=0",
                "",
                "[proxy_0]",
                "reg_proxy=<sip:" + host + ":" + server.getPort() + ";transport="
                        + transport.name().toLowerCase(Locale.ROOT) + ">",
                "reg_identity=sip:" + user + "@" + realm,
                "reg_expires=600",
                "reg_sendregister=1",
                "",
                "[auth_info_0]",
                "username=" + user,
                "passwd=" + password,
                "realm=" + realm,
                ""), StandardCharsets.UTF_8);
        SoftphoneProcess p = SoftphoneProcess.start("linphonec-" + user,
                List.of("linphonec", "-c", rc.toString(), "-a", "-d", "0"), dir,
                Map.of("HOME", home.toString()), INSTALL_HINT);
        try {
            p.send("soundcard use files");
            p.awaitAny(WAIT, "Using wav files instead of soundcard");
        } catch (AssertionError | RuntimeException e) {
            p.close();
            throw e;
        }
        return new Linphone(user, p);
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Waits for its REGISTER to be accepted: asks {@code status register} until it answers
     * {@code registered, identity=...}. linphonec prints no line of its own when registered.
     *
     * @throws AssertionError when it is not registered within 30 s
     */
    public void awaitRegistered() throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            process.send("status register");
            String line = process.awaitAny(WAIT, "registered");
            if (line.contains("registered, identity=")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(user + " was not registered within " + WAIT.toSeconds() + " s: " + line
                        + "\n" + process.describe());
            }
            Thread.sleep(STATUS_POLL.toMillis());
        }
    }

    /**
     * Waits for an incoming call to be answered (by itself) and connected.
     *
     * @throws AssertionError when the call ends or fails instead, or after 30 s
     */
    public void awaitCallConnected() throws InterruptedException {
        String line = process.awaitAny(WAIT, " connected.", " ended (", " error");
        if (!line.contains(" connected.")) {
            throw new AssertionError(user + "'s call was not connected: " + line + "\n" + process.describe());
        }
    }

    /** Ends the current call with a BYE. */
    public void terminate() {
        process.send("terminate");
    }

    /** Waits for the current call to end, by either side's BYE. */
    public void awaitCallEnded() throws InterruptedException {
        process.awaitAny(WAIT, " ended (");
    }

    /** The last lines of its output. */
    public String describe() {
        return process.describe();
    }

    /** Ends linphonec by PID (TERM, KILL after 5 s). */
    @Override
    public void close() {
        process.close();
    }
}
