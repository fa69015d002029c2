package org.sipcrypt.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * JsSIP, the JavaScript SIP library browsers' WebRTC phones are built on, run by Node as a
 * WebSocket client (RFC 7118) of the server under test: {@code src/test/resources/jssip/phone.js}
 * with {@code jssip} and {@code jssip-node-websocket} from npm, installed once into
 * {@code target/jssip} ({@link #install()}). One user agent per process registers with digest
 * credentials, answers calls by itself, and is driven with commands on standard input
 * ({@code call URI}, {@code hangup}). Node has no WebRTC, so the script's peer connection only
 * writes and reads SDP; the signalling is JsSIP's own. A {@code wss:} URL is checked against the
 * test CA ({@code NODE_EXTRA_CA_CERTS}).
 * Threading: drive from one test thread; {@link #close()} from any.
 */
public final class JsSip implements AutoCloseable {

    /** The failure message when Node or npm is missing. */
    public static final String INSTALL_HINT = "node or npm not found: install them with 'apt-get install -y nodejs npm'";
    /** The packages installed, pinned. */
    static final List<String> PACKAGES = List.of("jssip@3.13.8", "jssip-node-websocket@3.0.0");
    private static final Path HOME = Path.of("target", "jssip");
    private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final String name;
    private final SoftphoneProcess process;

    private JsSip(String name, SoftphoneProcess process) {
        this.name = name;
        this.process = process;
    }

    /**
     * Installs the npm packages into {@code target/jssip} unless they are there, and copies the
     * script next to them; returns the script.
     */
    public static synchronized Path install() throws IOException, InterruptedException {
        Path npm = SoftphoneProcess.executable("npm", INSTALL_HINT);
        Files.createDirectories(HOME);
        if (!Files.isDirectory(HOME.resolve("node_modules").resolve("jssip-node-websocket"))) {
            List<String> command = new java.util.ArrayList<>(List.of(npm.toString(), "install", "--prefix",
                    HOME.toAbsolutePath().toString(), "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"));
            command.addAll(PACKAGES);
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(HOME.resolve("npm-install.log").toFile()).start();
            if (!p.waitFor(INSTALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("npm install " + PACKAGES + " took over " + INSTALL_TIMEOUT
                        + "; see " + HOME.resolve("npm-install.log"));
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("npm install " + PACKAGES + " failed (exit " + p.exitValue() + "): "
                        + Files.readString(HOME.resolve("npm-install.log")));
            }
        }
        Path script = HOME.resolve("phone.js");
        try (InputStream in = Objects.requireNonNull(JsSip.class.getResourceAsStream("/jssip/phone.js"),
                "jssip/phone.js on the test class path")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        return script;
    }

    /**
     * Starts a user agent that registers {@code sipUri} over {@code url}; returns at once
     * ({@link #awaitRegistered()}).
     *
     * @param url    {@code ws://127.0.0.1:PORT} or {@code wss://127.0.0.1:PORT}
     * @param caFile the CA that signed the server's certificate (for {@code wss:})
     */
    public static JsSip start(String url, String sipUri, String password, Path caFile)
            throws IOException, InterruptedException {
        Path script = install();
        String name = "jssip-" + sipUri.replaceAll("[^A-Za-z0-9]+", "-");
        SoftphoneProcess p = SoftphoneProcess.start(name,
                List.of("node", script.getFileName().toString(), url, sipUri, password),
                script.toAbsolutePath().getParent(), Map.of("NODE_EXTRA_CA_CERTS", caFile.toAbsolutePath().toString()),
                INSTALL_HINT);
        return new JsSip(name, p);
    }

    /** Waits for its REGISTER to be accepted. */
    public void awaitRegistered() throws InterruptedException {
        String line = process.awaitAny(WAIT, "registered", "registration failed");
        if (!line.equals("registered")) {
            throw new AssertionError(name + " was not registered: " + line + "\n" + process.describe());
        }
    }

    /** Calls {@code uri}. */
    public void call(String uri) {
        process.send("call " + uri);
    }

    /** Ends the current call (BYE, or CANCEL while it rings). */
    public void hangup() {
        process.send("hangup");
    }

    /** Waits for an incoming call and returns its line: the caller, the Vias and the Record-Routes it arrived with. */
    public String awaitIncoming() throws InterruptedException {
        return process.awaitAny(WAIT, "incoming ");
    }

    /** Waits for the current call to be confirmed (2xx and ACK); fails naming how it ended otherwise. */
    public void awaitConfirmed() throws InterruptedException {
        String line = process.awaitAny(WAIT, "confirmed", "failed ", "ended ");
        if (!line.equals("confirmed")) {
            throw new AssertionError(name + "'s call was not confirmed: " + line + "\n" + process.describe());
        }
    }

    /** Waits for the current call to end and returns the line ({@code ended remote Terminated} after the other side's BYE). */
    public String awaitEnded() throws InterruptedException {
        return process.awaitAny(WAIT, "ended ", "failed ");
    }

    /** The last lines of its output, for assertion messages. */
    public String describe() {
        return process.describe();
    }

    @Override
    public void close() {
        process.close();
    }
}
