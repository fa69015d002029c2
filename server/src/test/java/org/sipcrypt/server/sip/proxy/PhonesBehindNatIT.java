package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.Baresip;
import org.sipcrypt.server.testing.NatNetwork;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * A real softphone behind a real NAT: baresip runs inside the phone's network namespace of a
 * {@link NatNetwork} (198.51.100.2, masqueraded to 203.0.113.2), registers with digest credentials
 * to the server on 203.0.113.1 over TLS, TCP or UDP, and writes its own address, which the server
 * cannot reach (the root namespace has no route to it), into its Contact. A second baresip outside
 * the NAT (on 203.0.113.1) calls it through the server: the INVITE reaches it, with its Contact as
 * Request-URI, at the socket its REGISTER left from (read from the phone's SIP trace): over TLS and
 * TCP on the connection it registered over (the server opens no other), over UDP at the address
 * and port its NAT gave it; it answers, both see the call established, and
 * a BYE from either side ends it on both (RFC 5626 §5.3, the flow token of the proxy's
 * Record-Route). One phone uses RFC 5626 outbound ({@code sipnat=outbound}: {@code +sip.instance},
 * {@code reg-id}, {@code Supported: outbound}), which the registrar confirms ({@code Require:
 * outbound}). Then the phone is killed by its PID, the kernel closes its connection, and once
 * the server has seen the close a new call to it is answered at once: {@code 480}, or
 * {@code 430 Flow Failed} for the outbound phone. One network and one server serve every case;
 * each case calls a callee of its own, so no binding of one case is seen by another.
 * Threading: JUnit's test thread drives the phones; each phone's output is read on a thread of its own.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PhonesBehindNatIT {

    private static final String PASSWORD = "secret-behind-nat";
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * How long after the server saw the phone's connection close the caller may wait for its
     * refusal: the server answers at once (under a second); a server that waited on the dead flow
     * would take Timer B (32 s). Generous, so a busy machine does not fail it.
     */
    private static final Duration REFUSAL_BOUND = Duration.ofSeconds(15);
    private static final List<String> CALLEES = List.of("bob-tls", "bob-tls-ob", "bob-tcp", "bob-udp");

    @TempDir
    static Path shared;
    private static NatNetwork nat;
    private static TestServer server;
    private static Path ca;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        Path certs = shared.resolve("certs");
        // ECDSA keys: made in a moment where three RSA keys take seconds on a busy machine
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString(),
                "--san", NatNetwork.SERVER + ",127.0.0.1,localhost", "--key-type", "ecdsa"));
        ca = certs.resolve("ca.pem");
        // what fails from here on is cleaned up by stop(), which JUnit runs after a failed start too
        nat = NatNetwork.create();
        server = TestServer.start(shared.resolve("data"), "listen", "udp:" + NatNetwork.SERVER + ":0",
                "listen", "tcp:" + NatNetwork.SERVER + ":0", "listen", "tls:" + NatNetwork.SERVER + ":0",
                "tls.cert", certs.resolve("server.pem").toString(),
                "tls.key", certs.resolve("server-key.pem").toString(), "tls.engine", "jsse",
                "auth", "true", "auth.algorithms", "md5");
        String realm = server.config().effectiveRealm();
        List<Subscriber> subscribers = new ArrayList<>();
        subscribers.add(subscriber("alice", realm));
        CALLEES.forEach(c -> subscribers.add(subscriber(c, realm)));
        server.server().subscribers().putAll(subscribers);
    }

    @AfterAll
    static void stop() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            if (nat != null) {
                nat.close();
            }
        }
    }

    @ParameterizedTest(name = "{1} over {0}, outbound {2}, the {3} hangs up")
    @CsvSource({"TLS, bob-tls, false, caller", "TLS, bob-tls-ob, true, phone", "TCP, bob-tcp, false, phone",
            "UDP, bob-udp, false, caller"})
    void phoneBehindNatIsCalledOverItsFlowAndRefusedOnceItHasGone(Transport transport, String callee,
                                                                 boolean outbound, String hangsUp) throws Exception {
        double natBefore = count("sip.registrations.nat", "transport", transport.configName());
        Baresip.Options behindNat = Baresip.Options.DEFAULT
                .at(new Baresip.Site(NatNetwork.PHONE, nat.inPhone(List.of())))
                .withOutbound(outbound).withSipTrace(true);
        Baresip.Options outside = Baresip.Options.DEFAULT.at(Baresip.Site.at(NatNetwork.SERVER));
        String target = "sip:" + callee + "@" + server.hostPort(transport);
        try (Baresip bob = Baresip.start(dir.resolve(callee), callee, PASSWORD, transport, server.address(transport),
                ca, behindNat);
             Baresip alice = Baresip.start(dir.resolve("alice"), "alice", PASSWORD, transport,
                     server.address(transport), ca, outside)) {
            // its REGISTER leaves from its own address, behind the NAT, and names it in the Contact: an
            // address nothing outside the NAT can reach (the trace's "TLS 198.51.100.2:P -> SERVER")
            String sent = bob.awaitOutput(" -> " + server.hostPort(transport));
            String phoneSocket = sent.substring(sent.indexOf(' ') + 1, sent.indexOf(" -> "));
            assertTrue(phoneSocket.startsWith(NatNetwork.PHONE + ":"), sent);
            String contact = bob.awaitOutput("Contact: <sip:");
            assertTrue(contact.contains("@" + NatNetwork.PHONE + ":"), contact);
            if (outbound) {
                assertTrue(contact.contains("reg-id=") && contact.contains("+sip.instance"), contact);
                // RFC 5626 §6: the registrar confirms the outbound flow, which starts the phone's keep-alives
                bob.awaitOutput("Require: outbound");
            }
            bob.awaitRegistered();
            alice.awaitRegistered();
            assertTrue(count("sip.registrations.nat", "transport", transport.configName()) > natBefore,
                    "the registrar saw the NAT");
            int connections = server.server().transportCounters().openConnections().get();

            alice.dial(target);
            // the INVITE reaches the very socket the REGISTER left from (its connection, or its UDP port
            // through the NAT's mapping), with the phone's Contact as Request-URI
            bob.awaitOutput(server.hostPort(transport) + " -> " + phoneSocket);
            String invite = bob.awaitOutput("INVITE sip:");
            assertTrue(invite.contains("@" + NatNetwork.PHONE + ":"), invite);
            alice.awaitCallEstablished();
            bob.awaitCallEstablished();
            assertEquals(connections, server.server().transportCounters().openConnections().get(),
                    "the server opened no connection toward the phone");
            if (hangsUp.equals("caller")) {
                alice.hangup();
                bob.awaitByeReceived();
            } else {
                bob.hangup();
                alice.awaitByeReceived();
                // the caller's 200 to the BYE comes back to the phone over its flow
                bob.awaitOutput("SIP/2.0 200 OK");
            }
            if (transport.reliable()) {
                refusedOnceItsConnectionHasClosed(bob, alice, target, outbound);
            }
        }
    }

    /** Kills the phone; once the server has seen its connection close, a call to it is refused at once. */
    private static void refusedOnceItsConnectionHasClosed(Baresip phone, Baresip caller, String target,
                                                          boolean outbound) throws InterruptedException {
        var open = server.server().transportCounters().openConnections();
        int before = open.get();
        double failedBefore = count("sip.flows.failed", "reason", "closed");
        phone.kill();
        Await.until(() -> open.get() < before, WAIT, () -> "the phone's connection closed at the server ("
                + open.get() + " open)");
        long closeSeen = System.nanoTime();
        caller.dial(target);
        String refused = caller.awaitCallFailed();
        Duration after = Duration.ofNanos(System.nanoTime() - closeSeen);
        assertTrue(refused.contains(outbound ? "430 Flow Failed" : "480 Temporarily Unavailable"), refused);
        assertTrue(after.compareTo(REFUSAL_BOUND) < 0, "refused " + after.toMillis() + " ms after the close");
        assertTrue(count("sip.flows.failed", "reason", "closed") > failedBefore, "counted as a closed flow");
    }

    private static Subscriber subscriber(String user, String realm) {
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, PASSWORD),
                DigestAlgorithm.SHA_256.ha1(user, realm, PASSWORD), true);
    }

    private static double count(String name, String tag, String value) {
        Counter c = server.server().registry().find(name).tag(tag, value).counter();
        return c == null ? 0 : c.count();
    }
}
