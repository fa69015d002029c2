package org.sipcrypt.server.sip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Registrations are bounded state: contacts per address-of-record ({@code registrar.maxContacts}),
 * bindings in all ({@code registrar.maxBindings}), and with them the REGISTER answer and the fan-out
 * of a forked INVITE.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RegistrarLimitsIT {

    private static final Duration WAIT = Duration.ofSeconds(5);
    /** A contact written by {@link #contacts}, however the answer groups them into header lines. */
    private static final Pattern CONTACT = Pattern.compile("<sip:[a-z]+-\\d+@");
    private static final Pattern BRANCH = Pattern.compile("(?i)branch=([^;,\\s]+)");

    @TempDir
    Path dir;

    /** Contact header lines {@code sip:USER-i@127.0.0.1:PORT} for i in [from, to). */
    private static String contacts(String user, int port, int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            sb.append("Contact: <sip:").append(user).append('-').append(i).append("@127.0.0.1:").append(port)
                    .append(">\r\n");
        }
        return sb.toString();
    }

    private static String register(TestServer server, SipSocket s, String user, String callId, int cseq,
                                   String extra) throws Exception {
        String hp = server.hostPort(Transport.UDP);
        s.send(s.request("REGISTER", "sip:" + hp, user, user + "@127.0.0.1", callId, cseq,
                extra + "Expires: 600\r\n"));
        String r = s.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(r, "no answer to REGISTER " + callId + "/" + cseq);
        return r;
    }

    private static long count(Pattern p, String message) {
        return p.matcher(message).results().count();
    }

    @Test
    void eleventhContactIsRefusedWith403NamingTheLimit() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String ten = register(server, s, "alice", "limits", 1, contacts("alice", 5999, 0, 10));
            assertTrue(ten.startsWith("SIP/2.0 200"), ten);
            assertEquals(10, count(CONTACT, ten), ten);

            String eleventh = register(server, s, "alice", "limits", 2, contacts("alice", 5999, 10, 11));
            assertTrue(eleventh.startsWith("SIP/2.0 403 Too Many Contacts (limit 10 per address-of-record)"),
                    eleventh);

            // a refresh of a binding it has still passes, and the eleventh was not stored
            String refresh = register(server, s, "alice", "limits", 3, contacts("alice", 5999, 3, 4));
            assertTrue(refresh.startsWith("SIP/2.0 200"), refresh);
            assertEquals(10, count(CONTACT, refresh), refresh);
            assertTrue(!refresh.contains("alice-10@"), refresh);
        }
    }

    @Test
    void requestWithMoreContactsThanTheLimitIsRefusedWhole() throws Exception {
        try (TestServer server = TestServer.start(dir, "registrar.maxContacts", "4");
             SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String r = register(server, s, "bob", "too-many", 1, contacts("bob", 5999, 0, 5));
            assertTrue(r.startsWith("SIP/2.0 403 Too Many Contacts (limit 4 per address-of-record)"), r);

            String query = register(server, s, "bob", "too-many", 2, "");
            assertTrue(query.startsWith("SIP/2.0 200"), query);
            assertEquals(0, count(CONTACT, query), "nothing stored: " + query);
        }
    }

    @Test
    void bindingBeyondMaxBindingsGets503AndRefreshesStillPass() throws Exception {
        try (TestServer server = TestServer.start(dir, "registrar.maxContacts", "2", "registrar.maxBindings", "3");
             SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            assertTrue(register(server, s, "a", "full-a", 1, contacts("a", 5999, 0, 2)).startsWith("SIP/2.0 200"));
            assertTrue(register(server, s, "b", "full-b", 1, contacts("b", 5999, 0, 1)).startsWith("SIP/2.0 200"));

            String full = register(server, s, "c", "full-c", 1, contacts("c", 5999, 0, 1));
            assertTrue(full.startsWith("SIP/2.0 503 Registrar Full (limit 3 bindings)"), full);
            assertTrue(full.contains("Retry-After:"), full);

            assertTrue(register(server, s, "a", "full-a", 2, contacts("a", 5999, 0, 1)).startsWith("SIP/2.0 200"));
        }
    }

    @Test
    void forkedInviteReachesAtMostMaxContactsBranches() throws Exception {
        Path data = dir.resolve("data");
        try (SipSocket sink = SipSocket.udp(new java.net.InetSocketAddress("127.0.0.1", 9))) {
            // An AOR registered with 15 contacts while the limit was 20 ...
            try (TestServer before = TestServer.start(data, "registrar.maxContacts", "20");
                 SipSocket s = SipSocket.udp(before.address(Transport.UDP))) {
                String r = register(before, s, "carol", "fan-out", 1, contacts("carol", sink.localPort(), 0, 15));
                assertTrue(r.startsWith("SIP/2.0 200"), r);
                assertEquals(15, count(CONTACT, r), r);
            }
            // ... forks to 10 once the limit is 10.
            try (TestServer server = TestServer.start(data, "registrar.maxContacts", "10", "proxy.timerC", "3m");
                 SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = server.hostPort(Transport.UDP);
                caller.send(caller.request("INVITE", "sip:carol@" + hp, "dave", "carol@127.0.0.1", "fork", 1,
                        caller.contact("dave")));
                Set<String> branches = new HashSet<>();
                // until ten branches came (generous on a busy machine), then one more second for an eleventh
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                long extra = Long.MAX_VALUE;
                while (System.nanoTime() < Math.min(deadline, extra)) {
                    if (branches.size() >= 10 && extra == Long.MAX_VALUE) {
                        extra = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                    }
                    String m = sink.receive(Duration.ofMillis(300));
                    if (m != null && m.startsWith("INVITE ")) {
                        Matcher b = BRANCH.matcher(m);
                        assertTrue(b.find(), m);
                        branches.add(b.group(1));
                    }
                }
                assertEquals(10, branches.size(), "INVITE branches reaching the contacts: " + branches);
            }
        }
    }
}
