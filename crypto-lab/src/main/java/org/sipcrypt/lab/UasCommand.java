package org.sipcrypt.lab;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code uas}: answers calls on one or more listeners until stopped (SIGINT/SIGTERM) or for
 * {@code --duration}; prints what it received at the end. Exit codes: 0 after a run, 1 when a
 * listener cannot be opened, 2 for bad arguments.
 * Threading: the main thread only.
 */
@Command(name = "uas", mixinStandardHelpOptions = true,
        description = "Answer calls (INVITE 100/180/200, BYE 200, OPTIONS 200) on UDP, TCP or TLS listeners.")
final class UasCommand extends LabCommand {

    @Option(names = "--listen", required = true, paramLabel = "udp|tcp|tls:HOST:PORT",
            description = "A listener, repeatable; port 0 picks a free one.")
    List<String> listen;

    @Option(names = "--cert", description = "TLS: PEM certificate chain of the listener.")
    Path cert;

    @Option(names = "--key", description = "TLS: PEM private key of --cert.")
    Path key;

    @Option(names = "--trust", description = "TLS: PEM CA certificates client certificates must chain to.")
    Path trust;

    @Option(names = "--cipher", defaultValue = "aes", split = ",", description = "TLS: provider or suite names (default: ${DEFAULT-VALUE}).")
    List<String> ciphers;

    @Option(names = "--tls-engine", defaultValue = "bc",
            description = "TLS: bc, or jsse for suites only SunJSSE runs (rc4) (default: ${DEFAULT-VALUE}).")
    String tlsEngine;

    @Option(names = "--crypto", split = ",", description = "TLS: bc or jca, or PROVIDER:ENGINE.")
    List<String> crypto = new ArrayList<>();

    @Option(names = "--tls-versions", defaultValue = "1.2", split = ",", description = "TLS versions: 1.2 and/or 1.3 (default: ${DEFAULT-VALUE}).")
    List<String> versions;

    @Option(names = "--client-auth", defaultValue = "none", description = "TLS: none, want or need (default: ${DEFAULT-VALUE}).")
    String clientAuth;

    @Option(names = "--session-reuse", defaultValue = "on", description = "TLS: on or off (default: ${DEFAULT-VALUE}).")
    String sessionReuse;

    @Option(names = "--allow-insecure", description = "Lab only: allow 3DES and RC4 (RC4 with --tls-engine jsse).")
    boolean allowInsecure;

    @Option(names = "--duration", description = "Seconds to run (default: until stopped).")
    Double duration;

    @Option(names = "--one-way-delay", defaultValue = "0", paramLabel = "DURATION",
            description = "Hold every segment and datagram the listeners send and receive for this long in the lab"
                    + " delay stage (e.g. 20ms, 0.05s; a bare number means seconds) (default: ${DEFAULT-VALUE}, none).")
    String oneWayDelay;

    @Override
    public Integer call() throws Exception {
        TlsOptions tls;
        java.time.Duration delay;
        List<Object[]> listeners = new ArrayList<>();
        try {
            BcTlsSetup.ClientCertificates cc = switch (clientAuth) {
                case "none" -> BcTlsSetup.ClientCertificates.NONE;
                case "want" -> BcTlsSetup.ClientCertificates.WANT;
                case "need" -> BcTlsSetup.ClientCertificates.NEED;
                default -> throw new IllegalArgumentException("--client-auth: \"" + clientAuth + "\" (expected none, want or need)");
            };
            // the UAS serves TLS on the bc engine, the server's own, unless told otherwise (RC4 needs SunJSSE)
            tls = new TlsOptions(ciphers, tlsEngine, crypto, versions, trust, cert, key,
                    UacCommand.onOff("--session-reuse", sessionReuse), cc, allowInsecure);
            for (String l : listen) {
                int colon = l.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("--listen: \"" + l + "\" (expected udp|tcp|tls:HOST:PORT)");
                }
                listeners.add(new Object[] {org.sipcrypt.lab.scenario.Leg.labTransport(l.substring(0, colon).toLowerCase(Locale.ROOT)),
                    UacCommand.hostPort("--listen", l.substring(colon + 1))});
            }
            if (duration != null) {
                UacCommand.seconds("--duration", duration);
            }
            delay = UacCommand.delay("--one-way-delay", oneWayDelay);
        } catch (IllegalArgumentException e) {
            throw badArgument(e.getMessage(), e);
        }
        PrintWriter out = out();
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        try (Uas uas = new Uas(delay)) {
            for (Object[] l : listeners) {
                Transport t = (Transport) l[0];
                try {
                    java.net.InetSocketAddress bound = uas.listen(t, (java.net.InetSocketAddress) l[1],
                            t == Transport.TLS ? tls : null);
                    out.println("listening on " + t.configName() + ":" + bound.getAddress().getHostAddress() + ":"
                            + bound.getPort());
                } catch (IllegalArgumentException e) {
                    throw badArgument(e.getMessage(), e);
                } catch (java.io.IOException e) {
                    java.net.InetSocketAddress a = (java.net.InetSocketAddress) l[1];
                    err().println("uas: cannot listen on " + t.configName() + ":"
                            + a.getHostString() + ":" + a.getPort() + ": " + e.getMessage());
                    return 1;
                }
            }
            out.flush();
            // on SIGINT/SIGTERM the hook lets the main thread print its counts before the JVM exits
            Thread hook = new Thread(() -> {
                stop.countDown();
                try {
                    done.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "lab-uas-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            boolean timedOut = false;
            if (duration != null) {
                timedOut = !stop.await(Math.round(duration * 1000), TimeUnit.MILLISECONDS);
            } else {
                stop.await();
            }
            out.printf(Locale.ROOT, "uas: INVITE %d ACK %d BYE %d OPTIONS %d; bytes in %d out %d; tls handshakes %d"
                            + " (resumed %d); 200 retransmissions %d, given up %d%n", uas.requests("INVITE"),
                    uas.requests("ACK"), uas.requests("BYE"), uas.requests("OPTIONS"), uas.counters().bytesReceived(),
                    uas.counters().bytesSent(), uas.counters().handshakes(), uas.counters().resumed(),
                    uas.counters().retransmissions(), uas.timerHExpired());
            out.flush();
            if (timedOut) {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        } finally {
            done.countDown();
        }
        return 0;
    }
}
