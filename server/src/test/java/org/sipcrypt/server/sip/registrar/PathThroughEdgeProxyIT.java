package org.sipcrypt.server.sip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Path (RFC 3327) at the registrar, over real UDP sockets on loopback addresses of their own: an
 * edge proxy on 127.0.0.2 ({@code auth.pathPeers}) relays a phone's REGISTER with Path headers;
 * the REGISTER is still challenged and answered with the phone's credentials; the Path is stored,
 * copied into the 200, and a call to the phone (from a trusted peer on 127.0.0.3, so no challenge)
 * reaches the edge proxy's socket with one Route per Path entry and the phone's Contact as
 * Request-URI. A Path from 127.0.0.1, which is not trusted, is ignored; one too long is refused
 * with 400 and binds nothing; one from a user agent that did not say {@code Supported: path} is
 * refused with 420. One server serves every case, each with a user of its own.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PathThroughEdgeProxyIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PASSWORD = "edge-secret";
    private static final List<String> USERS = List.of("bob", "carol", "dave", "erin", "ivan");

    @TempDir
    static Path dir;

    private static TestServer server;
    private static InetAddress edgeAddress;
    private static InetAddress callerAddress;

    @BeforeAll
    static void start() throws Exception {
        edgeAddress = InetAddress.getByName("127.0.0.2");
        callerAddress = InetAddress.getByName("127.0.0.3");
        server = TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0", "auth", "true",
                "auth.algorithms", "md5", "auth.pathPeers", "127.0.0.2", "auth.trustedPeers", "127.0.0.3");
        String realm = server.config().effectiveRealm();
        server.server().subscribers().putAll(USERS.stream().map(u -> new Subscriber(u, realm,
                DigestAlgorithm.MD5.ha1(u, realm, PASSWORD), DigestAlgorithm.SHA_256.ha1(u, realm, PASSWORD), true))
                .toList());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void pathFromAnEdgeProxyIsStoredEchoedAndTakenByCallsToThePhone() throws Exception {
        try (SipSocket edge = SipSocket.udpFrom(edgeAddress, server.address(Transport.UDP));
             SipSocket caller = SipSocket.udpFrom(callerAddress, server.address(Transport.UDP))) {
            String first = "<sip:127.0.0.2:" + edge.localPort() + ";lr;received=sip:198.51.100.7:5062>";
            String second = "<sip:edge2.example.com;lr>";
            double stored = count("stored");
            String ok = register(edge, "bob", "Path: " + first + "\r\nPath: " + second + "\r\nSupported: path\r\n",
                    "SIP/2.0 200");
            List<String> echoed = lines(ok, "Path:");
            assertEquals(2, echoed.size(), ok);
            assertTrue(echoed.get(0).contains("sip:127.0.0.2:" + edge.localPort()) && echoed.get(0).contains("lr"), ok);
            assertTrue(echoed.get(1).contains("sip:edge2.example.com"), ok);
            assertEquals(stored + 1, count("stored"));

            caller.send(caller.request("INVITE", "sip:bob@" + server.hostPort(Transport.UDP), "alice",
                    "bob@127.0.0.1", "path-call-1", 1, caller.contact("alice")));
            String invite = edge.awaitMessage("INVITE ", WAIT);
            assertNotNull(invite, "the INVITE for bob reaches the first hop of his Path");
            assertTrue(invite.startsWith("INVITE sip:bob@198.51.100.7:5062 SIP/2.0"), invite);
            List<String> routes = lines(invite, "Route:");
            assertEquals(2, routes.size(), invite);
            assertTrue(routes.get(0).contains("sip:127.0.0.2:" + edge.localPort()) && routes.get(0).contains("lr")
                    && routes.get(0).contains("received=sip:198.51.100.7:5062"), invite);
            assertTrue(routes.get(1).contains("sip:edge2.example.com"), invite);
            edge.send(SipSocket.response(invite, "486 Busy Here"));
            assertNotNull(caller.awaitMessage("SIP/2.0 486", WAIT), "the caller gets the edge's answer");
        }
    }

    /**
     * RFC 5626 §6: an outbound REGISTER (reg-id, +sip.instance) relayed by an edge whose Path entry
     * has {@code ob} gets {@code Require: outbound}, and no {@code Flow-Timer}: keep-alives go to the edge.
     */
    @Test
    void anOutboundRegistrationThroughAnEdgeWithObIsAnsweredRequireOutbound() throws Exception {
        try (SipSocket edge = SipSocket.udpFrom(edgeAddress, server.address(Transport.UDP))) {
            String ok = register(edge, "ivan", "Path: <sip:flow-1@127.0.0.2:" + edge.localPort() + ";lr;ob>\r\n"
                    + "Supported: path, outbound\r\n", "SIP/2.0 200",
                    ";reg-id=1;+sip.instance=\"<urn:uuid:00000000-0000-4000-8000-000000000001>\"");
            assertEquals(List.of("outbound"), lines(ok, "Require:"), ok);
            assertTrue(lines(ok, "Flow-Timer:").isEmpty(), ok);
        }
    }

    @Test
    void pathFromAnUntrustedSourceIsIgnored() throws Exception {
        try (SipSocket phone = SipSocket.udp(server.address(Transport.UDP));
             SipSocket caller = SipSocket.udpFrom(callerAddress, server.address(Transport.UDP))) {
            double ignored = count("ignored_untrusted");
            String ok = register(phone, "carol",
                    "Path: <sip:192.0.2.1:5060;lr>\r\nSupported: path\r\n", "SIP/2.0 200");
            assertTrue(lines(ok, "Path:").isEmpty(), "an ignored Path is not echoed:\n" + ok);
            assertEquals(ignored + 1, count("ignored_untrusted"));

            caller.send(caller.request("INVITE", "sip:carol@" + server.hostPort(Transport.UDP), "alice",
                    "carol@127.0.0.1", "path-call-2", 1, caller.contact("alice")));
            String invite = phone.awaitMessage("INVITE ", WAIT);
            assertNotNull(invite, "the INVITE for carol reaches her Contact");
            assertTrue(lines(invite, "Route:").isEmpty(), invite);
            phone.send(SipSocket.response(invite, "486 Busy Here"));
            assertNotNull(caller.awaitMessage("SIP/2.0 486", WAIT));
        }
    }

    @Test
    void pathOfTooManyEntriesOrCharactersIsRefusedAndBindsNothing() throws Exception {
        try (SipSocket edge = SipSocket.udpFrom(edgeAddress, server.address(Transport.UDP));
             SipSocket caller = SipSocket.udpFrom(callerAddress, server.address(Transport.UDP))) {
            StringBuilder nine = new StringBuilder();
            for (int i = 0; i < PathVector.MAX_ENTRIES + 1; i++) {
                nine.append("Path: <sip:hop").append(i).append(".example.com;lr>\r\n");
            }
            double tooLong = count("refused_too_long");
            String refused = register(edge, "dave", nine + "Supported: path\r\n", "SIP/2.0 400");
            assertTrue(refused.startsWith("SIP/2.0 400 Path longer than " + PathVector.MAX_ENTRIES + " entries"),
                    refused);
            String longEntry = "Path: <sip:edge.example.com;lr;x=" + "a".repeat(PathVector.MAX_CHARS) + ">\r\n";
            register(edge, "dave", longEntry + "Supported: path\r\n", "SIP/2.0 400");
            assertEquals(tooLong + 2, count("refused_too_long"));

            caller.send(caller.request("INVITE", "sip:dave@" + server.hostPort(Transport.UDP), "alice",
                    "dave@127.0.0.1", "path-call-3", 1, caller.contact("alice")));
            assertNotNull(caller.awaitMessage("SIP/2.0 404", WAIT), "dave never got a binding");
        }
    }

    @Test
    void pathFromAUserAgentThatDoesNotSupportItIsRefusedWith420() throws Exception {
        try (SipSocket edge = SipSocket.udpFrom(edgeAddress, server.address(Transport.UDP))) {
            double unsupported = count("refused_unsupported");
            String refused = register(edge, "erin", "Path: <sip:127.0.0.2:5060;lr>\r\n", "SIP/2.0 420");
            assertEquals(List.of("path"), lines(refused, "Unsupported:"), refused);
            assertEquals(unsupported + 1, count("refused_unsupported"));
        }
    }

    /**
     * Over TLS with {@code tls.clientAuth need} every client presented a certificate that checked
     * against {@code tls.trust}, so an edge on such a connection is trusted for Path from any address;
     * over UDP from the same address the Path is ignored. (A server of its own, without digest.)
     */
    @Test
    void pathOverTlsFromACheckedClientCertificateIsStored(@TempDir Path own) throws Exception {
        Path certs = own.resolve("certs");
        assertEquals(0, new picocli.CommandLine(new org.sipcrypt.server.cli.CertsCommand())
                .execute("--out", certs.toString()));
        try (TestServer tls = TestServer.start(own.resolve("data"), "listen", "udp:127.0.0.1:0",
                "listen", "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.pem").toString(),
                "tls.key", certs.resolve("server-key.pem").toString(), "tls.trust", certs.resolve("ca.pem").toString(),
                "tls.clientAuth", "need");
             SipSocket edge = SipSocket.tls(tls.address(Transport.TLS),
                     org.sipcrypt.server.testing.TestPki.sslContext(certs, "client.pem", "client-key.pem"));
             SipSocket udp = SipSocket.udp(tls.address(Transport.UDP))) {
            String path = "Path: <sip:127.0.0.1:" + edge.localPort() + ";transport=tls;lr>\r\nSupported: path\r\n";
            String ruri = "sip:" + tls.hostPort(Transport.TLS);
            String ok = edge.exchange(edge.request("REGISTER", ruri, "gina", "gina@127.0.0.1", "path-tls-1", 1,
                    "Contact: <sip:gina@198.51.100.7:5061;transport=tls>\r\nExpires: 600\r\n" + path),
                    "SIP/2.0 200", WAIT);
            assertEquals(1, lines(ok, "Path:").size(), ok);
            String ignored = udp.exchange(udp.request("REGISTER", "sip:" + tls.hostPort(Transport.UDP), "hank",
                    "hank@127.0.0.1", "path-tls-2", 1, udp.contact("hank") + "Expires: 600\r\n" + path),
                    "SIP/2.0 200", WAIT);
            assertTrue(lines(ignored, "Path:").isEmpty(), ignored);
            var stored = tls.server().registry().find("sip.registrations.path").tag("result", "stored").counter();
            assertEquals(1.0, stored == null ? 0 : stored.count());
        }
    }

    /**
     * Registers {@code user} from {@code from} with a Contact of a documentation address (the edge
     * case) or of the socket itself (a phone on 127.0.0.1) and {@code extra} header lines: checks the
     * 401, answers it with the user's credentials and returns the final answer, which must start with
     * {@code expected}.
     */
    private static String register(SipSocket from, String user, String extra, String expected) throws Exception {
        return register(from, user, extra, expected, "");
    }

    /** As {@link #register(SipSocket, String, String, String)}, with {@code contactParams} after the Contact's URI. */
    private static String register(SipSocket from, String user, String extra, String expected, String contactParams)
            throws Exception {
        String ruri = "sip:" + server.hostPort(Transport.UDP);
        String contact = from.localHost().equals("127.0.0.1") ? from.contact(user)
                : "Contact: <sip:" + user + "@198.51.100.7:5062>" + contactParams + "\r\n";
        String callId = "path-reg-" + user + "-" + System.nanoTime();
        String headers = contact + "Expires: 600\r\n" + extra;
        String challenge = from.exchange(from.request("REGISTER", ruri, user, user + "@127.0.0.1", callId, 1, headers),
                "SIP/2.0 401", WAIT);
        String credentials = DigestClient.answer("Authorization",
                DigestClient.challenges(challenge, "WWW-Authenticate").get(0), user, PASSWORD, "REGISTER", ruri, 1);
        return from.exchange(from.request("REGISTER", ruri, user, user + "@127.0.0.1", callId, 2,
                headers + credentials), expected, WAIT);
    }

    /**
     * The values of the header {@code name} (with its colon) in {@code message}, in order, whether
     * each came on a line of its own or several on one line separated by commas.
     */
    private static List<String> lines(String message, String name) {
        return message.lines().filter(l -> l.regionMatches(true, 0, name, 0, name.length()))
                .flatMap(l -> PathVector.split(l.substring(name.length())).stream()).toList();
    }

    private static double count(String result) {
        var c = server.server().registry().find("sip.registrations.path").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }
}
