package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.UsersCommand;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPostgres;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/** Digest authentication with the subscribers in a real PostgreSQL server, provisioned by {@code users}. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresDigestIT {

    @RegisterExtension
    static final TestPostgres.PerClass postgres = new TestPostgres.PerClass();

    @TempDir
    Path dir;

    @Test
    void subscribersProvisionedInPostgresAuthenticateRegistrations() throws Exception {
        try (TestServer server = TestServer.start(dir, "db", postgres.url(), "db.user", "sipcrypt", "auth", "true",
                "auth.batchSize", "8")) {
            String realm = server.server().config().effectiveRealm();
            int code = new CommandLine(new UsersCommand()).execute("generate", "--count", "500", "--db", postgres.url(),
                    "--db-user", "sipcrypt", "--realm", realm);
            assertEquals(0, code);
            String hp = server.hostPort(Transport.UDP);
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                for (String[] c : List.of(new String[] {"user1", "pass1", "200"}, new String[] {"user500", "pass500", "200"},
                        new String[] {"user2", "wrong", "403"}, new String[] {"user501", "pass501", "403"})) {
                    String callId = "pg-" + c[0] + "-" + c[1];
                    s.send(s.request("REGISTER", "sip:" + hp, c[0], c[0] + "@" + hp, callId, 1,
                            s.contact(c[0]) + "Expires: 600\r\n"));
                    String challenge = DigestClient.challenges(s.awaitMessage("SIP/2.0 401", Duration.ofSeconds(10)),
                            "WWW-Authenticate").get(0);
                    s.send(s.request("REGISTER", "sip:" + hp, c[0], c[0] + "@" + hp, callId, 2,
                            s.contact(c[0]) + "Expires: 600\r\n"
                                    + DigestClient.answer("Authorization", challenge, c[0], c[1], "REGISTER", "sip:" + hp, 1)));
                    String r = s.awaitMessage("SIP/2.0 ", Duration.ofSeconds(10));
                    assertTrue(r.startsWith("SIP/2.0 " + c[2]), c[0] + "/" + c[1] + ": " + r);
                }
            }
        }
    }
}
