package org.sipcrypt.server.tls.bc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bouncycastle.tls.CipherSuite;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import picocli.CommandLine;

/**
 * sipcrypt's own bc client and server connections against each other in memory (bytes moved by
 * the test, no sockets): every suite of the bc engine on each crypto engine it has, resumption,
 * client certificates and the name check of servers dialled.
 */
class BcTlsConnectionTest {

    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 5061);

    @TempDir
    Path dir;

    private final CipherSuiteRegistry registry = CipherSuiteRegistry.load();

    @BeforeEach
    void certificates() {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
    }

    private BcTlsSetup setup(String ciphers, String crypto, BcTlsSetup.ClientCertificates clientCerts, String cert,
                             String key) throws IOException {
        TlsChoices choices = TlsChoices.resolve(registry, List.of(ciphers), true, TlsEngine.BC, List.of(crypto),
                List.of("1.2", "1.3"));
        return BcTlsSetup.create(cert == null ? null : KeyMaterial.read(dir.resolve(cert), dir.resolve(key), null),
                dir.resolve("ca.pem"), choices, registry, clientCerts, true, 100, Duration.ofMinutes(5), true);
    }

    private BcTlsSetup server(String ciphers, String crypto) throws IOException {
        return setup(ciphers, crypto, BcTlsSetup.ClientCertificates.NONE, "server.pem", "server-key.pem");
    }

    /** Moves bytes both ways until neither side has any to send (a closed side takes no more). */
    private static void pump(BcTlsConnection client, BcTlsConnection server) throws IOException {
        boolean moved = true;
        while (moved) {
            moved = false;
            byte[] c = client.takeOutput();
            if (c != null && !server.isClosed()) {
                server.offer(c, 0, c.length);
                moved = true;
            }
            byte[] s = server.takeOutput();
            if (s != null && !client.isClosed()) {
                client.offer(s, 0, s.length);
                moved = true;
            }
        }
    }

    private static BcTlsConnection[] connect(BcTlsSetup clientSetup, BcTlsSetup serverSetup, InetSocketAddress dialled)
            throws IOException {
        BcTlsConnection client = clientSetup.newConnection(dialled);
        BcTlsConnection server = serverSetup.newConnection(null);
        server.start();
        client.start();
        pump(client, server);
        return new BcTlsConnection[] {client, server};
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"TLS_RSA_WITH_AES_128_CBC_SHA, jca", "TLS_RSA_WITH_AES_128_CBC_SHA, bc",
        "TLS_RSA_WITH_AES_256_GCM_SHA384, bc", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, jca",
        "TLS_AES_128_GCM_SHA256, jca", "TLS_RSA_WITH_3DES_EDE_CBC_SHA, jca", "TLS_RSA_WITH_3DES_EDE_CBC_SHA, bc",
        "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA, bc", "TLS_RSA_WITH_SEED_CBC_SHA, bc"})
    void everySuiteCarriesSipBothWays(String suite, String crypto) throws Exception {
        BcTlsSetup serverSetup = server(suite, crypto);
        BcTlsSetup clientSetup = setup(suite, crypto, BcTlsSetup.ClientCertificates.NONE, null, null);
        BcTlsConnection[] pair = connect(clientSetup, serverSetup, PEER);
        assertTrue(pair[0].handshakeComplete() && pair[1].handshakeComplete());
        assertEquals(CipherSuite.class.getField(suite).getInt(null), pair[1].cipherSuite());
        byte[] request = "OPTIONS sip:127.0.0.1 SIP/2.0\r\n\r\n".repeat(200).getBytes(StandardCharsets.US_ASCII);
        pair[0].write(request, 0, request.length);
        pump(pair[0], pair[1]);
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        for (byte[] in = pair[1].takeInput(); in != null; in = pair[1].takeInput()) {
            got.write(in);
        }
        assertArrayEquals(request, got.toByteArray());
        pair[1].write(new byte[] {'o', 'k'}, 0, 2);
        pump(pair[0], pair[1]);
        assertArrayEquals(new byte[] {'o', 'k'}, pair[0].takeInput());
        pair[0].close();
        pump(pair[0], pair[1]);
        assertTrue(pair[1].isClosed(), "close_notify closes the other side");
    }

    private BcTlsSetup ecSetup(String ciphers, String crypto, List<String> groups, boolean serve) throws IOException {
        Path ec = dir.resolve("ec");
        if (!java.nio.file.Files.exists(ec.resolve("server.pem"))) {
            assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", ec.toString(), "--key-type", "ecdsa"));
        }
        TlsChoices choices = TlsChoices.resolve(registry, List.of(ciphers), true, TlsEngine.BC, List.of(crypto),
                List.of("1.2", "1.3"), groups, java.util.Map.of());
        return BcTlsSetup.create(serve ? KeyMaterial.read(ec.resolve("server.pem"), ec.resolve("server-key.pem"), null)
                        : null, ec.resolve("ca.pem"), choices, registry, BcTlsSetup.ClientCertificates.NONE, true, 100,
                Duration.ofMinutes(5), true);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, jca", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, bc",
        "TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256, bc", "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA, jca",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, bc",
        "TLS_AES_128_GCM_SHA256, jca", "TLS_CHACHA20_POLY1305_SHA256, bc"})
    void anEcdsaKeyServesEcdsaSuitesAndTls13(String suite, String crypto) throws Exception {
        BcTlsConnection[] pair = connect(ecSetup(suite, crypto, List.of(), false), ecSetup(suite, crypto, List.of(), true),
                PEER);
        assertTrue(pair[0].handshakeComplete() && pair[1].handshakeComplete());
        assertEquals(CipherSuite.class.getField(suite).getInt(null), pair[1].cipherSuite());
        assertEquals("EC", pair[0].peerCertificates()[0].getPublicKey().getAlgorithm());
    }

    @Test
    void anEcdsaKeyIsOfferedOnlyTheSuitesItCanSign() throws Exception {
        BcTlsSetup rsaOnly = ecSetup("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "jca", List.of(), false);
        IOException e = assertThrows(IOException.class,
                () -> ecSetup("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "jca", List.of(), true));
        assertTrue(e.getMessage().startsWith("tls.ciphers: none of the suites runs with the EC"), e.getMessage());
        BcTlsSetup ecServer = ecSetup("aes", "jca", List.of(), true);
        BcTlsConnection client = rsaOnly.newConnection(PEER);
        BcTlsConnection server = ecServer.newConnection(null);
        server.start();
        client.start();
        assertThrows(IOException.class, () -> pump(client, server), "an ECDHE_RSA-only client finds no suite");
        assertFalse(server.handshakeComplete());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"x25519mlkem768, 1.3", "secp256r1mlkem768, 1.3", "secp384r1mlkem1024, 1.3", "x25519, 1.3",
        "secp384r1, 1.2", "ffdhe2048, 1.3"})
    void theConfiguredGroupIsNegotiatedAndReported(String group, String version) throws Exception {
        String ciphers = version.equals("1.3") ? "TLS_AES_128_GCM_SHA256" : "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
        TlsChoices choices = TlsChoices.resolve(registry, List.of(ciphers), true, TlsEngine.BC, List.of("jca"),
                List.of(version), List.of(group), java.util.Map.of());
        BcTlsSetup serverSetup = BcTlsSetup.create(KeyMaterial.read(dir.resolve("server.pem"),
                dir.resolve("server-key.pem"), null), dir.resolve("ca.pem"), choices, registry,
                BcTlsSetup.ClientCertificates.NONE, true, 100, Duration.ofMinutes(5), true);
        BcTlsSetup clientSetup = BcTlsSetup.create(null, dir.resolve("ca.pem"), choices, registry,
                BcTlsSetup.ClientCertificates.NONE, true, 100, Duration.ofMinutes(5), true);
        BcTlsConnection[] pair = connect(clientSetup, serverSetup, PEER);
        assertTrue(pair[1].handshakeComplete());
        assertEquals(group, pair[1].keyExchangeGroup());
        assertEquals("unknown", pair[0].keyExchangeGroup(), "the dialling side does not tell");
    }

    @Test
    void theServersGroupOrderWinsAndRsaKeyExchangeUsesNone() throws Exception {
        TlsChoices serverChoices = TlsChoices.resolve(registry, List.of("aes"), false, TlsEngine.BC, List.of("jca"),
                List.of("1.3"), List.of("secp256r1", "x25519"), java.util.Map.of());
        TlsChoices clientChoices = TlsChoices.resolve(registry, List.of("aes"), false, TlsEngine.BC, List.of("jca"),
                List.of("1.3"), List.of("x25519", "secp256r1"), java.util.Map.of());
        BcTlsSetup serverSetup = BcTlsSetup.create(KeyMaterial.read(dir.resolve("server.pem"),
                dir.resolve("server-key.pem"), null), dir.resolve("ca.pem"), serverChoices, registry,
                BcTlsSetup.ClientCertificates.NONE, true, 100, Duration.ofMinutes(5), true);
        BcTlsSetup clientSetup = BcTlsSetup.create(null, dir.resolve("ca.pem"), clientChoices, registry,
                BcTlsSetup.ClientCertificates.NONE, true, 100, Duration.ofMinutes(5), true);
        assertEquals("secp256r1", connect(clientSetup, serverSetup, PEER)[1].keyExchangeGroup(),
                "the client's x25519 share is turned down by a HelloRetryRequest for secp256r1");
        String rsa = "TLS_RSA_WITH_AES_128_CBC_SHA";
        assertEquals("none", connect(setup(rsa, "jca", BcTlsSetup.ClientCertificates.NONE, null, null),
                server(rsa, "jca"), PEER)[1].keyExchangeGroup());
    }

    @Test
    void theSecondConnectionToAPeerResumesTheFirstSession() throws Exception {
        String suite = "TLS_RSA_WITH_AES_128_CBC_SHA";
        BcTlsSetup serverSetup = server(suite, "jca");
        BcTlsSetup clientSetup = setup(suite, "jca", BcTlsSetup.ClientCertificates.NONE, null, null);
        BcTlsConnection[] first = connect(clientSetup, serverSetup, PEER);
        assertFalse(first[0].resumed());
        BcTlsConnection[] second = connect(clientSetup, serverSetup, PEER);
        assertTrue(second[0].resumed() && second[1].resumed());
        assertEquals(1, serverSetup.grantedSessions());
        BcTlsConnection[] elsewhere = connect(clientSetup, serverSetup, new InetSocketAddress("127.0.0.1", 5062));
        assertFalse(elsewhere[0].resumed(), "sessions are kept per peer");
    }

    @Test
    void clientCertificatesAreRequiredAndChecked() throws Exception {
        String suite = "TLS_RSA_WITH_AES_128_CBC_SHA";
        BcTlsSetup serverSetup = setup(suite, "jca", BcTlsSetup.ClientCertificates.NEED, "server.pem", "server-key.pem");
        BcTlsSetup withCert = setup(suite, "jca", BcTlsSetup.ClientCertificates.NONE, "client.pem", "client-key.pem");
        BcTlsConnection[] ok = connect(withCert, serverSetup, PEER);
        assertTrue(ok[1].handshakeComplete());
        assertEquals("CN=sipcrypt-client", ok[1].peerCertificates()[0].getSubjectX500Principal().getName());
        BcTlsSetup without = setup(suite, "jca", BcTlsSetup.ClientCertificates.NONE, null, null);
        BcTlsConnection client = without.newConnection(PEER);
        BcTlsConnection server = serverSetup.newConnection(null);
        server.start();
        client.start();
        assertThrows(IOException.class, () -> pump(client, server));
        assertEquals("handshake", server.failureReason());
        assertFalse(server.handshakeComplete());
    }

    @Test
    void aServerWhoseCertificateDoesNotNameTheAddressDialledIsRefused() throws Exception {
        String suite = "TLS_RSA_WITH_AES_128_CBC_SHA";
        BcTlsSetup serverSetup = server(suite, "jca");
        BcTlsSetup clientSetup = setup(suite, "jca", BcTlsSetup.ClientCertificates.NONE, null, null);
        BcTlsConnection client = clientSetup.newConnection(new InetSocketAddress("127.0.0.2", 5061));
        BcTlsConnection server = serverSetup.newConnection(null);
        server.start();
        client.start();
        assertThrows(IOException.class, () -> pump(client, server));
        assertEquals("bad_certificate", client.failureReason());
        assertTrue(client.lastAlert().contains("does not name 127.0.0.2"), client.lastAlert());
    }
}
