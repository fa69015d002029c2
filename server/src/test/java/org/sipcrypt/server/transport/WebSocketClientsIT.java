package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.Baresip;
import org.sipcrypt.server.testing.JsSip;
import org.sipcrypt.server.testing.TestServer;
import picocli.CommandLine;

/**
 * SIP over WebSocket (RFC 7118) with clients nobody here wrote, on one server: JsSIP (the library
 * of browsers' WebRTC phones, run by Node) registers over {@code ws:} and over {@code wss:} (checking
 * the server's certificate against the test CA) with digest credentials, calls a baresip
 * registered over TLS, and is called by it over the WebSocket it registered over (its Contact is a
 * {@code .invalid} host nothing could dial, RFC 7118 §5). Before the calls, the JDK's WebSocket
 * client sends what the listeners refuse: no {@code sip} subprotocol (400), an Origin not in
 * {@code ws.allowedOrigins} (403), a message above {@code ws.maxFrameBytes} (close 1009); each is
 * counted in {@code transport.ws.refused{reason}} and costs the registered clients nothing. Last,
 * a WebSocket client whose connection has closed is not reachable: its caller gets 430 Flow Failed.
 * Threading: JUnit's test thread drives the clients; each client's output is read on a thread of its own.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebSocketClientsIT {

    private static final String ALLOWED_ORIGIN = "https://phone.example.test";
    private static final int MAX_FRAME_BYTES = 4096;

    @TempDir
    static Path dir;
    private static Path certs;
    private static TestServer server;
    private static JsSip alice;
    private static JsSip carol;
    private static Baresip bob;

    @BeforeAll
    static void start() throws Exception {
        certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        JsSip.install();
        server = TestServer.start(dir.resolve("data"),
                "listen", "udp:127.0.0.1:0", "listen", "tls:127.0.0.1:0",
                "listen", "ws:127.0.0.1:0", "listen", "wss:127.0.0.1:0",
                "tls.cert", certs.resolve("server.pem").toString(), "tls.key", certs.resolve("server-key.pem").toString(),
                "ws.allowedOrigins", ALLOWED_ORIGIN, "ws.maxFrameBytes", Integer.toString(MAX_FRAME_BYTES),
                "auth", "true", "auth.algorithms", "md5");
        String realm = server.config().effectiveRealm();
        server.server().subscribers().putAll(List.of(subscriber("alice", realm), subscriber("bob", realm),
                subscriber("carol", realm)));
        alice = JsSip.start(url("ws", Transport.WS), "sip:alice@127.0.0.1", password("alice"), certs.resolve("ca.pem"));
        carol = JsSip.start(url("wss", Transport.WSS), "sip:carol@127.0.0.1", password("carol"), certs.resolve("ca.pem"));
        bob = Baresip.start(dir.resolve("baresip-bob"), "bob", password("bob"), Transport.TLS,
                server.address(Transport.TLS), certs.resolve("ca.pem"));
        alice.awaitRegistered();
        carol.awaitRegistered();
        bob.awaitRegistered();
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {alice, carol, bob, server}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + c + " failed", e);
                }
            }
        }
    }

    @Test
    @Order(1)
    void upgradeWithoutSipSubprotocolIsRefusedAndCounted() {
        WebSocketHandshakeException e = handshakeFailure(ws().subprotocols("xmpp"));
        assertEquals(400, e.getResponse().statusCode());
        assertTrue(refused("subprotocol") >= 1, server.server().statsLine());
    }

    @Test
    @Order(2)
    void originNotAllowedIsRefusedAndCounted() {
        WebSocketHandshakeException e = handshakeFailure(ws().subprotocols("sip")
                .header("Origin", "https://elsewhere.example.test"));
        assertEquals(403, e.getResponse().statusCode());
        assertTrue(refused("origin") >= 1, server.server().statsLine());
    }

    @Test
    @Order(3)
    void oversizeMessageClosesOnlyThatConnection() throws Exception {
        CompletableFuture<Integer> closed = new CompletableFuture<>();
        WebSocket socket = ws().subprotocols("sip").header("Origin", ALLOWED_ORIGIN)
                .buildAsync(URI.create(url("wss", Transport.WSS)), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                        closed.complete(statusCode);
                        return null;
                    }

                    @Override
                    public void onError(WebSocket webSocket, Throwable error) {
                        closed.completeExceptionally(error);
                    }
                }).get(30, TimeUnit.SECONDS);
        assertEquals("sip", socket.getSubprotocol());
        socket.sendText("x".repeat(MAX_FRAME_BYTES + 1), true);
        assertEquals(1009, closed.get(30, TimeUnit.SECONDS));
        Await.until(() -> refused("frame_too_large") >= 1, Duration.ofSeconds(10), () -> server.server().statsLine());
    }

    @Test
    @Order(4)
    void jsSipOverWsCallsBaresipOverTls() throws Exception {
        alice.call("sip:bob@127.0.0.1");
        bob.awaitCallEstablished();
        alice.awaitConfirmed();
        alice.hangup();
        bob.awaitByeReceived();
        assertTrue(alice.awaitEnded().startsWith("ended local"), alice.describe());
    }

    @Test
    @Order(5)
    void baresipOverTlsCallsJsSipOverItsOwnWssConnection() throws Exception {
        bob.dial("sip:carol@" + server.hostPort(Transport.TLS));
        String incoming = carol.awaitIncoming();
        // the server's Via and Record-Route name its wss listener; the request came over carol's connection
        assertTrue(incoming.contains("SIP/2.0/WSS " + server.hostPort(Transport.WSS)), incoming);
        assertTrue(incoming.contains("transport=wss"), incoming);
        bob.awaitCallEstablished();
        carol.awaitConfirmed();
        bob.hangup();
        assertEquals("ended remote Terminated", carol.awaitEnded(), carol.describe());
    }

    /**
     * RFC 7118 §5: once the WebSocket a client registered over has closed, its binding (Contact on a
     * {@code .invalid} host) cannot be reached and nothing is dialled. JsSIP registers as an RFC 5626
     * outbound client ({@code reg-id}, {@code +sip.instance}), so the caller gets 430 Flow Failed.
     */
    @Test
    @Order(6)
    void jsSipWhoseWebSocketClosedIsNotReachable() throws Exception {
        carol.close();
        carol = null;
        Await.until(() -> server.server().registry().get("transport.connections.current").tag("transport", "wss")
                .gauge().value() == 0, Duration.ofSeconds(10), () -> server.server().statsLine());
        bob.dial("sip:carol@" + server.hostPort(Transport.TLS));
        String failed = bob.awaitCallFailed();
        assertTrue(failed.contains("430 Flow Failed"), failed);
        assertTrue(server.server().registry().get("sip.flows.failed").tag("reason", "closed").counter().count() >= 1,
                server.server().statsLine());
    }

    private static WebSocket.Builder ws() {
        return HttpClient.newBuilder().sslContext(sslContext()).connectTimeout(Duration.ofSeconds(10)).build()
                .newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
    }

    private static WebSocketHandshakeException handshakeFailure(WebSocket.Builder builder) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> builder
                .buildAsync(URI.create(url("ws", Transport.WS)), new WebSocket.Listener() { }).get(30, TimeUnit.SECONDS));
        return assertInstanceOf(WebSocketHandshakeException.class, e.getCause());
    }

    private static javax.net.ssl.SSLContext sslContext() {
        try {
            return org.sipcrypt.server.testing.TestPki.sslContext(certs, null, null);
        } catch (Exception e) {
            throw new IllegalStateException("the test CA cannot be read", e);
        }
    }

    private static double refused(String reason) {
        return server.server().registry().find("transport.ws.refused").tag("reason", reason).counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    private static String url(String scheme, Transport t) {
        return scheme + "://" + server.hostPort(t);
    }

    private static String password(String user) {
        return user + "-secret";
    }

    private static Subscriber subscriber(String user, String realm) {
        String password = password(user);
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, password),
                DigestAlgorithm.SHA_256.ha1(user, realm, password), true);
    }
}
