package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestH2Server;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/** Credential lookups while the database (H2 in server mode) goes away and comes back. */
@Timeout(90)
class DigestDatabaseOutageIT {

    @TempDir
    Path dir;

    /** Sends authenticated REGISTERs (new CSeq and nonce count each) until one gets the status. */
    private static String registerUntil(SipSocket s, String hp, String challenge, int[] n, String status,
                                        Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            n[0]++;
            s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@" + hp, "auth-outage", n[0] + 1,
                    s.contact("alice") + "Expires: 600\r\n"
                            + DigestClient.answer("Authorization", challenge, "alice", "secret", "REGISTER", "sip:" + hp, n[0])));
            String r = s.receive(Duration.ofSeconds(5));
            if (r != null && !r.startsWith("SIP/2.0 1")) {
                last = r;
                if (r.startsWith("SIP/2.0 " + status)) {
                    return r;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + status + " within " + timeout + "; last answer: " + last);
    }

    @Test
    void lookupsDuringAnOutageGet503AndAuthenticationRecoversByItself() throws Exception {
        try (TestH2Server h2 = TestH2Server.start(dir.resolve("h2"));
             TestServer server = TestServer.start(dir.resolve("data"), "db", h2.url(), "auth", "true");
             SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String realm = server.server().config().effectiveRealm();
            server.server().subscribers().putAll(List.of(DigestRegistrarIT.subscriber("alice", realm, "secret", true)));
            String hp = server.hostPort(Transport.UDP);
            s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@" + hp, "auth-outage", 1,
                    s.contact("alice") + "Expires: 600\r\n"));
            String challenge = DigestClient.challenges(s.awaitMessage("SIP/2.0 401", Duration.ofSeconds(10)),
                    "WWW-Authenticate").get(0);
            int[] n = {0};
            registerUntil(s, hp, challenge, n, "200", Duration.ofSeconds(10));

            h2.stop();
            String unavailable = registerUntil(s, hp, challenge, n, "503", Duration.ofSeconds(30));
            assertTrue(unavailable.startsWith("SIP/2.0 503 "), unavailable);
            assertTrue(unavailable.contains("Retry-After:"), unavailable);

            h2.startAgain();
            registerUntil(s, hp, challenge, n, "200", Duration.ofSeconds(30));
        }
    }
}
