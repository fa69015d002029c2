package org.sipcrypt.lab.runner;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.sipcrypt.lab.loadgen.Credential;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.lab.metrics.ProcessCpu;
import org.sipcrypt.lab.scenario.Leg;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.Transport;

/**
 * What one point (or one ramp) of a scenario runs against: the lab UAS on the right leg, and the
 * sipcrypt server under test in its own process, set up for one compared cipher: its listener for
 * the left leg, a route for {@code lab.test} to the UAS over the right leg's transport and
 * connection pattern, TLS with that cipher's one suite under the comparison's {@link Handshake}
 * (TLS 1.2 with RSA key exchange unless asked otherwise), and its one key-exchange group when it has
 * one, client certificates and session reuse as the legs say. A bench on an external target starts no
 * server: that server must already route {@code lab.test} to the UAS address given. When the right
 * leg is SIP over WebSocket ({@code ws}, {@code wss:CIPHER}), the server gets a {@code ws:} or
 * {@code wss:} listener and serves {@code lab.test} as a registrar instead of routing it; the UAS,
 * started after it, registers {@code lab-uas@lab.test} over a WebSocket connection to that listener
 * and is reached over it (RFC 7118 §5). The lab's WebSocket clients send no Origin header, which the
 * server accepts with its default {@code ws.allowedOrigins} (empty: browsers' origins refused).
 * The server also gets an {@code http} listener on loopback, whose {@code /metrics} the lab reads
 * after each run for the TLS engines of its handshakes.
 * Threading: one owner thread.
 */
final class Bench implements Closeable {

    /** The domain the proxy routes to the UAS (calls) or serves itself (registrar workloads). */
    static final String DOMAIN = "lab.test";
    /** The address of record a UAS reached over WebSocket registers. */
    static final String UAS_AOR = "lab-uas@" + DOMAIN;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /**
     * The idle connections ({@code idleConnections}) the server's default connection caps (10,000 in
     * all and per source) and session cache (10,000) leave room for beside the lab's other connections;
     * more raise all three by the difference.
     */
    static final int IDLE_ROOM = 8_000;

    final Scenario scenario;
    final String cipher;
    final Handshake handshake;
    final Transport leftTransport;
    final Transport rightTransport;
    final Uas uas;
    final InetSocketAddress uasAddress;
    final ServerProcess server;
    final KamailioServer kamailio;
    final InetSocketAddress target;
    final long serverPid;
    /** The users the generators authenticate as (empty without authentication). */
    final List<Credential> users;

    private Bench(Scenario scenario, String cipher, Handshake handshake, Uas uas, InetSocketAddress uasAddress, ServerProcess server,
                  KamailioServer kamailio, InetSocketAddress target, long serverPid, List<Credential> users) {
        this.scenario = scenario;
        this.cipher = cipher;
        this.handshake = handshake;
        this.leftTransport = scenario.left().transportFor(cipher);
        this.rightTransport = scenario.right().transportFor(cipher);
        this.uas = uas;
        this.uasAddress = uasAddress;
        this.server = server;
        this.kamailio = kamailio;
        this.target = target;
        this.serverPid = serverPid;
        this.users = List.copyOf(users);
    }

    /**
     * The suite a compared cipher measures, named explicitly on both sides of every TLS leg: a
     * provider's RSA key-exchange suite ({@code aes}: TLS_RSA_WITH_AES_128_CBC_SHA, the suite of
     * RFC 3261 §26.3.1), whatever order the provider prefers by default; a suite name as it is.
     */
    static String suite(String cipher) {
        return Handshake.DEFAULT.suite(cipher);
    }

    /** The suite this bench's cipher runs under its handshake ({@link Handshake#suite}). */
    String suite() {
        return handshake.suite(cipher);
    }

    /** Whether a cipher name is one of the insecure suites the lab alone may run. */
    static boolean insecure(String cipher) {
        String c = Leg.cipherOf(cipher);
        return c.equals("3des") || c.equals("rc4");
    }

    /**
     * Starts the UAS and the server for a cipher.
     *
     * @param dir   work directory of this bench (server logs, database)
     * @param certs the lab's certificates ({@code certs} command output)
     * @param external where an external server listens, or null to start ours
     * @param pinning  the CPUs the server is started on
     * @param sut      which server to start (when not external)
     * @param handshake the TLS version and key exchange of every TLS leg
     * @param oneWayDelay the UAS's one-way delay in the lab delay stage (zero for none)
     * @param users    the users provisioned for it (empty without authentication)
     */
    static Bench start(Scenario s, String cipher, Path dir, Path certs, ExternalTarget external, CpuPinning pinning,
                       ServerUnderTest sut, Handshake handshake, Duration oneWayDelay, List<Credential> users)
            throws IOException, InterruptedException {
        Transport right = s.right().transportFor(cipher);
        Uas uas = null;
        InetSocketAddress uasAt = null;
        try {
            if (s.reachesUas() && right.webSocket()) {
                // it registers once the server is up
                uas = new Uas(oneWayDelay);
            } else if (s.reachesUas()) {
                uas = new Uas(oneWayDelay);
                int port = external != null ? external.uasPort() : 0;
                uasAt = uas.listen(right, new InetSocketAddress(LOOPBACK, port),
                        right == Transport.TLS ? uasTls(s.right(), cipher, handshake, certs) : null);
            }
            if (external != null) {
                return new Bench(s, cipher, handshake, uas, uasAt, null, null, external.address(), external.pid(), users);
            }
            if (sut == ServerUnderTest.KAMAILIO) {
                KamailioServer k = KamailioServer.start(s, cipher, handshake, dir, certs, uasAt, pinning);
                return new Bench(s, cipher, handshake, uas, uasAt, null, k, k.address(), k.pid(), users);
            }
            ServerProcess server = ServerProcess.start(dir, pinning.serverLauncher(), s.serverJvm(),
                    serverArgs(s, cipher, handshake, dir, certs, uasAt), Duration.ofSeconds(60));
            try {
                if (uas != null && right.webSocket()) {
                    uasAt = uas.register(right, server.address(right), right.secure()
                            ? uasWebSocketTls(s, cipher, handshake, certs) : null, UAS_AOR);
                }
                // compiling is a warm-up transient, not a cost of the calls: off the server's CPUs
                pinning.moveToLab(ProcessCpu.jitThreads(server.pid()));
            } catch (IOException | InterruptedException | RuntimeException e) {
                server.close();
                throw e;
            }
            Transport left = s.left().transportFor(cipher);
            return new Bench(s, cipher, handshake, uas, uasAt, server, null, server.address(left), server.pid(), users);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (uas != null) {
                uas.close();
            }
            throw e;
        }
    }

    /**
     * The UAS's TLS options as the client of a WSS connection to the server: trusting the lab's CA,
     * with the lab's client certificate when the server's listeners require one (a mutual scenario).
     */
    private static TlsOptions uasWebSocketTls(Scenario s, String cipher, Handshake handshake, Path certs) {
        boolean mutual = s.left().clientCertificates() || s.right().clientCertificates();
        return labTls(cipher, handshake, certs.resolve("ca.pem"), mutual ? certs.resolve("client.pem") : null,
                mutual ? certs.resolve("client-key.pem") : null, true, BcTlsSetup.ClientCertificates.NONE);
    }

    private static TlsOptions uasTls(Leg right, String cipher, Handshake handshake, Path certs) {
        return labTls(cipher, handshake, certs.resolve("ca.pem"), certs.resolve("server.pem"),
                certs.resolve("server-key.pem"), true,
                right.clientCertificates() ? BcTlsSetup.ClientCertificates.NEED : BcTlsSetup.ClientCertificates.NONE);
    }

    /**
     * The TLS options of a lab side (the generator's or the UAS's) for a cipher under a handshake:
     * its one suite and version, and with a key-exchange group that group alone, on the bc engine
     * (whose client offers exactly the groups it is given; SunJSSE on Java 17 takes groups only
     * JVM-wide, through {@code jdk.tls.namedGroups}). A generator resuming by ticket is moved to
     * the openssl engine afterwards ({@link Handshake#generatorEngine}), which offers exactly the
     * group too.
     */
    static TlsOptions labTls(String cipher, Handshake handshake, Path trust, Path cert, Path key, boolean reuse,
                             BcTlsSetup.ClientCertificates clientCerts) {
        boolean grouped = handshake.group() != null;
        return new TlsOptions(List.of(handshake.suite(cipher)), grouped ? "bc" : null, List.of(),
                List.of(handshake.version()), trust, cert, key, reuse, clientCerts, insecure(cipher),
                grouped ? List.of(handshake.group().configName()) : List.of());
    }

    /** The server's command line for this scenario and cipher. */
    static List<String> serverArgs(Scenario s, String cipher, Handshake handshake, Path dir, Path certs,
                                   InetSocketAddress uasAt) {
        Transport left = s.left().transportFor(cipher);
        Transport right = s.right().transportFor(cipher);
        Map<String, String> o = new TreeMap<>();
        List<String> args = new ArrayList<>();
        args.add("--listen");
        args.add("udp:127.0.0.1:0");
        // the proxy sends on a transport only where it listens on it (JAIN-SIP's listening points)
        for (Transport t : java.util.EnumSet.of(left, right)) {
            if (t != Transport.UDP) {
                args.add("--listen");
                args.add(t.configName() + ":127.0.0.1:0");
            }
        }
        o.put("data-dir", dir.resolve("data").toString());
        o.put("stats-interval", "0");
        // its /metrics tell the TLS engines of its handshakes (ServerProcess#tlsEngines)
        o.put("http", "127.0.0.1:0");
        o.put("shutdown-grace", "2s");
        // every generator connects from 127.0.0.1: the per-source cap, a flood defence, would cap the
        // lab's per-call connections, so it is the global cap here
        o.put("tcp-max-connections-per-source", "10000");
        if (s.idleConnections() > IDLE_ROOM) {
            // the idle connections of compare --idle-connections come from 127.0.0.1 too, beside the
            // lab's own, and each keeps a TLS session as the first 10,000 do
            String room = Integer.toString(s.idleConnections() + 10_000 - IDLE_ROOM);
            o.put("tcp-max-connections", room);
            o.put("tcp-max-connections-per-source", room);
            o.put("tls-session-cache-size", room);
        }
        // the lab finds a peak by failed calls and response times; a wall-clock admission budget would
        // turn a pause of the shared machine into refused calls, so the queue-length budget alone sheds,
        // at the 500 messages the lab's results were measured with (the server's default is 2,000 beside
        // the standing-queue rule, which is wall-clock)
        o.put("overload-max-queue-delay", "0");
        o.put("overload-queue-target", "0");
        o.put("overload-queue-threshold", "500");
        o.put("realm", DOMAIN);
        if (s.auth()) {
            o.put("auth", null);
        }
        if (s.reachesUas() && right.webSocket()) {
            // the UAS registers over its WebSocket connection, and the proxy reaches it over that flow
            o.put("domain", DOMAIN);
        } else if (s.reachesUas()) {
            o.put("route", DOMAIN + "=127.0.0.1:" + uasAt.getPort() + ";transport=" + right.configName()
                    + ";connection=" + s.right().connection().configName());
        } else {
            o.put("domain", DOMAIN);
        }
        if (left.secure() || right.secure()) {
            o.put("tls-cert", certs.resolve("server.pem").toString());
            o.put("tls-key", certs.resolve("server-key.pem").toString());
            o.put("tls-trust", certs.resolve("ca.pem").toString());
            String suite = handshake.suite(cipher);
            String suites = serverSuites(s, handshake, suite);
            o.put("tls-ciphers", suites);
            o.put("tls-versions", handshake.version());
            if (handshake.group() != null) {
                o.put("tls-groups", handshake.group().configName());
            }
            if (insecure(cipher)) {
                o.put("tls-allow-insecure", null);
            }
            if (handshake.generatorResumes(false)) {
                // the generator resumes as --resumption says: the listener grants sessions for it
                o.put("tls-session-reuse", "on");
            }
            if (left.secure() && s.left().clientCertificates()) {
                o.put("tls-client-auth", "need");
            }
            if (right == Transport.TLS && s.reachesUas()) {
                String peer = "127.0.0.1:" + uasAt.getPort() + ";ciphers=" + suites.replace(',', '+') + ";versions=" + handshake.version()
                        + ";reuse=" + (s.right().sessionReuse() ? "on" : "off");
                if (s.right().clientCertificates()) {
                    peer += ";cert=" + certs.resolve("client.pem") + ";key=" + certs.resolve("client-key.pem");
                }
                o.put("tls-peer", peer);
            }
        }
        // the scenario's own settings come last and win
        s.server().forEach((k, v) -> o.put(option(k), v));
        o.forEach((k, v) -> {
            args.add("--" + k);
            if (v != null) {
                args.add(v);
            }
        });
        return args;
    }

    /**
     * The server's {@code tls.ciphers} for the suite a cipher runs: that suite, and on the openssl
     * engine under TLS 1.3 BoringSSL's other TLS 1.3 suites after it, which BoringSSL offers anyway
     * and the server refuses to leave out ({@link TlsChoices#BORINGSSL_TLS13}); a lab client that
     * offers the one suite still gets it.
     */
    static String serverSuites(Scenario s, Handshake handshake, String suite) {
        if (!"openssl".equals(s.server().get("tls.engine")) || !"1.3".equals(handshake.version())) {
            return suite;
        }
        LinkedHashSet<String> suites = new LinkedHashSet<>(List.of(suite));
        suites.addAll(TlsChoices.BORINGSSL_TLS13);
        return String.join(",", suites);
    }

    /** A setting key as its command-line option: {@code tcp.idleTimeout} is {@code tcp-idle-timeout}. */
    static String option(String key) {
        return key.replaceAll("([a-z0-9])([A-Z])", "$1-$2").replace('.', '-').toLowerCase(Locale.ROOT);
    }

    /** The server's CPU time so far in microseconds (JIT compiler threads left out), -1 unknown. */
    long serverCpuMicros() {
        if (server != null) {
            return server.cpuMicros();
        }
        if (kamailio != null) {
            return kamailio.cpuMicros();
        }
        return serverPid > 0 ? org.sipcrypt.lab.metrics.ProcessCpu.microsWithoutJit(serverPid) : -1;
    }

    /**
     * The TLS engines of the server's handshakes so far ({@link ServerSample#tlsEngines()}): read
     * from sipcrypt's {@code /metrics}, null when that failed; {@link ServerTlsEngines#KAMAILIO}
     * for Kamailio; empty without a TLS leg to the server or from it, and for a target the lab did
     * not start.
     */
    List<String> tlsEngines() {
        boolean tls = leftTransport.secure() || scenario.reachesUas() && rightTransport.secure();
        if (!tls) {
            return List.of();
        }
        if (server != null) {
            return server.tlsEngines();
        }
        return kamailio != null ? List.of(ServerTlsEngines.KAMAILIO) : List.of();
    }

    /** The server's heap after its last collection, -1 unknown. */
    long heapAfterGcBytes() {
        return server != null ? server.heapAfterGcBytes() : -1;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        if (kamailio != null) {
            kamailio.close();
        }
        if (uas != null) {
            uas.close();
        }
    }
}
