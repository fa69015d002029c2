package org.sipcrypt.server.testing;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * A benchmark load driver over TLS, not a test: the calling side of INVITE/100/180/200/ACK/BYE/200
 * towards the sipcrypt proxy over one persistent TLS connection at a fixed open-loop call rate
 * ({@link OpenLoopCaller}), or a run of TLS handshakes, each followed by one OPTIONS to the server
 * ({@link HandshakeLoad}): full, resumed, or presenting a client certificate. The TLS client is
 * Bouncy Castle's blocking {@code TlsClientProtocol} or the JDK's SunJSSE ({@link TlsConnector}),
 * offering exactly the suites named, so every suite the server can run is measured the same way.
 * On standard output: {@code WINDOW start} and {@code WINDOW end} around the measured part (a
 * script reads the server's CPU time at each), then one line {@code RESULT key=value ...}; a
 * summary for people goes to standard error. Exit code 0 when something was measured, 1 when the
 * connection failed, 2 on bad options. {@code scenarios/tls/tls-bench.sh} runs it; {@code --help}
 * lists the options.
 * Threading: main thread only; the modes start and end their own threads.
 */
public final class TlsCallLoad {

    static final String USAGE = """
            usage: TlsCallLoad --target HOST:PORT --trust CA.pem [options]
              calls mode:      --calls N --rate R [--warmup-seconds S] [--call-timeout S] [--uri SIP-URI]
              handshake mode:  --handshakes N [--concurrency C] [--resume] [--warmup-seconds S]
            options:
              --suite NAME[,NAME...]   IANA (or JSSE) suite names offered, in order
                                       (default TLS_RSA_WITH_AES_128_CBC_SHA)
              --client bc|jsse|tcp     Bouncy Castle's TlsClientProtocol (default) or the JDK's SSLSocket;
                                       jsse takes RC4 and 3DES out of jdk.tls.disabledAlgorithms first;
                                       tcp: no TLS at all, the plaintext baseline (Via TCP)
              --crypto bc|jca          crypto of the bc client (default jca)
              --trust FILE             PEM CA the server's certificate must chain to
              --cert FILE --key FILE   client certificate and key, presented when the server asks
              --calls N                measured calls (after the warm-up)
              --rate R                 calls started per second, open loop (default 100)
              --warmup-seconds S       unmeasured calls at the same rate (or handshakes) for S seconds first
              --call-timeout S         a call not ended by then fails (default 10)
              --uri SIP-URI            Request-URI and To of the calls (default sip:bench@127.0.0.1)
              --handshakes N           measured connections: handshake, OPTIONS, 200, close
              --concurrency C          connections at a time in handshake mode (default 1)
              --resume                 offer the first connection's session on later ones
              --handshake-timeout S    bound on connect plus handshake, and on the OPTIONS answer (default 10)
              --trace                  calls mode: every message sent and read to standard error
            """;

    private TlsCallLoad() {
    }

    /**
     * Parsed command line.
     * Threading: immutable.
     */
    record Options(InetSocketAddress target, List<String> suites, TlsConnector.ClientKind client,
                   TlsConnector.CryptoKind crypto, Path trust, Path cert, Path key, int calls, double rate,
                   double warmupSeconds, double callTimeoutSeconds, String uri, int handshakes, int concurrency,
                   boolean resume, double handshakeTimeoutSeconds, boolean trace) {

        static Options parse(String... args) {
            InetSocketAddress target = null;
            List<String> suites = List.of("TLS_RSA_WITH_AES_128_CBC_SHA");
            TlsConnector.ClientKind client = TlsConnector.ClientKind.BC;
            TlsConnector.CryptoKind crypto = TlsConnector.CryptoKind.JCA;
            Path trust = null;
            Path cert = null;
            Path key = null;
            int calls = 0;
            double rate = 100;
            double warmup = 0;
            double callTimeout = 10;
            String uri = "sip:bench@127.0.0.1";
            int handshakes = 0;
            int concurrency = 1;
            boolean resume = false;
            boolean trace = false;
            double handshakeTimeout = 10;
            List<String> list = new ArrayList<>();
            for (String a : args) {
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    list.add(a.substring(0, eq));
                    list.add(a.substring(eq + 1));
                } else {
                    list.add(a);
                }
            }
            for (int i = 0; i < list.size(); i++) {
                String opt = list.get(i);
                if (opt.equals("--resume")) {
                    resume = true;
                    continue;
                }
                if (opt.equals("--trace")) {
                    trace = true;
                    continue;
                }
                if (opt.equals("-h") || opt.equals("--help")) {
                    throw new HelpRequested();
                }
                if (i + 1 >= list.size()) {
                    throw new IllegalArgumentException(opt + " needs a value");
                }
                String v = list.get(++i);
                switch (opt) {
                    case "--target" -> target = hostPort(v);
                    case "--suite" -> suites = Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
                    case "--client" -> client = TlsConnector.ClientKind.valueOf(oneOf(opt, v, "bc", "jsse", "tcp"));
                    case "--crypto" -> crypto = TlsConnector.CryptoKind.valueOf(oneOf(opt, v, "bc", "jca"));
                    case "--trust" -> trust = file(opt, v);
                    case "--cert" -> cert = file(opt, v);
                    case "--key" -> key = file(opt, v);
                    case "--calls" -> calls = (int) number(opt, v, 1, 10_000_000);
                    case "--rate" -> rate = number(opt, v, 0.1, 100_000);
                    case "--warmup-seconds" -> warmup = number(opt, v, 0, 3600);
                    case "--call-timeout" -> callTimeout = number(opt, v, 0.1, 600);
                    case "--uri" -> uri = v;
                    case "--handshakes" -> handshakes = (int) number(opt, v, 1, 10_000_000);
                    case "--concurrency" -> concurrency = (int) number(opt, v, 1, 1000);
                    case "--handshake-timeout" -> handshakeTimeout = number(opt, v, 0.1, 600);
                    default -> throw new IllegalArgumentException("unknown option " + opt);
                }
            }
            if (target == null || trust == null) {
                throw new IllegalArgumentException("--target and --trust are required");
            }
            if ((calls > 0) == (handshakes > 0)) {
                throw new IllegalArgumentException("give either --calls or --handshakes");
            }
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("--cert and --key go together");
            }
            if (suites.isEmpty()) {
                throw new IllegalArgumentException("--suite names no suite");
            }
            return new Options(target, suites, client, crypto, trust, cert, key, calls, rate, warmup, callTimeout, uri,
                    handshakes, concurrency, resume, handshakeTimeout, trace);
        }

        private static InetSocketAddress hostPort(String v) {
            int colon = v.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--target: \"" + v + "\" (expected HOST:PORT)");
            }
            String host = v.substring(0, colon).replaceAll("^\\[|]$", "");
            return new InetSocketAddress(host, (int) number("--target port", v.substring(colon + 1), 1, 65535));
        }

        private static String oneOf(String opt, String v, String... allowed) {
            for (String a : allowed) {
                if (a.equalsIgnoreCase(v)) {
                    return a.toUpperCase(Locale.ROOT);
                }
            }
            throw new IllegalArgumentException(opt + ": \"" + v + "\" (expected " + String.join(" or ", allowed) + ")");
        }

        private static Path file(String opt, String v) {
            Path p = Path.of(v);
            if (!Files.isReadable(p)) {
                throw new IllegalArgumentException(opt + ": cannot read " + v);
            }
            return p;
        }

        private static double number(String opt, String v, double min, double max) {
            double d;
            try {
                d = Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(opt + ": \"" + v + "\" is not a number", e);
            }
            if (d < min || d > max) {
                throw new IllegalArgumentException(opt + ": " + v + " is outside " + min + ".." + max);
            }
            return d;
        }
    }

    /** {@code --help} on the command line. */
    static final class HelpRequested extends RuntimeException {
        HelpRequested() {
            super("help", null, false, false);
        }
    }

    public static void main(String... args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (HelpRequested e) {
            System.out.print(USAGE);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println("TlsCallLoad: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        TlsConnector connector;
        try {
            connector = new TlsConnector(o.client(), o.crypto(), TlsConnector.suitesNamed(o.suites()), o.target(),
                    o.trust(), o.cert(), o.key(), (int) (o.handshakeTimeoutSeconds() * 1000), o.resume());
        } catch (IllegalArgumentException e) {
            System.err.println("TlsCallLoad: " + e.getMessage());
            System.exit(2);
            return;
        }
        int rc;
        if (o.calls() > 0) {
            rc = new OpenLoopCaller(connector, o).run();
        } else {
            rc = new HandshakeLoad(connector, o).run();
        }
        System.out.flush();
        System.exit(rc);
    }

    /** {@code 127.0.0.1:5061}. */
    static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    /** Prints a window marker on standard output at once. */
    static void window(String which) {
        System.out.println("WINDOW " + which + " " + System.currentTimeMillis());
        System.out.flush();
    }

    /** {@code p50_ms=... p90_ms=... p99_ms=... max_ms=...} of a histogram in microseconds. */
    static String percentiles(Histogram h) {
        if (h.getTotalCount() == 0) {
            return "p50_ms=- p90_ms=- p99_ms=- max_ms=-";
        }
        return String.format(Locale.ROOT, "p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f",
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
    }

    /** {@code a:3,b:1} sorted by name, or {@code none}. */
    static String counts(Map<String, ? extends Number> m) {
        if (m.isEmpty()) {
            return "none";
        }
        return m.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey().replaceAll("[\\s,=:]+", "_") + ":" + e.getValue()).collect(Collectors.joining(","));
    }

    /** The options that shape a run, as {@code key=value} pairs of the RESULT line. */
    static String describe(Options o, String negotiated) {
        return "suite=" + negotiated + " client=" + o.client().name().toLowerCase(Locale.ROOT)
                + " crypto=" + (o.client() == TlsConnector.ClientKind.BC ? o.crypto().name().toLowerCase(Locale.ROOT)
                : o.client().name().toLowerCase(Locale.ROOT));
    }
}
