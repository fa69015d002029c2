package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.Counter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.Baresip;
import org.sipcrypt.server.testing.Linphone;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * Calls between real softphones nobody here wrote, through the server with digest authentication
 * on (RFC 3261 §22): two baresip instances register (401, then credentials), call each other
 * through the Record-Routing proxy (407, then credentials), the callee answers by itself, both
 * see the call established, and a BYE from either side ends it on both. linphonec answers a call
 * from baresip the same way. Over TLS (calls on each engine, {@code jsse}, {@code bc} and {@code openssl}) the phones
 * check the server's certificate against the test CA; registering is tested on its own, and the
 * calls need the callee reached on the connection it registered over, since neither phone
 * accepts TLS connections to its Contact. The server offers MD5 only: baresip 1.0.0 fails a REGISTER whose
 * 401 carries any challenge it cannot compute, SHA-256 included (see {@code docs/softphones.md}).
 * Threading: JUnit's test thread drives the phones; each phone's output is read on a thread of its own.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SoftphoneCallsIT {

    private static final String ALICE_PASSWORD = "alice-secret";
    private static final String BOB_PASSWORD = "bob-secret";

    @TempDir
    static Path pki;
    private static Path certs;

    @TempDir
    Path dir;

    @BeforeAll
    static void makeCertificates() {
        certs = pki.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
    }

    @ParameterizedTest(name = "baresip over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void baresipPhonesCallEachOtherThroughTheServer(Transport transport) throws Exception {
        try (TestServer server = start("jsse");
             Baresip alice = baresip(server, "alice", ALICE_PASSWORD, transport);
             Baresip bob = baresip(server, "bob", BOB_PASSWORD, transport)) {
            alice.awaitRegistered();
            bob.awaitRegistered();

            alice.dial(uri("bob", server, transport));
            bothEstablished(alice, bob);
            bob.hangup();
            alice.awaitByeReceived();

            bob.dial(uri("alice", server, transport));
            bothEstablished(bob, alice);
            bob.hangup();
            alice.awaitByeReceived();

            // counted just after the send, on the call's lane: the phone may see the BYE first
            Await.until(() -> forwarded(server, "invite") >= 2 && forwarded(server, "bye") >= 2,
                    Duration.ofSeconds(10), () -> server.server().statsLine());
        }
    }

    @Test
    void linphoneAnswersBaresipOverUdp() throws Exception {
        try (TestServer server = start("jsse");
             Baresip alice = baresip(server, "alice", ALICE_PASSWORD, Transport.UDP);
             Linphone bob = linphone(server, "bob", BOB_PASSWORD, Transport.UDP)) {
            alice.awaitRegistered();
            bob.awaitRegistered();

            alice.dial(uri("bob", server, Transport.UDP));
            alice.awaitCallEstablished();
            bob.awaitCallConnected();
            bob.terminate();
            bob.awaitCallEnded();
            alice.awaitByeReceived();
        }
    }

    /**
     * Registration over TLS on each engine, as a step of its own: baresip checks the server's
     * certificate by its IP address, linphonec by the name {@code localhost}; both answer the
     * digest challenge on their TLS connection.
     */
    @ParameterizedTest(name = "baresip and linphonec register over TLS on the {0} engine")
    @ValueSource(strings = {"jsse", "bc"})
    void softphonesRegisterOverTls(String engine) throws Exception {
        try (TestServer server = start(engine);
             Baresip alice = baresip(server, "alice", ALICE_PASSWORD, Transport.TLS);
             Linphone bob = linphone(server, "bob", BOB_PASSWORD, Transport.TLS)) {
            alice.awaitRegistered();
            bob.awaitRegistered();
        }
    }

    /**
     * The calls of the UDP and TCP test over TLS. The callee must be reached on the connection it
     * registered over: baresip has no certificate, so it refuses a TLS connection to the Contact it
     * registered (the caller then gets 500 Next Hop Unavailable).
     */
    @ParameterizedTest(name = "baresip over TLS on the {0} engine")
    @ValueSource(strings = {"jsse", "bc", "openssl"})
    void baresipPhonesCallEachOtherOverTls(String engine) throws Exception {
        try (TestServer server = start(engine);
             Baresip alice = baresip(server, "alice", ALICE_PASSWORD, Transport.TLS);
             Baresip bob = baresip(server, "bob", BOB_PASSWORD, Transport.TLS)) {
            alice.awaitRegistered();
            bob.awaitRegistered();

            alice.dial(uri("bob", server, Transport.TLS));
            bothEstablished(alice, bob);
            bob.hangup();
            alice.awaitByeReceived();

            bob.dial(uri("alice", server, Transport.TLS));
            bothEstablished(bob, alice);
            bob.hangup();
            alice.awaitByeReceived();
        }
    }

    /** linphonec registered over TLS answers a call from baresip, reached on its registration's connection. */
    @Test
    void linphoneAnswersBaresipOverTls() throws Exception {
        try (TestServer server = start("bc");
             Baresip alice = baresip(server, "alice", ALICE_PASSWORD, Transport.TLS);
             Linphone bob = linphone(server, "bob", BOB_PASSWORD, Transport.TLS)) {
            alice.awaitRegistered();
            bob.awaitRegistered();

            alice.dial(uri("bob", server, Transport.TLS));
            alice.awaitCallEstablished();
            bob.awaitCallConnected();
            bob.terminate();
            bob.awaitCallEnded();
            alice.awaitByeReceived();
        }
    }

    private TestServer start(String engine) throws Exception {
        TestServer server = TestServer.start(dir.resolve("data"),
                "listen", "udp:127.0.0.1:0", "listen", "tcp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.engine", engine, "auth", "true", "auth.algorithms", "md5");
        try {
            String realm = server.config().effectiveRealm();
            server.server().subscribers().putAll(List.of(subscriber("alice", realm, ALICE_PASSWORD),
                    subscriber("bob", realm, BOB_PASSWORD)));
            return server;
        } catch (Exception | AssertionError e) {
            server.close();
            throw e;
        }
    }

    private Baresip baresip(TestServer server, String user, String password, Transport transport) throws Exception {
        return Baresip.start(dir.resolve("baresip-" + user), user, password, transport, server.address(transport),
                certs.resolve("ca.pem"));
    }

    private Linphone linphone(TestServer server, String user, String password, Transport transport) throws Exception {
        return Linphone.start(dir.resolve("linphone-" + user), user, password, transport, server.address(transport),
                certs.resolve("ca.pem"));
    }

    /** {@code sip:user@127.0.0.1:PORT} of the server's listener of {@code transport}. */
    private static String uri(String user, TestServer server, Transport transport) {
        return "sip:" + user + "@" + server.hostPort(transport);
    }

    private static void bothEstablished(Baresip caller, Baresip callee) throws InterruptedException {
        caller.awaitCallEstablished();
        callee.awaitCallEstablished();
    }

    private static Subscriber subscriber(String user, String realm, String password) {
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, password),
                DigestAlgorithm.SHA_256.ha1(user, realm, password), true);
    }

    private static double forwarded(TestServer server, String method) {
        Counter c = server.server().registry().find("sip.proxy.forwarded").tag("method", method).counter();
        return c == null ? 0 : c.count();
    }
}
