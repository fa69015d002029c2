package org.sipcrypt.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.sipcrypt.lab.loadgen.Credential;
import org.sipcrypt.lab.loadgen.CredentialFiles;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.lab.loadgen.Uac;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.loadgen.Workload;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code uac}: runs a workload (calls, registrations, INVITEs answered 404 or 302, OPTIONS to the
 * target) against a target at a set rate for a set time, as the users of a users file when given
 * (answering digest challenges), printing a line per interval and a summary; {@code --json} writes
 * both to a file whose summary {@link RunSummary#parseSummaryJson} reads back, and {@code --start-at}
 * lets several generator processes begin together. Exit 0 when the run passed, 1 when it failed
 * (stopped by the failure threshold, or ended above it), 2 for bad arguments.
 * Threading: the main thread only.
 */
@Command(name = "uac", mixinStandardHelpOptions = true,
        description = "Run calls, registrations, refused INVITEs or OPTIONS against a SIP target (a proxy, registrar,"
                + " redirect server or UAS) at a set rate, open loop, and measure them.")
final class UacCommand extends LabCommand {

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "Where every request goes.")
    String target;

    @Option(names = "--workload", defaultValue = "call",
            description = "call, register, refresh, unregister, invite-not-found, redirect or options (an OPTIONS to the"
                    + " target itself, answered 200 by it) (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = "--users", paramLabel = "FILE",
            description = "Users file (the server's users generate --csv: SEQUENTIAL, then NAME;PASSWORD lines):"
                    + " operation i acts as user i mod N and answers digest challenges (default: no authentication).")
    Path users;

    @Option(names = "--domain", description = "Domain of the users: REGISTER sip:DOMAIN for sip:USER@DOMAIN, INVITEs"
            + " of redirect and invite-not-found to sip:USER@DOMAIN (default: the target's host).")
    String domain;

    @Option(names = "--register-contact", paramLabel = "HOST:PORT",
            description = "Where the Contact of each REGISTER points, e.g. a lab uas (default: this generator).")
    String registerContact;

    @Option(names = "--start-at", paramLabel = "EPOCH_MILLIS",
            description = "Begin the schedule at this wall-clock time (ms since 1970), so several generators begin"
                    + " together (default: at once).")
    Long startAt;

    @Option(names = "--transport", defaultValue = "udp",
            description = "udp, tcp, tls, ws or wss (SIP over WebSocket, RFC 7118; wss takes the TLS options)"
                    + " (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--connection", defaultValue = "persistent",
            description = "TCP/TLS: persistent (one connection) or per-call (default: ${DEFAULT-VALUE}).")
    String connection;

    @Option(names = "--cipher", defaultValue = "aes", split = ",",
            description = "TLS: provider or suite names (aes, 3des, camellia, seed, rc4, TLS_...) (default: ${DEFAULT-VALUE}).")
    List<String> ciphers;

    @Option(names = "--tls-engine", description = "TLS: bc, jsse, or openssl (BoringSSL, which resumes by TLS 1.2 tickets and TLS 1.3"
            + " PSKs; it offers its three TLS 1.3 suites whatever --cipher says) (default: the first of jsse, bc"
            + " that runs every suite).")
    String tlsEngine;

    @Option(names = "--crypto", split = ",", description = "TLS on bc: bc or jca, or PROVIDER:ENGINE (default: jca where a provider has it).")
    List<String> crypto = new ArrayList<>();

    @Option(names = "--tls-versions", defaultValue = "1.2", split = ",",
            description = "TLS versions offered: 1.2 and/or 1.3 (default: ${DEFAULT-VALUE}; the bc engine resumes TLS 1.2 sessions only).")
    List<String> versions;

    @Option(names = "--tls-groups", split = ",", paramLabel = "LIST",
            description = "TLS: key-exchange groups offered, most preferred first, as the server's tls.groups names"
                    + " them (x25519, secp256r1, x25519mlkem768, ...); on the bc engine, or openssl when told, which offer exactly these"
                    + " (default: the engine's own).")
    List<String> groups = new ArrayList<>();

    @Option(names = "--trust", description = "TLS: PEM CA certificates the target must chain to (default: the JDK's trust store).")
    Path trust;

    @Option(names = "--cert", description = "TLS: PEM client certificate chain presented when asked.")
    Path cert;

    @Option(names = "--key", description = "TLS: PEM private key of --cert.")
    Path key;

    @Option(names = "--session-reuse", defaultValue = "on", description = "TLS: on or off (default: ${DEFAULT-VALUE}).")
    String sessionReuse;

    @Option(names = "--allow-insecure", description = "Lab only: allow RC4 and 3DES (and re-enable them in this JVM's SunJSSE).")
    boolean allowInsecure;

    @Option(names = "--rate", defaultValue = "10",
            description = "Operations (calls, registrations, ...) per second, open loop (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--duration", defaultValue = "10", description = "Seconds of measured operations (default: ${DEFAULT-VALUE}).")
    double duration;

    @Option(names = "--warmup", defaultValue = "0", description = "Seconds of operations before, not in the summary (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = "--hold", defaultValue = "0", description = "Seconds between ACK and BYE (default: ${DEFAULT-VALUE}).")
    double hold;

    @Option(names = "--call-timeout", defaultValue = "5",
            description = "Seconds the answer to the INVITE or REGISTER (and to the BYE or second REGISTER) may take"
                    + " before the operation fails (default: ${DEFAULT-VALUE}).")
    double callTimeout;

    @Option(names = "--max-failed-pct", defaultValue = "1",
            description = "Stop (and fail) when more than this %% of measured operations failed (default: ${DEFAULT-VALUE}).")
    double maxFailedPct;

    @Option(names = "--uri", description = "Request-URI of the call workload's INVITEs (default: sip:lab-uas@TARGET;transport=T).")
    String uri;

    @Option(names = "--interval", defaultValue = "1", description = "Seconds per sample line (default: ${DEFAULT-VALUE}).")
    double interval;

    @Option(names = "--one-way-delay", defaultValue = "0", paramLabel = "DURATION",
            description = "Hold every segment and datagram sent and received for this long in the lab delay stage"
                    + " (e.g. 20ms, 0.05s; a bare number means seconds), so each round trip grows by twice it"
                    + " (default: ${DEFAULT-VALUE}, none).")
    String oneWayDelay;

    @Option(names = "--json", description = "Write the per-interval samples and the summary (with its response-time"
            + " histogram, so the summaries of several generators merge) to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        UacOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException e) {
            throw badArgument(e.getMessage(), e);
        }
        PrintWriter out = out();
        List<Interval> samples = new ArrayList<>();
        RunSummary summary;
        try {
            summary = new Uac(options).run(i -> {
                samples.add(i);
                out.println(i.line());
                out.flush();
            });
        } catch (IllegalArgumentException e) {
            throw badArgument(e.getMessage(), e);
        } catch (IOException e) {
            err().println("uac: " + e.getMessage());
            return 1;
        }
        out.println(summary.text());
        out.flush();
        if (json != null) {
            writeJson(samples, summary);
        }
        return summary.passed() ? 0 : 1;
    }

    private void writeJson(List<Interval> samples, RunSummary summary) throws IOException {
        StringBuilder b = new StringBuilder("{\"intervals\":[");
        for (int i = 0; i < samples.size(); i++) {
            b.append(i == 0 ? "\n" : ",\n").append(samples.get(i).json());
        }
        b.append("\n],\n\"summary\":").append(summary.json()).append("}\n");
        if (json.getParent() != null) {
            Files.createDirectories(json.getParent());
        }
        Files.writeString(json, b.toString(), StandardCharsets.UTF_8);
    }

    private UacOptions options() throws IOException {
        Transport t = Transport.parse(transport);
        ConnectionPattern pattern;
        try {
            pattern = ConnectionPattern.parse(connection);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--connection: " + e.getMessage(), e);
        }
        InetSocketAddress to = hostPort("--target", target);
        TlsOptions tls = null;
        if (t.secure()) {
            tls = new TlsOptions(ciphers, tlsEngine, crypto, versions, trust, cert, key, onOff("--session-reuse", sessionReuse),
                    BcTlsSetup.ClientCertificates.NONE, allowInsecure, groups);
        }
        String requestUri = uri != null ? uri : "sip:lab-uas@" + to.getAddress().getHostAddress() + ":" + to.getPort()
                + ";transport=" + t.configName();
        Workload w;
        try {
            w = Workload.parse(workload);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--workload: " + e.getMessage(), e);
        }
        List<Credential> credentials = List.of();
        if (users != null) {
            try {
                credentials = CredentialFiles.read(users);
            } catch (IOException e) {
                throw new IllegalArgumentException("--users: cannot read " + users + ": " + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--users: " + e.getMessage(), e);
            }
        }
        InetSocketAddress contact = registerContact == null ? null : hostPort("--register-contact", registerContact);
        return new UacOptions(to, t, pattern, tls, rate, seconds("--duration", duration), seconds("--warmup", warmup),
                seconds("--call-timeout", callTimeout), seconds("--hold", hold), maxFailedPct, requestUri, localFor(to),
                seconds("--interval", interval), w, domain, credentials, contact, startTime(startAt),
                delay("--one-way-delay", oneWayDelay));
    }

    /** The start time of {@code --start-at}: null for none; at most a day ahead. */
    static Instant startTime(Long epochMillis) {
        if (epochMillis == null) {
            return null;
        }
        if (epochMillis < 0 || epochMillis > System.currentTimeMillis() + 86_400_000L) {
            throw new IllegalArgumentException("--start-at: " + epochMillis
                    + " (expected milliseconds since 1970 no more than a day from now)");
        }
        return Instant.ofEpochMilli(epochMillis);
    }

    static Duration seconds(String option, double s) {
        if (s < 0 || Double.isNaN(s) || s > 86_400) {
            throw new IllegalArgumentException(option + ": " + s + " (expected 0 to 86400 seconds)");
        }
        return Duration.ofMillis(Math.round(s * 1000));
    }

    /**
     * A one-way delay: a number of seconds or milliseconds ({@code 20ms}, {@code 0.02s}, {@code 0.02}),
     * 0 to {@link UacOptions#MAX_ONE_WAY_DELAY}, to the microsecond.
     */
    static Duration delay(String option, String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s)?").matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" (expected a duration such as 20ms or 0.02s)");
        }
        double v = Double.parseDouble(m.group(1)) * ("ms".equals(m.group(2)) ? 1e-3 : 1);
        if (v > UacOptions.MAX_ONE_WAY_DELAY.toSeconds()) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" (expected 0 to "
                    + UacOptions.MAX_ONE_WAY_DELAY.toSeconds() + "s)");
        }
        return Duration.ofNanos(Math.round(v * 1e6) * 1000);
    }

    static boolean onOff(String option, String v) {
        return switch (v) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(option + ": \"" + v + "\" (expected on or off)");
        };
    }

    static InetSocketAddress hostPort(String option, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(option + ": \"" + value + "\" (expected HOST:PORT)");
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            InetSocketAddress a = new InetSocketAddress(value.substring(0, colon).replace("[", "").replace("]", ""), port);
            if (a.isUnresolved()) {
                throw new IllegalArgumentException(option + ": cannot resolve \"" + a.getHostString() + "\"");
            }
            return a;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": \"" + value + "\" has no port number", e);
        }
    }

    /** The local address the target is reached from (nothing is sent to find it). */
    private static InetAddress localFor(InetSocketAddress target) throws IOException {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(target);
            return probe.getLocalAddress();
        }
    }
}
