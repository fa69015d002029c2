package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * A whole call (INVITE, 200, ACK, BYE, 200) through the Record-Routing proxy with the caller on
 * TLS, and the callee on UDP or on TLS (the proxy connecting out with TLS on each engine,
 * presenting its certificate and checking the callee's chain and name). Both ends are the JDK's own
 * TLS sockets.
 */
@Timeout(60)
class ProxyCallOverTlsIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private Path certs;

    @BeforeEach
    void makeCertificates() {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
    }

    private TestServer start() throws Exception {
        return start("jsse");
    }

    private TestServer start(String engine, String... extra) throws Exception {
        List<String> s = new java.util.ArrayList<>(List.of("listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "tls.trust", certs.resolve("ca.pem").toString(), "tls.engine", engine));
        s.addAll(List.of(extra));
        return TestServer.start(dir.resolve("data"), s.toArray(new String[0]));
    }

    /** A caller connected over TLS to the server's listener, trusting the test CA, with no certificate of its own. */
    private SipSocket caller(TestServer server) throws Exception {
        return SipSocket.tls(server.address(Transport.TLS), TestPki.sslContext(certs, null, null));
    }

    /** A TLS callee on {@code address} with the lab server certificate (names 127.0.0.1 and localhost). */
    private SSLServerSocket callee(String address) throws Exception {
        SSLContext calleeCtx = TestPki.sslContext(certs, "server.pem", "server-key.pem");
        return (SSLServerSocket) calleeCtx.getServerSocketFactory().createServerSocket(0, 5, InetAddress.getByName(address));
    }

    /**
     * The three ends of a proxied TLS call: the server (on {@code engine}, with {@code extra} settings),
     * a TLS callee listening on {@code calleeAddress}, and a caller connected to the server. Closing
     * it closes the caller, the callee's listener and the server, in that order.
     */
    private TlsCallEnds ends(String engine, String calleeAddress, String... extra) throws Exception {
        TestServer server = start(engine, extra);
        SSLServerSocket listener = null;
        try {
            listener = callee(calleeAddress);
            return new TlsCallEnds(server, listener, caller(server));
        } catch (Exception e) {
            try (TestServer s = server; SSLServerSocket l = listener) {
                throw e;
            }
        }
    }

    private record TlsCallEnds(TestServer server, SSLServerSocket listener, SipSocket uac) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            try (TestServer s = server; SSLServerSocket l = listener; SipSocket u = uac) {
                // closed by the try, in reverse order
            }
        }
    }

    private static CompletableFuture<SipSocket> accept(SSLServerSocket listener) {
        return accept(listener, new CompletableFuture<>());
    }

    /** Accepts one connection; {@code raw} gets the TLS socket itself (its session, once it has one). */
    private static CompletableFuture<SipSocket> accept(SSLServerSocket listener,
                                                       CompletableFuture<javax.net.ssl.SSLSocket> raw) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) listener.accept();
                raw.complete(s);
                return SipSocket.accepted(s);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * Sends an OPTIONS from the caller to a TLS callee on 127.0.0.2, an address the lab certificate
     * does not name; returns the callee's side of the proxy's connection, once accepted.
     */
    private static CompletableFuture<SipSocket> optionsToMisnamedCallee(TlsCallEnds ends, String callId)
            throws Exception {
        CompletableFuture<SipSocket> uas = accept(ends.listener());
        String target = "sip:bob@127.0.0.2:" + ends.listener().getLocalPort() + ";transport=tls";
        ends.uac().send(ends.uac().request("OPTIONS", target, "alice", "bob@127.0.0.2", callId, 1, ""));
        return uas;
    }

    /** The early-relay counters; both 0 when the server runs with {@code sip.fastPath=off}. */
    private static void assertRelayedEarly(TestServer server, int requests, int responses) {
        var counters = server.server().transportCounters();
        boolean on = server.config().fastPath();
        assertEquals(on ? requests : 0, counters.value("sip.requests.relayed_early"), server.server().statsLine());
        assertEquals(on ? responses : 0, counters.value("sip.responses.relayed_early"), server.server().statsLine());
    }

    private static List<String> headerValues(String message, String name) {
        return message.lines().filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).toList();
    }

    /** The callee's answer: status line, the request's Via/From/To(tagged)/Call-ID/CSeq, its Record-Routes, a Contact. */
    private static String answer(SipSocket uas, String request, String status) {
        String r = SipSocket.response(request, status);
        StringBuilder extra = new StringBuilder();
        for (String rr : headerValues(request, "Record-Route")) {
            extra.append("Record-Route: ").append(rr).append("\r\n");
        }
        extra.append(uas.contact("bob"));
        return r.replace("Content-Length: 0\r\n", extra + "Content-Length: 0\r\n");
    }

    /** Places the call from {@code uac} to {@code target}; {@code uas} is how the callee's socket is reached. */
    private static void call(SipSocket uac, CompletableFuture<SipSocket> uas, String target) throws Exception {
        String callId = "tls-call-" + System.nanoTime();
        uac.send(uac.request("INVITE", target, "alice", target.substring(4), callId, 1, uac.contact("alice")));
        SipSocket callee = uas.get(30, TimeUnit.SECONDS);
        String invite = callee.awaitMessage("INVITE ", WAIT);
        assertNotNull(invite);
        // JAIN-SIP writes the Via entries comma-separated on one line
        assertEquals(2, String.join(",", headerValues(invite, "Via")).split("SIP/2.0/", -1).length - 1,
                "the proxy's Via on top of the caller's: " + invite);
        callee.send(answer(callee, invite, "200 OK"));
        String ok = uac.awaitMessage("SIP/2.0 200", WAIT);
        assertNotNull(ok, "200 for the INVITE");
        String to = headerValues(ok, "To").get(0);
        String contact = headerValues(ok, "Contact").get(0).replaceAll("^<|>$", "");
        StringBuilder route = new StringBuilder();
        for (String rr : headerValues(ok, "Record-Route")) {
            route.append("Route: ").append(rr).append("\r\n");
        }
        assertTrue(route.length() > 0, "the proxy record-routes: " + ok);
        assertTrue(route.toString().contains("transport=tls"), "the caller's side of the route is TLS: " + route);
        String ack = uac.request("ACK", contact, "alice", "x", callId, 1, route.toString())
                .replace("To: <sip:x>", "To: " + to);
        uac.send(ack);
        assertNotNull(callee.awaitMessage("ACK ", WAIT), "ACK reached the callee");
        String bye = uac.request("BYE", contact, "alice", "x", callId, 2, route.toString())
                .replace("To: <sip:x>", "To: " + to);
        uac.send(bye);
        String byeOk = answeredByCallee(uac, callee, "BYE");
        assertTrue(byeOk.contains("CSeq: 2 BYE"), byeOk);
    }

    /** Awaits {@code method} at the callee, answers it 200 there, and returns the caller's answer, a 200. */
    private static String answeredByCallee(SipSocket uac, SipSocket callee, String method) throws Exception {
        String request = callee.awaitMessage(method + " ", WAIT);
        assertNotNull(request, method + " reached the callee");
        callee.send(SipSocket.response(request, "200 OK"));
        String ok = uac.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(ok, "the caller's answer to " + method);
        assertTrue(ok.startsWith("SIP/2.0 200"), ok);
        return ok;
    }

    @Test
    void callerOnTlsCalleeOnUdp() throws Exception {
        try (TestServer server = start();
             SipSocket uac = caller(server);
             SipSocket uas = SipSocket.udp(server.address(Transport.UDP))) {
            call(uac, CompletableFuture.completedFuture(uas), "sip:bob@127.0.0.1:" + uas.localPort());
            // from TLS to UDP every message goes by the stack
            assertRelayedEarly(server, 0, 0);
        }
    }

    @ParameterizedTest(name = "{0} engine")
    @ValueSource(strings = {"jsse", "bc", "openssl"})
    void callerAndCalleeOnTlsWithTheProxyConnectingOut(String engine) throws Exception {
        try (TlsCallEnds ends = ends(engine, "127.0.0.1")) {
            ends.listener().setNeedClientAuth(true);
            CompletableFuture<SipSocket> uas = accept(ends.listener());
            call(ends.uac(), uas, "sip:bob@127.0.0.1:" + ends.listener().getLocalPort() + ";transport=tls");
            // TLS on both legs: the ACK and the BYE, the 200 to the INVITE and to the BYE from their bytes
            assertRelayedEarly(ends.server(), 2, 2);
            uas.get().close();
        }
    }

    @ParameterizedTest(name = "{0} engine")
    @ValueSource(strings = {"jsse", "bc", "openssl"})
    void perCallConnectionsToTheCalleeResumeTheFirstSession(String engine) throws Exception {
        // TLS 1.2 with session IDs: the inbound pattern of the TLS cost study (the proxy a TLS client per call)
        try (TlsCallEnds ends = ends(engine, "127.0.0.1", "tcp.connection", "per-call",
                "tls.ciphers", "TLS_RSA_WITH_AES_128_CBC_SHA")) {
            String target = "sip:bob@127.0.0.1:" + ends.listener().getLocalPort() + ";transport=tls";
            List<SipSocket> callees = new java.util.ArrayList<>();
            var sut = ends.server().server();
            var counters = sut.transportCounters();
            try {
                for (int i = 0; i < 2; i++) {
                    CompletableFuture<SipSocket> uas = accept(ends.listener());
                    call(ends.uac(), uas, target);
                    callees.add(uas.get());
                }
                // the proxy closes each call's connection itself once the call has ended
                org.sipcrypt.server.testing.Await.until(() -> counters.value("transport.connections.closed", "reason",
                        "call_ended") == 2, WAIT, sut::statsLine);
            } finally {
                for (SipSocket c : callees) {
                    c.close();
                }
            }
            assertEquals(2, counters.value("transport.connections.opened", "direction", "outbound"), sut.statsLine());
            // the caller's one connection is full (the proxy its TLS server); of the proxy's two outgoing
            // ones (the proxy their TLS client), the second resumes the first
            assertEquals(2, counters.value("tls.handshakes", "kind", "full"), sut.statsLine());
            assertEquals(1, counters.value("tls.handshakes", "kind", "resumed"), sut.statsLine());
            assertEquals(1, counters.value("tls.handshakes", "kind", "full", "role", "server"), sut.statsLine());
            assertEquals(0, counters.value("tls.handshakes", "kind", "resumed", "role", "server"), sut.statsLine());
            assertEquals(1, counters.value("tls.handshakes", "kind", "full", "role", "client"), sut.statsLine());
            assertEquals(1, counters.value("tls.handshakes", "kind", "resumed", "role", "client"), sut.statsLine());
            // each INVITE's 200 goes upstream from its bytes; the ACK and the BYE, to a per-call
            // connection, and the BYE's 200 by the stack
            assertRelayedEarly(ends.server(), 0, 2);
        }
    }

    @ParameterizedTest(name = "{0} engine")
    @ValueSource(strings = {"jsse", "bc", "openssl"})
    void aCalleeWhoseCertificateDoesNotNameTheAddressDialledIsRefused(String engine) throws Exception {
        // the lab certificate names 127.0.0.1 and localhost, not 127.0.0.2 (RFC 5922 section 7.2)
        try (TlsCallEnds ends = ends(engine, "127.0.0.2")) {
            CompletableFuture<SipSocket> uas = optionsToMisnamedCallee(ends, "misnamed-" + engine);
            // the JDK's server socket handshakes when its side reads
            try (SipSocket callee = uas.get(10, TimeUnit.SECONDS)) {
                assertNull(callee.awaitMessage("OPTIONS ", Duration.ofSeconds(5)), "nothing reaches the callee");
            } catch (java.io.IOException handshakeFailed) {
                // the proxy's alert ends the callee's handshake: the same outcome
            }
            String answer = ends.uac().awaitMessage("SIP/2.0 ", Duration.ofSeconds(40));
            assertNotNull(answer, "the caller gets an answer");
            assertTrue(!answer.startsWith("SIP/2.0 200"), answer);
            var sut = ends.server().server();
            assertTrue(sut.transportCounters().value("tls.handshakes.failed", "reason", "bad_certificate") >= 1,
                    sut.statsLine());
        }
    }

    @ParameterizedTest(name = "{0} engine")
    @ValueSource(strings = {"jsse", "bc"})
    void aCalleeStallingItsHandshakeDoesNotHoldUpTheNextRequest(String engine) throws Exception {
        // the proxy dials without waiting for the TCP connect or the TLS handshake: while one callee
        // leaves its ClientHello unanswered, a request to another goes out and is answered, and the
        // stalled one ends when its handshake times out: a 503 on its branch (RFC 3261 section 16.9),
        // forwarded upstream as 500 (section 16.7 step 6)
        try (TlsCallEnds ends = ends(engine, "127.0.0.1", "tls.handshakeTimeout", "6s");
             java.net.ServerSocket silent = new java.net.ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<java.net.Socket> stalled = CompletableFuture.supplyAsync(() -> {
                try {
                    return silent.accept();
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            String carol = "sip:carol@127.0.0.1:" + silent.getLocalPort() + ";transport=tls";
            ends.uac().send(ends.uac().request("OPTIONS", carol, "alice", "carol@127.0.0.1", "stalled", 1, ""));
            try (java.net.Socket unanswered = stalled.get(10, TimeUnit.SECONDS)) {
                CompletableFuture<SipSocket> uas = accept(ends.listener());
                String bob = "sip:bob@127.0.0.1:" + ends.listener().getLocalPort() + ";transport=tls";
                ends.uac().send(ends.uac().request("OPTIONS", bob, "alice", "bob@127.0.0.1", "prompt", 1, ""));
                try (SipSocket callee = uas.get(10, TimeUnit.SECONDS)) {
                    String ok = answeredByCallee(ends.uac(), callee, "OPTIONS");
                    assertTrue(ok.contains("Call-ID: prompt"), "answered before the stalled request: " + ok);
                }
                String unavailable = ends.uac().awaitMessage("SIP/2.0 ", Duration.ofSeconds(30));
                assertNotNull(unavailable, "the stalled request is answered");
                assertTrue(unavailable.startsWith("SIP/2.0 500") && unavailable.contains("Call-ID: stalled"),
                        unavailable);
            }
        }
    }

    @ParameterizedTest(name = "{0} engine")
    @ValueSource(strings = {"jsse", "bc"})
    void withPeerChecksOffTheLabReachesAMisnamedCallee(String engine) throws Exception {
        try (TlsCallEnds ends = ends(engine, "127.0.0.2", "tls.verifyPeers", "off")) {
            CompletableFuture<SipSocket> uas = optionsToMisnamedCallee(ends, "unchecked-" + engine);
            try (SipSocket callee = uas.get(10, TimeUnit.SECONDS)) {
                answeredByCallee(ends.uac(), callee, "OPTIONS");
            }
        }
    }

    @Test
    void aPeerWithSettingsOfItsOwnGetsItsEngineAndSuite() throws Exception {
        // the listener on jsse with the aes list (AES-128 first); the callee gets bc and AES-256 only
        try (SSLServerSocket listener = callee("127.0.0.1");
             TestServer server = start("jsse", "tls.peer", "127.0.0.1:" + listener.getLocalPort()
                     + ";engine=bc;ciphers=TLS_RSA_WITH_AES_256_CBC_SHA;reuse=off");
             SipSocket uac = caller(server)) {
            CompletableFuture<javax.net.ssl.SSLSocket> accepted = new CompletableFuture<>();
            CompletableFuture<SipSocket> uas = accept(listener, accepted);
            call(uac, uas, "sip:bob@127.0.0.1:" + listener.getLocalPort() + ";transport=tls");
            assertEquals("TLS_RSA_WITH_AES_256_CBC_SHA", accepted.get().getSession().getCipherSuite());
            assertEquals("TLS_AES_128_GCM_SHA256", uac.tlsCipherSuite(), "the caller's side keeps the listener's settings");
            uas.get().close();
        }
    }

    @Test
    void sipsTargetsGoOutOverTls() throws Exception {
        try (TlsCallEnds ends = ends("jsse", "127.0.0.1")) {
            CompletableFuture<SipSocket> uas = accept(ends.listener());
            String callId = "sips-" + System.nanoTime();
            String target = "sips:bob@127.0.0.1:" + ends.listener().getLocalPort();
            ends.uac().send(ends.uac().request("OPTIONS", target, "alice", "bob@127.0.0.1", callId, 1, ""));
            SipSocket callee = uas.get(30, TimeUnit.SECONDS);
            String options = callee.awaitMessage("OPTIONS ", WAIT);
            assertNotNull(options);
            assertTrue(options.contains("Via: SIP/2.0/TLS"), options);
            callee.close();
        }
    }
}
