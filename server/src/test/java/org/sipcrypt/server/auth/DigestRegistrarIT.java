package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.ManualClock;
import org.sipcrypt.server.testing.SipExchange;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** REGISTER with digest authentication (RFC 3261 §22) against the real server over UDP. */
@Timeout(60)
class DigestRegistrarIT {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String WWW = "WWW-Authenticate";

    @TempDir
    Path dir;

    /** The server's clock: nonces age when the test moves it. */
    private final ManualClock clock = ManualClock.atSystemTime();
    private TestServer server;
    private SipSocket ua;
    private String realm;
    private String registrarUri;

    @BeforeEach
    void start() throws Exception {
        startServer("auth", "true");
    }

    private void startServer(String... settings) throws Exception {
        server = TestServer.start(dir, clock, settings);
        realm = server.server().config().effectiveRealm();
        provision(server, realm);
        InetSocketAddress udp = server.address(Transport.UDP);
        registrarUri = "sip:" + udp.getAddress().getHostAddress() + ":" + udp.getPort();
        ua = SipSocket.udp(udp);
    }

    static void provision(TestServer server, String realm) throws Exception {
        SubscriberStore store = server.server().subscribers();
        store.putAll(List.of(subscriber("alice", realm, "secret", true), subscriber("bob", realm, "b0b", true),
                subscriber("carol", realm, "carol", false)));
    }

    static Subscriber subscriber(String user, String realm, String password, boolean enabled) {
        return new Subscriber(user, realm, DigestAlgorithm.MD5.ha1(user, realm, password),
                DigestAlgorithm.SHA_256.ha1(user, realm, password), enabled);
    }

    @AfterEach
    void stop() throws Exception {
        if (ua != null) {
            ua.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * Sends a REGISTER of {@code toUser} (in our realm, or {@code user@domain}) with the given extra
     * lines and returns the final response.
     */
    private String register(String toUser, String callId, int cseq, String extra) throws Exception {
        String user = toUser.contains("@") ? toUser.substring(0, toUser.indexOf('@')) : toUser;
        ua.send(ua.request("REGISTER", registrarUri, user, toUser.contains("@") ? toUser : toUser + "@" + realm,
                callId, cseq, ua.contact(user) + "Expires: 600\r\n" + extra));
        return ua.awaitMessage("SIP/2.0 ", WAIT);
    }

    /**
     * Registers {@code toUser} twice in one call: the first REGISTER is challenged, the second answers
     * the {@code algorithm} challenge as {@code user} with {@code password}; returns its final response.
     */
    private String registerAnswering(String toUser, String algorithm, String user, String password) throws Exception {
        String callId = UUID.randomUUID().toString();
        String challenge = challenge(register(toUser, callId, 1, ""), algorithm);
        return register(toUser, callId, 2,
                authorization(challenge, user, password, registrarUri, 1));
    }

    /** The {@code algorithm} challenge in the answer to alice's first REGISTER of call {@code callId}. */
    private String aliceChallenged(String callId, String algorithm) throws Exception {
        return challenge(register("alice", callId, 1, ""), algorithm);
    }

    /** An Authorization line answering {@code challenge} for a REGISTER to {@code uri}, with nonce count {@code nc}. */
    private static String authorization(String challenge, String user, String password, String uri, int nc) {
        return DigestClient.answer("Authorization", challenge, user, password, "REGISTER", uri, nc);
    }

    private static String statusLine(String response) {
        return response.substring(0, response.indexOf("\r\n"));
    }

    private String challenge(String response, String algorithm) {
        return DigestClient.challenges(response, WWW).stream()
                .filter(c -> algorithm.equals(DigestClient.params(c).get("algorithm"))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + algorithm + " challenge in " + response));
    }

    @Test
    void registerWithoutCredentialsIsChallengedWithSha256FirstThenMd5() throws Exception {
        String r = register("alice", UUID.randomUUID().toString(), 1, "");
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(r));
        List<String> challenges = DigestClient.challenges(r, WWW);
        assertEquals(2, challenges.size(), r);
        Map<String, String> first = DigestClient.params(challenges.get(0));
        Map<String, String> second = DigestClient.params(challenges.get(1));
        assertEquals("SHA-256", first.get("algorithm"));
        assertEquals("MD5", second.get("algorithm"));
        assertEquals(realm, first.get("realm"));
        assertEquals("auth", first.get("qop"));
        assertTrue(challenges.get(0).contains("qop=\"auth\""), "qop-options are quoted: " + challenges.get(0));
        assertFalse(first.containsKey("stale"));
        assertTrue(r.lines().anyMatch(l -> l.startsWith("To:") && l.contains(";tag=")), "401 carries a To tag: " + r);
    }

    @Test
    void registerAnsweringTheSha256ChallengeIsBound() throws Exception {
        registersWith("SHA-256");
    }

    @Test
    void registerAnsweringTheMd5ChallengeIsBound() throws Exception {
        registersWith("MD5");
    }

    private void registersWith(String algorithm) throws Exception {
        String ok = registerAnswering("alice", algorithm, "alice", "secret");
        assertEquals("SIP/2.0 200 OK", statusLine(ok), ok);
        assertTrue(ok.contains("Contact: <sip:alice@127.0.0.1:" + ua.localPort()), ok);
        assertTrue(server.server().registry().counter("auth.outcomes", "result", "accepted").count() >= 1);
    }

    @Test
    void wrongPasswordAndUnknownUserGetTheSameAnswer() throws Exception {
        String wrong = registerAnswering("alice", "SHA-256", "alice", "not-secret");
        String unknown = registerAnswering("mallory", "SHA-256", "mallory", "whatever");
        assertEquals("SIP/2.0 403 Forbidden", statusLine(wrong));
        assertEquals(statusLine(wrong), statusLine(unknown));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a disabled subscriber is refused like a wrong password | carol | MD5     | carol | carol  | 403 Forbidden",
        "credentials of one user cannot register another        | bob   | SHA-256 | alice | secret | 403 Identity Mismatch",
        "a subscriber cannot register an address of another domain | alice@example.net | SHA-256 | alice | secret | 403 Domain Not Served Here",
    })
    void answeredCredentialsAreRefused(String rule, String toUser, String algorithm, String user, String password,
                                       String status) throws Exception {
        String r = registerAnswering(toUser, algorithm, user, password);
        assertEquals("SIP/2.0 " + status, statusLine(r));
    }

    @Test
    void replayedNonceCountIsRejectedAndTheNextCountAccepted() throws Exception {
        String callId = UUID.randomUUID().toString();
        String challenge = aliceChallenged(callId, "SHA-256");
        String creds = authorization(challenge, "alice", "secret", registrarUri, 1);
        assertEquals("SIP/2.0 200 OK", statusLine(register("alice", callId, 2, creds)));

        // the same credentials again, in a new transaction: a replay
        String replay = register("alice", callId, 3, creds);
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(replay));
        assertEquals("true", DigestClient.params(DigestClient.challenges(replay, WWW).get(0)).get("stale"));

        String next = authorization(challenge, "alice", "secret", registrarUri, 2);
        assertEquals("SIP/2.0 200 OK", statusLine(register("alice", callId, 4, next)));
        assertTrue(server.server().registry().counter("auth.outcomes", "result", "replay").count() >= 1);
    }

    @Test
    void forgedNonceGetsAFreshChallengeWithoutStale() throws Exception {
        String callId = UUID.randomUUID().toString();
        String challenge = aliceChallenged(callId, "MD5")
                .replaceFirst("nonce=\"[^\"]*\"", "nonce=\"AAABogAkmULRo-_LuHCVcVSqyxC_YSKzAAABogAkmUL\"");
        String r = register("alice", callId, 2,
                authorization(challenge, "alice", "secret", registrarUri, 1));
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(r));
        assertFalse(DigestClient.params(DigestClient.challenges(r, WWW).get(0)).containsKey("stale"));
    }

    @Test
    void staleNonceGetsAChallengeWithStaleTrueAndTheNewNonceWorks() throws Exception {
        stop();
        startServer("auth", "true", "auth.nonceLifetime", "1s");
        String callId = UUID.randomUUID().toString();
        String challenge = aliceChallenged(callId, "SHA-256");
        clock.advance(Duration.ofMillis(1_500)); // past the nonce lifetime
        String stale = register("alice", callId, 2,
                authorization(challenge, "alice", "secret", registrarUri, 1));
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(stale));
        String fresh = challenge(stale, "SHA-256");
        assertEquals("true", DigestClient.params(fresh).get("stale"));
        assertNotEquals(DigestClient.params(challenge).get("nonce"), DigestClient.params(fresh).get("nonce"));
        String ok = register("alice", callId, 3,
                authorization(fresh, "alice", "secret", registrarUri, 1));
        assertEquals("SIP/2.0 200 OK", statusLine(ok));
    }

    @Test
    void malformedAuthorizationGets400() throws Exception {
        String r = register("alice", UUID.randomUUID().toString(), 1,
                "Authorization: Digest username=\"alice\", realm=\"" + realm + "\", nonce=,,,=\r\n");
        assertTrue(statusLine(r).startsWith("SIP/2.0 400 "), r);
        assertTrue(statusLine(r).contains("Authorization"), r);
    }

    @Test
    void credentialsWithoutResponseGet400NamingIt() throws Exception {
        String r = register("alice", UUID.randomUUID().toString(), 1, "Authorization: Digest username=\"alice\", realm=\""
                + realm + "\", nonce=\"abc\", uri=\"" + registrarUri + "\"\r\n");
        assertEquals("SIP/2.0 400 Missing response in Authorization", statusLine(r));
    }

    @Test
    void userNamesThatLookLikeSqlAreJustUnknownNames() throws Exception {
        String evil = "x' OR '1'='1";
        String callId = UUID.randomUUID().toString();
        String challenge = aliceChallenged(callId, "MD5");
        // identity matching off would be needed to send this name for alice; instead send it as itself
        ua.send(ua.request("REGISTER", registrarUri, "alice", "alice@" + realm, callId, 2, ua.contact("alice")
                + authorization(challenge, evil, "secret", registrarUri, 1)
                .replace("username=\"" + evil + "\"", "username=\"" + evil.replace("'", "\\'") + "\"")));
        String r = ua.awaitMessage("SIP/2.0 ", WAIT);
        assertTrue(statusLine(r).startsWith("SIP/2.0 403") || statusLine(r).startsWith("SIP/2.0 400"), r);
        List<Subscriber> left = server.server().subscribers().list(realm);
        assertEquals(3, left.size(), "the subscriber table is intact: " + left);
        registersWith("SHA-256");
    }

    /** alice's REGISTER, challenged for MD5 and then answered without qop (the RFC 2069 form); the answer. */
    private String registerWithoutQop() throws Exception {
        String callId = UUID.randomUUID().toString();
        String challenge = aliceChallenged(callId, "MD5");
        return register("alice", callId, 2,
                DigestClient.answerWithoutQop("Authorization", challenge, "alice", "secret", "REGISTER", registrarUri));
    }

    @Test
    void legacyCredentialsWithoutQopAreRefusedByDefault() throws Exception {
        String r = registerWithoutQop();
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(r), r);
    }

    @Test
    void legacyCredentialsWithoutQopAreAcceptedWhenTheLabAsksForThem() throws Exception {
        stop();
        startServer("auth", "true", "auth.legacyNoQop", "true");
        String ok = registerWithoutQop();
        assertEquals("SIP/2.0 200 OK", statusLine(ok), ok);
    }

    @Test
    void digestUriOtherThanTheRequestUriIsRefusedUnlessTheLabSkipsTheCheck() throws Exception {
        String callId = UUID.randomUUID().toString();
        String challenge = aliceChallenged(callId, "SHA-256");
        String elsewhere = "sip:registrar.example.net";
        String r = register("alice", callId, 2,
                authorization(challenge, "alice", "secret", elsewhere, 1));
        assertEquals("SIP/2.0 403 Digest URI Mismatch", statusLine(r), r);
        // the same URI written differently (RFC 3261 19.1.4: host case-insensitive) is the same URI
        String upper = registrarUri.replace("sip:", "SIP:");
        String ok = register("alice", callId, 3,
                authorization(challenge, "alice", "secret", upper, 2));
        assertEquals("SIP/2.0 200 OK", statusLine(ok), ok);

        stop();
        startServer("auth", "true", "auth.lab.skipUriCheck", "true");
        String c2 = challenge(register("alice", callId, 4, ""), "SHA-256");
        String lab = register("alice", callId, 5,
                authorization(c2, "alice", "secret", elsewhere, 1));
        assertEquals("SIP/2.0 200 OK", statusLine(lab), lab);
    }

    @Test
    void jainSipUserAgentRegistersWithItsOwnDigestClient() throws Exception {
        stop();
        // JAIN-SIP's client speaks MD5 only
        startServer("auth", "true", "auth.algorithms", "md5");
        try (TestUa alice = TestUa.start("alice", Transport.UDP)) {
            var register = alice.newRegister(server.address(Transport.UDP));
            register.addHeader(alice.contact(alice.contactUri(), 600));
            SipExchange first = alice.send(register);
            assertEquals(Response.UNAUTHORIZED, first.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            SipExchange second = alice.authenticate(first, "secret");
            assertEquals(Response.OK, second.awaitFinal(TestUa.TIMEOUT).getStatusCode());
            assertEquals(1, TestUa.contacts(second.awaitFinal(TestUa.TIMEOUT)).size());
        }
    }

    @Test
    void optionsToTheServerItselfIsAnsweredWithoutAChallenge() throws Exception {
        // a keep-alive ping: answered here, nothing leaves the server
        ua.send(ua.request("OPTIONS", registrarUri, "alice", "alice@" + realm, UUID.randomUUID().toString(), 1, ""));
        assertEquals("SIP/2.0 200 OK", statusLine(ua.awaitMessage("SIP/2.0 ", WAIT)));
    }

    @Test
    void requestsToLocalUsersOutsideNarrowedMethodsPass() throws Exception {
        stop();
        startServer("auth", "true", "auth.methods", "REGISTER");
        ua.send(ua.request("MESSAGE", "sip:bob@" + realm, "alice", "bob@" + realm, UUID.randomUUID().toString(), 1, ""));
        String r = ua.awaitMessage("SIP/2.0 4", WAIT);
        // the proxy looked bob up (no registrations: 404) instead of asking for credentials
        assertEquals("SIP/2.0 404 Not found", statusLine(r), r);
    }

    @Test
    void wrongPasswordGetsANewChallengeWhenConfigured() throws Exception {
        stop();
        startServer("auth", "true", "auth.onFailure", "challenge");
        String r = registerAnswering("alice", "SHA-256", "alice", "guess");
        assertEquals("SIP/2.0 401 Unauthorized", statusLine(r));
        assertFalse(DigestClient.params(challenge(r, "SHA-256")).containsKey("stale"));
    }

    @Test
    void serversSharingTheNonceSecretAcceptEachOthersNonces(@TempDir Path otherDir) throws Exception {
        stop();
        String secret = "a-secret-both-servers-share";
        startServer("auth", "true", "auth.nonceSecret", secret);
        try (TestServer other = TestServer.start(otherDir, "auth", "true", "auth.nonceSecret", secret,
                "realm", realm);
             SipSocket toOther = SipSocket.udp(other.address(Transport.UDP))) {
            provision(other, realm);
            String callId = UUID.randomUUID().toString();
            String challenge = aliceChallenged(callId, "SHA-256");
            InetSocketAddress o = other.address(Transport.UDP);
            String otherUri = "sip:" + o.getAddress().getHostAddress() + ":" + o.getPort();
            toOther.send(toOther.request("REGISTER", otherUri, "alice", "alice@" + realm, callId, 2,
                    toOther.contact("alice") + "Expires: 600\r\n"
                            + authorization(challenge, "alice", "secret", otherUri, 1)));
            assertEquals("SIP/2.0 200 OK", statusLine(toOther.awaitMessage("SIP/2.0 ", WAIT)));
        }
    }
}
