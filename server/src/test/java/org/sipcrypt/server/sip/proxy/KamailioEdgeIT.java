package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.Baresip;
import org.sipcrypt.server.testing.KamailioEdge;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Kamailio as the edge proxy in front of this server as registrar (RFC 3327): bob's baresip, an
 * RFC 5626 outbound phone (the only way baresip says {@code Supported: path}), registers through
 * Kamailio on 127.0.0.2, which adds its Path (a flow token of its outbound module, the address
 * bob's REGISTER came from, {@code ob}) and relays the REGISTER; the server challenges it and
 * checks bob's own credentials (Kamailio is in {@code auth.pathPeers}, not in
 * {@code auth.trustedPeers}), stores the Path and echoes it with {@code Require: outbound}.
 * Alice's baresip, registered directly, calls bob through the server; the INVITE goes to Kamailio
 * by bob's Path and from there to bob, who answers by himself; a BYE from each side in turn ends a
 * call, crossing Kamailio (which record-routes) and the server. Kamailio's log shows each request
 * it routed, which is how the test knows the calls took the edge and not bob's Contact.
 * Threading: JUnit's test thread drives the phones; each phone's output is read on a thread of its own.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KamailioEdgeIT {

    private static final String PASSWORD = "edge-phone-secret";

    @TempDir
    Path dir;

    @Test
    void aPhoneRegisteredThroughKamailioIsCalledThroughIt() throws Exception {
        InetAddress edgeHost = InetAddress.getByName("127.0.0.2");
        try (TestServer server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0", "auth", "true",
                "auth.algorithms", "md5", "auth.pathPeers", "127.0.0.2")) {
            String realm = server.config().effectiveRealm();
            server.server().subscribers().putAll(List.of(subscriber("alice", realm), subscriber("bob", realm)));
            try (KamailioEdge edge = KamailioEdge.start(dir.resolve("kamailio"), edgeHost, server.address(Transport.UDP));
                 Baresip alice = Baresip.start(dir.resolve("baresip-alice"), "alice", PASSWORD, Transport.UDP,
                         server.address(Transport.UDP), null);
                 Baresip bob = Baresip.start(dir.resolve("baresip-bob"), "bob", PASSWORD, Transport.UDP,
                         server.address(Transport.UDP), null,
                         Baresip.Options.DEFAULT.withOutboundProxy(edge.uri()))) {
                alice.awaitRegistered();
                bob.awaitRegistered();
                assertEquals(1.0, count(server, "stored"), "bob's Path stored once:\n" + edge.routed());
                assertTrue(edge.routed().stream().anyMatch(l -> l.startsWith("edge: REGISTER")), edge.log());
                // the registrar's 200 echoes the Path Kamailio wrote: its outbound flow token, bob's address, ob
                String echoed = edge.routed().stream().filter(l -> l.startsWith("edge: 200 REGISTER Path: <sip:"))
                        .findFirst().orElseThrow(() -> new AssertionError("no Path in the 200:\n" + edge.log()));
                assertTrue(echoed.contains("@127.0.0.2:" + edge.address().getPort()) && echoed.contains(";lr")
                        && echoed.contains("received=sip:127.0.0.1:" + bob.sipPort()) && echoed.contains(";ob"), echoed);
                // RFC 5626 §6: ob in the first Path entry and a reg-id: the registrar answers Require: outbound
                assertTrue(echoed.endsWith("Require: outbound"), echoed);

                alice.dial("sip:bob@" + server.hostPort(Transport.UDP));
                alice.awaitCallEstablished();
                bob.awaitCallEstablished();
                assertTrue(routedFromServer(edge, server, "INVITE"), "the INVITE took bob's Path:\n" + edge.routed());
                bob.hangup();
                alice.awaitByeReceived();
                assertTrue(edge.routed().stream().anyMatch(l -> l.startsWith("edge: BYE")), edge.log());

                alice.dial("sip:bob@" + server.hostPort(Transport.UDP));
                alice.awaitCallEstablished();
                bob.awaitCallEstablished();
                alice.hangup();
                bob.awaitByeReceived();
                assertEquals(2, edge.routed().stream().filter(l -> l.startsWith("edge: BYE")).count(),
                        edge.routed().toString());
            }
        }
    }

    /** Whether Kamailio logged a {@code method} request that came from the server's listener. */
    private static boolean routedFromServer(KamailioEdge edge, TestServer server, String method) {
        return edge.routed().stream().anyMatch(l -> l.startsWith("edge: " + method + " ")
                && l.endsWith("from " + server.hostPort(Transport.UDP)));
    }

    private static Subscriber subscriber(String user, String realm) {
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, PASSWORD),
                DigestAlgorithm.SHA_256.ha1(user, realm, PASSWORD), true);
    }

    private static double count(TestServer server, String result) {
        Counter c = server.server().registry().find("sip.registrations.path").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }
}
