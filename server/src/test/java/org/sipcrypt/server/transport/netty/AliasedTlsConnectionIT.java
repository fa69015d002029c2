package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * RFC 5923 connection reuse, on each TLS engine: a peer proxy opens a TLS connection, presents a
 * certificate of the test CA naming 127.0.0.1 (the certs command's server certificate, which
 * carries clientAuth too), and puts {@code ;alias} in the top Via of its requests with a sent-by
 * port where nothing listens. A request the proxy then forwards to that host and port arrives on
 * the peer's own connection, and its answer goes back to the sender. The same offer without a
 * client certificate, with one that does not name the host (the certs command's client
 * certificate: no subjectAltName), or over TCP is ignored: the proxy dials the sent-by, fails, and
 * answers 500 (a branch that could not be sent counts as 503, which never goes upstream, RFC 3261
 * §16.7 step 6); {@code sip.aliases{result}} says why each was ignored. Once the aliased
 * connection has closed, the proxy dials again. A peer whose second connection resumed its TLS 1.2
 * session (no certificate sent again) is held to the certificate of the full handshake; an alias
 * for a name the certificate names ({@code localhost}) carries requests sent to that name. One
 * server per engine serves every case.
 */
@Timeout(90)
class AliasedTlsConnectionIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    static Path shared;

    @TempDir
    Path dir;

    private static Path certs;

    @BeforeAll
    static void makeCertificates() {
        certs = shared.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
    }

    /** A port on 127.0.0.1 where nothing listens (bound, then closed again). */
    private static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /**
     * A request from {@code peer} whose top Via names {@code 127.0.0.1:sentByPort} with {@code alias}:
     * OPTIONS to the server itself, answered 200 by it.
     */
    private static String optionsWithAlias(TestServer server, SipSocket peer, Transport over, int sentByPort) {
        return optionsWithAlias(server, peer, over, "127.0.0.1", sentByPort);
    }

    /** As {@link #optionsWithAlias(TestServer, SipSocket, Transport, int)}, with a sent-by host of its own. */
    private static String optionsWithAlias(TestServer server, SipSocket peer, Transport over, String sentByHost,
                                           int sentByPort) {
        String r = peer.request("OPTIONS", "sip:" + server.hostPort(over) + ";transport=" + over.configName(),
                "proxy", server.hostPort(over), "alias-" + System.nanoTime(), 1, "");
        String withAlias = r.replace(peer.localHost() + ":" + peer.localPort() + ";branch", sentByHost + ":" + sentByPort
                + ";branch").replace(";rport\r\n", ";rport;alias\r\n");
        assertTrue(withAlias.contains(":" + sentByPort + ";branch") && withAlias.contains(";alias\r\n"), withAlias);
        return withAlias;
    }

    /** Sends a MESSAGE from {@code sender} (UDP) through the proxy to {@code sip:peer@127.0.0.1:port;transport=t}. */
    private static String messageTo(SipSocket sender, Transport t, int port) throws Exception {
        return messageTo(sender, t, "127.0.0.1", port);
    }

    /** Sends a MESSAGE from {@code sender} (UDP) through the proxy to {@code sip:peer@host:port;transport=t}. */
    private static String messageTo(SipSocket sender, Transport t, String host, int port) throws Exception {
        String callId = "to-alias-" + System.nanoTime();
        sender.send(sender.request("MESSAGE", "sip:peer@" + host + ":" + port + ";transport=" + t.configName(),
                "alice", "peer@" + host + ":" + port, callId, 1, ""));
        return callId;
    }

    private static double aliases(TestServer server, String result) {
        return server.server().transportCounters().value("sip.aliases", "result", result);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bc", "jsse"})
    void aliasIsTakenOnlyOverTlsFromACertificateNamingTheSentBy(String engine) throws Exception {
        try (TestServer server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0",
                "listen", "tcp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.engine", engine, "tls.cert", certs.resolve("server.pem").toString(),
                "tls.key", certs.resolve("server-key.pem").toString(), "tls.trust", certs.resolve("ca.pem").toString(),
                "tls.clientAuth", "want");
             SipSocket sender = SipSocket.udp(server.address(Transport.UDP))) {
            int verifiedPort = deadPort();
            // TLS 1.2, so that a second connection resumes the session by its ID on either engine
            javax.net.ssl.SSLContext peerTls = TestPki.sslContext(certs, "server.pem", "server-key.pem", "TLSv1.2");
            try (SipSocket verified = SipSocket.tls(server.address(Transport.TLS), peerTls)) {
                verified.exchange(optionsWithAlias(server, verified, Transport.TLS, verifiedPort), "SIP/2.0 200", WAIT);
                assertEquals(1.0, aliases(server, "accepted"));

                String callId = messageTo(sender, Transport.TLS, verifiedPort);
                String forwarded = verified.awaitMessage("MESSAGE ", WAIT);
                assertNotNull(forwarded, "the request to the aliased sent-by came down the peer's own connection");
                assertTrue(forwarded.contains(callId), forwarded);
                verified.send(SipSocket.response(forwarded, "200 OK"));
                String ok = sender.awaitMessage("SIP/2.0 ", WAIT);
                assertNotNull(ok, "an answer for the sender");
                assertTrue(ok.startsWith("SIP/2.0 200") && ok.contains(callId), ok);

                // ignored offers: each sent-by is dialled, refused, and the request answered 500
                int noCertPort = deadPort();
                try (SipSocket noCert = SipSocket.tls(server.address(Transport.TLS), TestPki.sslContext(certs, null, null))) {
                    noCert.exchange(optionsWithAlias(server, noCert, Transport.TLS, noCertPort), "SIP/2.0 200", WAIT);
                    assertEquals(1.0, aliases(server, "no_certificate"));
                    assertDialledAndRefused(sender, noCert, Transport.TLS, noCertPort);
                }
                int otherNamePort = deadPort();
                try (SipSocket otherName = SipSocket.tls(server.address(Transport.TLS),
                        TestPki.sslContext(certs, "client.pem", "client-key.pem"))) {
                    otherName.exchange(optionsWithAlias(server, otherName, Transport.TLS, otherNamePort), "SIP/2.0 200",
                            WAIT);
                    assertEquals(1.0, aliases(server, "name_mismatch"));
                    assertDialledAndRefused(sender, otherName, Transport.TLS, otherNamePort);
                }
                int tcpPort = deadPort();
                try (SipSocket tcp = SipSocket.tcp(server.address(Transport.TCP))) {
                    tcp.exchange(optionsWithAlias(server, tcp, Transport.TCP, tcpPort), "SIP/2.0 200", WAIT);
                    assertEquals(1.0, aliases(server, "not_tls"));
                    assertDialledAndRefused(sender, tcp, Transport.TCP, tcpPort);
                }
                assertEquals(1.0, aliases(server, "accepted"), "no other offer was taken");

                // a resumed session sends no certificate: the one its full handshake checked stands
                int resumedPort = deadPort();
                try (SipSocket resumed = SipSocket.tls(server.address(Transport.TLS), peerTls)) {
                    resumed.exchange(optionsWithAlias(server, resumed, Transport.TLS, resumedPort), "SIP/2.0 200", WAIT);
                    assertTrue(server.server().transportCounters().value("tls.handshakes", "kind", "resumed") >= 1,
                            "the second connection resumed the session: " + server.server().statsLine());
                    assertEquals(2.0, aliases(server, "accepted"));
                    String resumedCall = messageTo(sender, Transport.TLS, resumedPort);
                    String there = resumed.awaitMessage("MESSAGE ", WAIT);
                    assertNotNull(there, "the request came down the resumed connection");
                    assertTrue(there.contains(resumedCall), there);
                    resumed.send(SipSocket.response(there, "200 OK"));
                    String answered = sender.awaitMessage("SIP/2.0 ", WAIT);
                    assertNotNull(answered, "an answer for the sender");
                    assertTrue(answered.startsWith("SIP/2.0 200") && answered.contains(resumedCall), answered);
                }
                // a sent-by name the certificate names (dNSName localhost): found by that name, never looked up
                int namedPort = deadPort();
                try (SipSocket named = SipSocket.tls(server.address(Transport.TLS), peerTls)) {
                    named.exchange(optionsWithAlias(server, named, Transport.TLS, "localhost", namedPort), "SIP/2.0 200",
                            WAIT);
                    assertEquals(3.0, aliases(server, "accepted"));
                    String namedCall = messageTo(sender, Transport.TLS, "localhost", namedPort);
                    String there = named.awaitMessage("MESSAGE ", WAIT);
                    assertNotNull(there, "the request to the aliased name came down the connection");
                    assertTrue(there.contains(namedCall), there);
                    named.send(SipSocket.response(there, "200 OK"));
                    String answered = sender.awaitMessage("SIP/2.0 ", WAIT);
                    assertNotNull(answered, "an answer for the sender");
                    assertTrue(answered.startsWith("SIP/2.0 200") && answered.contains(namedCall), answered);
                }
            }
            // the aliased connection has closed: its alias went with it, and the sent-by is dialled
            Await.until(() -> server.server().transportCounters().openConnections().get() == 0, WAIT,
                    () -> "every connection closed at the server");
            double refusedBefore = server.server().transportCounters().value("transport.connections.closed", "reason",
                    "connect_failed");
            String callId = messageTo(sender, Transport.TLS, verifiedPort);
            String answer = sender.awaitMessage("SIP/2.0 5", WAIT);
            assertNotNull(answer, "an answer once the aliased connection has gone");
            assertTrue(answer.startsWith("SIP/2.0 500") && answer.contains(callId), answer);
            assertEquals(refusedBefore + 1, server.server().transportCounters().value("transport.connections.closed",
                    "reason", "connect_failed"), "the sent-by was dialled");
        }
    }

    /**
     * A request to {@code 127.0.0.1:port} over {@code t} is dialled there, refused, and answered
     * 500; nothing of it arrives on {@code peer}'s connection.
     */
    private static void assertDialledAndRefused(SipSocket sender, SipSocket peer, Transport t, int port)
            throws Exception {
        String callId = messageTo(sender, t, port);
        String answer = sender.awaitMessage("SIP/2.0 5", WAIT);
        assertNotNull(answer, "an answer for a sent-by whose alias was ignored");
        assertTrue(answer.startsWith("SIP/2.0 500") && answer.contains(callId), answer);
        // the 500 came after the dial failed, so anything sent on the peer's connection is there by now
        assertNull(peer.receive(Duration.ofMillis(300)), "nothing came down the connection that offered the alias");
    }
}
