package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.GoTlsClient;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * Every handshake {@code compare} offers on aes ({@link Handshake}: TLS version × key exchange ×
 * certificate, and TLS 1.2 session-ID resumption), made once by a TLS stack nobody here wrote, against
 * the server's bc and jsse listeners with the lab's certificates of that type: {@code openssl
 * s_client} (OpenSSL 3.0: TLS 1.2 and 1.3, X25519, P-256, RSA and ECDSA certificates, resumption by
 * {@code -sess_out}/{@code -sess_in}) and Go's {@code crypto/tls} for X25519MLKEM768, which OpenSSL
 * 3.0 lacks (bc only, the engine with the hybrids). Each peer must see the version, suite, group and
 * server key of the combination, get its OPTIONS answered, and the server must count the handshake of
 * that suite (and group, on bc) and kind. A check of the lab's combinations, not a measurement.
 * The jsse listeners take no {@code tls.groups}: on Java 17 that is JVM-wide, and each peer offers the
 * combination's one group anyway. One server per certificate and engine for the class.
 * Threading: JUnit's test thread; the set-up makes certificates and closes servers on the common pool.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class IndependentPeersIT {

    /** OpenSSL's names of the aes suites the lab runs under TLS 1.2. */
    private static final Map<String, String> OPENSSL_NAMES = Map.of(
            "TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA",
            "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA",
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA");
    /** What {@code s_client} prints as the server's temporary key per group. */
    private static final Map<String, String> TEMP_KEYS = Map.of("x25519", "Server Temp Key: X25519",
            "secp256r1", "Server Temp Key: ECDH, prime256v1");

    @TempDir
    static Path dir;

    private final Map<String, TestServer> servers = new HashMap<>();
    private final Map<Handshake.Certificate, Path> certs = new HashMap<>();
    private final AtomicInteger calls = new AtomicInteger();
    private GoTlsClient go;

    @BeforeAll
    void start() throws Exception {
        // RSA-3072 key generation is most of the set-up: the three kinds of certificates are made at once
        Map<Handshake.Certificate, CompletableFuture<Integer>> made = new HashMap<>();
        for (Handshake.Certificate c : Handshake.Certificate.values()) {
            Path d = dir.resolve("certs-" + c.configName());
            List<String> args = new ArrayList<>(List.of("--out", d.toString()));
            args.addAll(c.certsArguments());
            made.put(c, CompletableFuture.supplyAsync(() -> new CommandLine(new CertsCommand())
                    .execute(args.toArray(String[]::new))));
            certs.put(c, d);
        }
        for (Handshake.Certificate c : Handshake.Certificate.values()) {
            assertEquals(0, made.get(c).get(60, TimeUnit.SECONDS), c.configName());
            Path d = certs.get(c);
            for (String engine : List.of("bc", "jsse")) {
                List<String> s = new ArrayList<>(List.of("listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                        "tls.cert", d.resolve("server.pem").toString(), "tls.key", d.resolve("server-key.pem").toString(),
                        "tls.engine", engine, "tls.ciphers", "aes", "tls.versions", "1.2", "tls.versions", "1.3"));
                if (engine.equals("bc")) {
                    s.addAll(List.of("tls.groups", "x25519mlkem768", "tls.groups", "x25519", "tls.groups", "secp256r1"));
                }
                servers.put(c.configName() + "/" + engine, TestServer.start(dir.resolve("data-" + c.configName()
                        + "-" + engine), s.toArray(String[]::new)));
            }
        }
        go = GoTlsClient.build(Files.createDirectories(dir.resolve("go")));
    }

    @AfterAll
    void stop() {
        // each waits out its shutdown grace: all at once
        servers.values().parallelStream().forEach(TestServer::close);
    }

    /** Every valid aes handshake of {@code compare} on each engine that runs it; session-ID resumption on TLS 1.2. */
    Stream<Arguments> combinations() {
        List<Arguments> out = new ArrayList<>();
        for (String version : List.of("1.2", "1.3")) {
            for (Handshake.KeyExchange kx : Handshake.KeyExchange.values()) {
                for (Handshake.Certificate cert : Handshake.Certificate.values()) {
                    Handshake h;
                    try {
                        h = new Handshake(version, kx, cert, version.equals("1.2") ? Handshake.Resumption.SESSION_ID
                                : null);
                    } catch (IllegalArgumentException refusedByTheLab) {
                        continue;
                    }
                    for (String engine : List.of("bc", "jsse")) {
                        if (engine.equals("jsse") && kx.group() != null && kx.group().hybrid()) {
                            continue;
                        }
                        out.add(Arguments.of(h, engine));
                    }
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("combinations")
    void anIndependentPeerNegotiatesExactlyTheCombination(Handshake h, String engine) throws Exception {
        TestServer server = servers.get(h.certificate().configName() + "/" + engine);
        int port = server.address(Transport.TLS).getPort();
        Path d = certs.get(h.certificate());
        String suite = h.suite("aes");
        String group = h.group() == null ? null : h.group().configName();
        DoubleSupplier full = () -> server.server().transportCounters().value("tls.handshakes", "kind", "full", "suite",
                suite);
        double fullBefore = full.getAsDouble();
        double groupBefore = group == null ? 0 : groupCount(server, suite, group);

        if (group != null && h.group().hybrid()) {
            String out = go.run(port, d.resolve("ca.pem"), options(port), h.group().code());
            assertTrue(out.contains("version=TLS 1.3 suite=" + suite + " group=X25519MLKEM768"), out);
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
        } else {
            List<String> args = new ArrayList<>(List.of("-connect", "127.0.0.1:" + port, "-CAfile", "ca.pem",
                    "-verify_return_error"));
            if (h.version().equals("1.2")) {
                // session IDs only: the lab's session-id resumption, not RFC 5077 tickets
                args.addAll(List.of("-tls1_2", "-cipher", OPENSSL_NAMES.get(suite), "-no_ticket", "-sess_out", "sess"));
            } else {
                args.addAll(List.of("-tls1_3", "-ciphersuites", suite));
            }
            if (group != null) {
                args.addAll(List.of("-groups", group.equals("secp256r1") ? "P-256" : "X25519"));
            }
            String out = OpenSslClient.run(d, options(port), "SIP/2.0 200", args.toArray(String[]::new));
            // OpenSSL 3.0 names TLS 1.2 "SSLv3" on its New/Reused line, and prints the session block
            // (with the right name) in TLS 1.3 only once a ticket came, which bc's server sends none of
            assertTrue(out.contains("New, ") && out.contains("Cipher is "
                    + (h.version().equals("1.2") ? OPENSSL_NAMES.get(suite) : suite)), out);
            assertTrue(out.contains(h.version().equals("1.2") ? "Protocol  : TLSv1.2" : "New, TLSv1.3,"), out);
            assertTrue(out.contains("Server public key is " + (h.certificate() == Handshake.Certificate.ECDSA_P256 ? 256
                    : h.certificate().rsaBits()) + " bit"), out);
            if (group != null) {
                assertTrue(out.contains(TEMP_KEYS.get(group)), out);
            }
            if (h.certificate() == Handshake.Certificate.ECDSA_P256) {
                assertTrue(out.contains("Peer signature type: ECDSA"), out);
            }
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
        }
        Await.until(() -> full.getAsDouble() > fullBefore, Duration.ofSeconds(10), server.server()::statsLine);
        if (group != null && engine.equals("bc")) {
            Await.until(() -> groupCount(server, suite, group) > groupBefore, Duration.ofSeconds(10),
                    server.server()::statsLine);
        }

        if (h.resumption() == Handshake.Resumption.SESSION_ID) {
            DoubleSupplier resumed = () -> server.server().transportCounters().value("tls.handshakes", "kind", "resumed",
                    "suite", suite);
            double resumedBefore = resumed.getAsDouble();
            List<String> again = new ArrayList<>(List.of("-connect", "127.0.0.1:" + port, "-CAfile", "ca.pem",
                    "-tls1_2", "-cipher", OPENSSL_NAMES.get(suite), "-no_ticket", "-sess_in", "sess"));
            if (group != null) {
                again.addAll(List.of("-groups", group.equals("secp256r1") ? "P-256" : "X25519"));
            }
            String out = OpenSslClient.run(d, options(port), "SIP/2.0 200", again.toArray(String[]::new));
            assertTrue(out.contains("Reused, ") && out.contains("Cipher is " + OPENSSL_NAMES.get(suite))
                    && out.contains("Protocol  : TLSv1.2"), out);
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
            Await.until(() -> resumed.getAsDouble() > resumedBefore, Duration.ofSeconds(10), server.server()::statsLine);
        }
    }

    /**
     * Why {@code compare} refuses {@code --cert ecdsa-p256} under TLS 1.2 with another group than
     * P-256: SunJSSE's listener presents a P-256 certificate only to a client that lists P-256 among
     * its supported groups (RFC 8422 §5.1), and the lab's generator lists the {@code --kx} group alone.
     */
    @Test
    void jsseRefusesAnEcdsaP256CertificateToATls12ClientListingX25519Alone() throws Exception {
        TestServer server = servers.get("ecdsa-p256/jsse");
        int port = server.address(Transport.TLS).getPort();
        String out = OpenSslClient.run(certs.get(Handshake.Certificate.ECDSA_P256), options(port), null, "-connect",
                "127.0.0.1:" + port, "-CAfile", "ca.pem", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA", "-groups",
                "X25519");
        assertFalse(out.contains("Cipher is ECDHE-ECDSA-AES128-SHA"), out);
        assertTrue(out.contains("handshake failure"), out);
        assertTrue(new Handshake("1.2", Handshake.KeyExchange.ECDHE_P256, Handshake.Certificate.ECDSA_P256, null)
                .suite("aes").equals("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"), "and with P-256 the lab runs it");
    }

    private static double groupCount(TestServer server, String suite, String group) {
        return server.server().transportCounters().value("tls.handshakes", "suite", suite, "group", group);
    }

    /** An OPTIONS request to the listener, with a Call-ID of its own. */
    private String options(int port) {
        String callId = "peers-" + calls.incrementAndGet();
        return "OPTIONS sip:127.0.0.1:" + port + ";transport=tls SIP/2.0\r\n"
                + "Via: SIP/2.0/TLS 127.0.0.1:5999;branch=z9hG4bK-" + callId + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:tester@127.0.0.1>;tag=t1\r\n"
                + "To: <sip:127.0.0.1:" + port + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
    }
}
