package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPostgres;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/** The location service on a real PostgreSQL server, chosen by JDBC URL: registrations work and survive a restart. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresLocationIT {

    @RegisterExtension
    static final TestPostgres.PerClass postgres = new TestPostgres.PerClass();

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void registrationIsStoredInPostgresAndSurvivesARestart() throws Exception {
        try (TestServer server = TestServer.start(dir, "db", postgres.url(), "db.user", "sipcrypt")) {
            String hp = server.hostPort(Transport.UDP);
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                s.exchange(s.request("REGISTER", "sip:" + hp, "dave", "dave@" + hp, "pg-1", 1,
                        s.contact("dave") + "Expires: 600\r\n"), "SIP/2.0 200", WAIT);
            }
            server.restart();
            String hp2 = server.hostPort(Transport.UDP);
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                // a REGISTER without Contact is a query: it lists the stored bindings
                String r = s.exchange(s.request("REGISTER", "sip:" + hp2, "dave", "dave@" + hp2, "pg-2", 1, ""),
                        "SIP/2.0 200", WAIT);
                assertTrue(r.contains("<sip:dave@127.0.0.1:"), "binding lost across the restart: " + r);
            }
        }
    }

    /**
     * Schema 5 on PostgreSQL: a Path from a trusted peer is stored in {@code bindings.path} and,
     * after a restart, still routes a call to the phone through the Path's first hop.
     */
    @Test
    void aBindingsPathIsStoredInPostgresAndRoutesAfterARestart() throws Exception {
        try (TestServer server = TestServer.start(dir, "db", postgres.url(), "db.user", "sipcrypt",
                "auth.trustedPeers", "127.0.0.1");
             SipSocket edge = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            String path = "Path: <sip:127.0.0.1:" + edge.localPort() + ";lr>\r\nSupported: path\r\n";
            String ok = edge.exchange(edge.request("REGISTER", "sip:" + hp, "erin", "erin@" + hp, "pg-path-1", 1,
                    "Contact: <sip:erin@198.51.100.9:5060>\r\nExpires: 600\r\n" + path), "SIP/2.0 200", WAIT);
            assertTrue(ok.contains("sip:127.0.0.1:" + edge.localPort()), "the Path is echoed: " + ok);
            server.restart();
            String hp2 = server.hostPort(Transport.UDP);
            try (SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
                caller.send(caller.request("INVITE", "sip:erin@" + hp2, "alice", "erin@" + hp2, "pg-path-2", 1,
                        caller.contact("alice")));
                String invite = edge.awaitMessage("INVITE ", WAIT);
                assertTrue(invite != null && invite.startsWith("INVITE sip:erin@198.51.100.9:5060 ")
                        && invite.contains("sip:127.0.0.1:" + edge.localPort() + ";lr"),
                        "the call takes erin's stored Path: " + invite);
                // not answered: the edge's socket still names the server's port before the restart
            }
        }
    }
}
