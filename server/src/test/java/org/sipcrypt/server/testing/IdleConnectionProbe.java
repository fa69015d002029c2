package org.sipcrypt.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Idle TCP or TLS connections for the heap figure of scenarios/idle/idle-connections.sh: opens N
 * connections to a server's {@code tcp:} or {@code tls:} listener from loopback, one after another,
 * spread round-robin over the source addresses 127.0.0.1 to 127.0.0.K (for a per-source connection
 * cap, and for more connections than one source's ephemeral ports); each (over TLS, once its
 * handshake on the one TLS version asked is done) sends one OPTIONS and reads its answer (a
 * connection without a complete message is closed by the server at {@code tcp.firstMessageTimeout}),
 * then stays silent but for optional RFC 5626 double-CRLF keep-alives (a ping resets the server's
 * {@code tcp.idleTimeout}; the CRLF pongs are left unread). Over TLS each connection is a client of
 * its own, with a fresh {@link SSLContext}, so none resumes another's session: every handshake is a
 * full one, as from N different clients; the server's certificate is checked against the lab CA's
 * {@code ca.pem}. A measurement driver, not a test: it fails only when it cannot run. Bounded: at
 * most N connections, a deadline for opening them, a time bound on each network operation, and a
 * hold bound; everything it opened is closed on {@link #close()}. JDK classes only, so it runs from
 * the test classes directory alone.
 * <pre>
 * java -cp server/target/test-classes org.sipcrypt.server.testing.IdleConnectionProbe \
 *     --target 127.0.0.1:5061 --transport tls --ca certs/ca.pem --connections 10000 \
 *     --tls-version 1.3 --hold 600 --release /tmp/release --keepalive 0
 * java -cp server/target/test-classes org.sipcrypt.server.testing.IdleConnectionProbe \
 *     --target 127.0.0.1:5060 --transport tcp --connections 100000 --sources 8 --hold 600
 * </pre>
 * Threading: one thread (the caller's); not thread-safe.
 */
public final class IdleConnectionProbe implements AutoCloseable {

    private static final byte[] PING = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Largest answer read to the OPTIONS; the server's 200 is a few hundred bytes. */
    private static final int MAX_ANSWER_BYTES = 65_536;

    private final InetSocketAddress target;
    /** Null for plain TCP. */
    private final TrustManager[] trust;
    private final String protocol;
    private final int timeoutMillis;
    private final List<Socket> held = new ArrayList<>();
    private int failures;
    private String firstFailure;
    private String negotiated = "";
    private long openMillis;

    private IdleConnectionProbe(InetSocketAddress target, TrustManager[] trust, String protocol, Duration timeout) {
        this.target = target;
        this.trust = trust;
        this.protocol = protocol;
        this.timeoutMillis = (int) timeout.toMillis();
    }

    /**
     * Opens plain TCP connections and returns the probe holding those that got their OPTIONS
     * answered with 200; the others are counted in {@link #failures()}.
     *
     * @param target      the server's tcp listener
     * @param connections how many to open, at least 1
     * @param sources     source addresses 127.0.0.1 to 127.0.0.{@code sources}, 1 to 254
     * @param timeout     bound on each connect and answer
     * @param deadline    bound on opening them all; those not begun by then are not opened
     */
    public static IdleConnectionProbe openTcp(InetSocketAddress target, int connections, int sources,
                                              Duration timeout, Duration deadline) throws IOException {
        check(target, connections, sources);
        IdleConnectionProbe probe = new IdleConnectionProbe(target, null, "TCP", timeout);
        probe.openAll(connections, sources, System.nanoTime() + deadline.toNanos());
        return probe;
    }

    /**
     * Opens TLS connections and returns the probe holding those that got their OPTIONS answered
     * with 200; the others are counted in {@link #failures()}.
     *
     * @param target      the server's tls listener
     * @param ca          the PEM certificate of the CA the server's certificate chains to
     * @param tlsVersion  {@code 1.2} or {@code 1.3}: the only version the clients offer
     * @param connections how many to open, at least 1
     * @param sources     source addresses 127.0.0.1 to 127.0.0.{@code sources}, 1 to 254
     * @param timeout     bound on each connect, handshake and answer
     * @param deadline    bound on opening them all; those not begun by then are not opened
     */
    public static IdleConnectionProbe openTls(InetSocketAddress target, Path ca, String tlsVersion, int connections,
                                              int sources, Duration timeout, Duration deadline)
            throws IOException, GeneralSecurityException {
        check(target, connections, sources);
        String protocol = switch (tlsVersion) {
            case "1.2" -> "TLSv1.2";
            case "1.3" -> "TLSv1.3";
            default -> throw new IllegalArgumentException("tlsVersion: \"" + tlsVersion + "\" (expected 1.2 or 1.3)");
        };
        IdleConnectionProbe probe = new IdleConnectionProbe(target, trustManagers(ca), protocol, timeout);
        probe.openAll(connections, sources, System.nanoTime() + deadline.toNanos());
        return probe;
    }

    private static void check(InetSocketAddress target, int connections, int sources) {
        Objects.requireNonNull(target, "target");
        if (!target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("target: " + target + " is not a loopback address");
        }
        if (connections < 1 || sources < 1 || sources > 254) {
            throw new IllegalArgumentException("connections: " + connections + ", sources: " + sources
                    + " (expected at least 1 connection and 1 to 254 sources)");
        }
    }

    private static TrustManager[] trustManagers(Path ca) throws IOException, GeneralSecurityException {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            ts.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        return tmf.getTrustManagers();
    }

    private void openAll(int connections, int sources, long deadlineNanos) throws IOException {
        InetAddress[] from = new InetAddress[sources];
        for (int k = 0; k < sources; k++) {
            from[k] = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (k + 1)});
        }
        long start = System.nanoTime();
        for (int i = 0; i < connections && System.nanoTime() < deadlineNanos; i++) {
            try {
                held.add(openOne(from[i % sources], i));
            } catch (IOException | GeneralSecurityException e) {
                failures++;
                if (firstFailure == null) {
                    firstFailure = e.toString();
                }
            }
        }
        openMillis = (System.nanoTime() - start) / 1_000_000;
    }

    /** One connection: connect, handshake (TLS), OPTIONS and its 200; closed again when any step fails. */
    private Socket openOne(InetAddress from, int n) throws IOException, GeneralSecurityException {
        Socket s;
        if (trust == null) {
            s = new Socket();
        } else {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, trust, null);
            s = ctx.getSocketFactory().createSocket();
        }
        try {
            s.setTcpNoDelay(true);
            s.bind(new InetSocketAddress(from, 0));
            s.connect(target, timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            if (s instanceof SSLSocket tls) {
                tls.setEnabledProtocols(new String[] {protocol});
                tls.startHandshake();
                if (negotiated.isEmpty()) {
                    negotiated = tls.getSession().getProtocol() + " " + tls.getSession().getCipherSuite();
                }
            } else {
                negotiated = "TCP";
            }
            s.getOutputStream().write(options(from, s.getLocalPort(), n).getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            String answer = readAnswer(s.getInputStream());
            if (!answer.startsWith("SIP/2.0 200")) {
                throw new IOException("OPTIONS answered " + answer.lines().findFirst().orElse(""));
            }
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private String options(InetAddress from, int port, int n) {
        String host = target.getAddress().getHostAddress() + ":" + target.getPort();
        String self = from.getHostAddress() + ":" + port;
        String transport = trust == null ? "tcp" : "tls";
        String callId = "idle-" + transport + "-" + n + "-" + System.nanoTime();
        return "OPTIONS sip:" + host + ";transport=" + transport + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport.toUpperCase(Locale.ROOT) + " " + self + ";branch=z9hG4bK" + callId + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:idle@" + from.getHostAddress() + ">;tag=idle" + n + "\r\n"
                + "To: <sip:" + host + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Contact: <sip:idle@" + self + ";transport=" + transport + ">\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** The first message on the stream: its header section and as many body bytes as its Content-Length says. */
    private static String readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[2048];
        int headEnd = -1;
        int length = 0;
        while (headEnd < 0 || got.size() < headEnd + length) {
            int r = in.read(buf);
            if (r < 0) {
                throw new IOException("closed by the server before a whole answer (" + got.size() + " bytes)");
            }
            got.write(buf, 0, r);
            if (got.size() > MAX_ANSWER_BYTES) {
                throw new IOException("answer longer than " + MAX_ANSWER_BYTES + " bytes");
            }
            if (headEnd < 0) {
                String text = got.toString(StandardCharsets.US_ASCII);
                int end = text.indexOf("\r\n\r\n");
                if (end >= 0) {
                    headEnd = end + 4;
                    length = contentLength(text.substring(0, end));
                }
            }
        }
        return got.toString(StandardCharsets.US_ASCII);
    }

    private static int contentLength(String head) throws IOException {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            String name = colon < 0 ? "" : line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            if (name.equals("content-length") || name.equals("l")) {
                try {
                    return Integer.parseInt(line.substring(colon + 1).trim());
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length in the answer: " + line, e);
                }
            }
        }
        return 0;
    }

    /** Connections held: handshake done and OPTIONS answered, not lost to a failed keep-alive since. */
    public int held() {
        return held.size();
    }

    /** Connections that could not be opened (connect, handshake or answer failed or timed out). */
    public int failures() {
        return failures;
    }

    /** The first failure, or null when every connection opened. */
    public String firstFailure() {
        return firstFailure;
    }

    /**
     * Protocol and suite of the first connection, e.g. {@code TLSv1.3 TLS_AES_128_GCM_SHA256}, or
     * {@code TCP}; empty when none opened.
     */
    public String negotiated() {
        return negotiated;
    }

    /** How long opening them took, in milliseconds. */
    public long openMillis() {
        return openMillis;
    }

    /**
     * Sends one RFC 5626 keep-alive (CRLF CRLF) on every held connection; a connection whose write
     * fails is closed and no longer held.
     *
     * @return how many were lost this round
     */
    public int ping() {
        int lost = 0;
        for (int i = held.size() - 1; i >= 0; i--) {
            Socket s = held.get(i);
            try {
                s.getOutputStream().write(PING);
                s.getOutputStream().flush();
            } catch (IOException e) {
                lost++;
                held.remove(i);
                closeQuietly(s);
            }
        }
        return lost;
    }

    /** Closes every held connection (over TLS close_notify, then the socket). */
    @Override
    public void close() {
        for (Socket s : held) {
            closeQuietly(s);
        }
        held.clear();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // the connection is gone either way; nothing held is left to release
        }
    }

    public static void main(String[] args) throws Exception {
        String target = "127.0.0.1:5061";
        String transport = "tls";
        String ca = null;
        int connections = 10_000;
        String tlsVersion = "1.3";
        int sources = 1;
        long timeout = 10;
        long deadline = 600;
        long hold = 600;
        String release = null;
        long keepalive = 0;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            if (value == null) {
                usage("option " + args[i] + " needs a value");
            }
            switch (args[i++]) {
                case "--target" -> target = value;
                case "--transport" -> transport = value;
                case "--ca" -> ca = value;
                case "--connections" -> connections = Integer.parseInt(value);
                case "--tls-version" -> tlsVersion = value;
                case "--sources" -> sources = Integer.parseInt(value);
                case "--timeout" -> timeout = Long.parseLong(value);
                case "--deadline" -> deadline = Long.parseLong(value);
                case "--hold" -> hold = Long.parseLong(value);
                case "--release" -> release = value;
                case "--keepalive" -> keepalive = Long.parseLong(value);
                default -> usage("unknown option " + args[i - 1]);
            }
        }
        int colon = target.lastIndexOf(':');
        boolean tls = transport.equals("tls");
        if (!tls && !transport.equals("tcp")) {
            usage("--transport: \"" + transport + "\" (expected tcp or tls)");
        }
        if (colon < 0 || (tls && ca == null) || timeout < 1 || deadline < 1 || hold < 0 || keepalive < 0) {
            usage("expected --target HOST:PORT, --ca FILE over TLS, positive times and a hold and keep-alive of 0 or more");
        }
        InetSocketAddress t = new InetSocketAddress(InetAddress.getByName(target.substring(0, colon)),
                Integer.parseInt(target.substring(colon + 1)));
        boolean none;
        try (IdleConnectionProbe probe = tls
                ? openTls(t, Path.of(ca), tlsVersion, connections, sources, Duration.ofSeconds(timeout),
                        Duration.ofSeconds(deadline))
                : openTcp(t, connections, sources, Duration.ofSeconds(timeout), Duration.ofSeconds(deadline))) {
            System.out.println("opened " + probe.held() + " of " + connections + " in " + probe.openMillis()
                    + " ms from " + sources + " source address(es), " + probe.negotiated() + "; " + probe.failures()
                    + " failed"
                    + (probe.firstFailure() == null ? "" : ", first: " + probe.firstFailure()));
            System.out.println("held " + probe.held());
            System.out.flush();
            none = probe.held() == 0;
            if (!none) {
                probe.holdUntil(release == null ? null : Path.of(release), hold, keepalive);
            }
        }
        if (none) {
            System.exit(1);
        }
    }

    /**
     * Holds for up to {@code holdSeconds}, or until {@code release} exists, pinging every
     * {@code keepalive} s (0: never).
     */
    private void holdUntil(Path release, long holdSeconds, long keepalive) {
        long start = System.nanoTime();
        long end = start + holdSeconds * 1_000_000_000L;
        long nextPing = keepalive > 0 ? start + keepalive * 1_000_000_000L : Long.MAX_VALUE;
        int rounds = 0;
        int lost = 0;
        while (System.nanoTime() < end && (release == null || !Files.exists(release))) {
            if (System.nanoTime() >= nextPing) {
                lost += ping();
                rounds++;
                nextPing += keepalive * 1_000_000_000L;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        long heldSeconds = (System.nanoTime() - start) / 1_000_000_000L;
        System.out.println("closing " + held() + " after holding " + heldSeconds + " s ("
                + rounds + " keep-alive rounds, " + lost + " connections lost to a failed keep-alive)");
    }

    private static void usage(String problem) {
        System.err.println("IdleConnectionProbe: " + problem + "\nusage: --target HOST:PORT [--transport tcp|tls]"
                + " [--ca FILE (tls)] [--connections N] [--tls-version 1.2|1.3 (tls)] [--sources K] [--timeout S] [--deadline S] [--hold S] [--release FILE]"
                + " [--keepalive S]");
        System.exit(2);
    }
}
