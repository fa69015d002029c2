package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegisterAndOptionsIT {

    /** Long enough for a busy machine; each wait ends as soon as the answer is there. */
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    /**
     * The answer to one request over {@code t}: {@code request} makes it on a fresh socket, given the
     * socket and the server's host:port.
     */
    private static String answer(TestServer server, Transport t, BiFunction<SipSocket, String, String> request)
            throws Exception {
        try (SipSocket s = server.socket(t)) {
            s.send(request.apply(s, server.hostPort(t)));
            String r = s.receive(WAIT);
            assertNotNull(r, "no answer over " + t);
            return r;
        }
    }

    @Test
    void optionsToServerIsAnsweredOverUdpAndTcp() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            for (Transport t : List.of(Transport.UDP, Transport.TCP)) {
                String r = answer(server, t,
                        (s, hp) -> s.request("OPTIONS", "sip:" + hp, "alice", hp, "opt-" + t, 1, ""));
                assertTrue(r.startsWith("SIP/2.0 200"), r);
            }
        }
    }

    @Test
    void registerIsAnsweredWithBinding() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            String r = answer(server, Transport.UDP, (s, hp) -> s.request("REGISTER", "sip:" + hp, "alice",
                    "alice@" + hp, "reg-1", 1, s.contact("alice") + "Expires: 600\r\n"));
            assertTrue(r.startsWith("SIP/2.0 200"), r);
            assertTrue(r.contains("expires=600"), r);
        }
    }

    @Test
    void registerForAnotherDomainGets404() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            String r = answer(server, Transport.UDP, (s, hp) -> s.request("REGISTER", "sip:" + hp, "alice",
                    "alice@elsewhere.example", "reg-foreign", 1, s.contact("alice")));
            assertTrue(r.startsWith("SIP/2.0 404"), r);
        }
    }

    @Test
    void ipv6ListenerAnswersAndTagsReceivedInCompressedForm() throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", "udp:[::1]:0")) {
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = "[::1]:" + server.address(Transport.UDP).getPort();
                s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@" + hp, "reg-v6", 1,
                        s.contact("alice") + "Expires: 600\r\n"));
                String r = s.receive(WAIT);
                assertNotNull(r);
                assertTrue(r.startsWith("SIP/2.0 200"), r);
                assertTrue(r.contains("received=::1") || !r.contains("received="), r);
                assertTrue(r.contains("<sip:alice@[::1]:" + s.localPort() + ">;expires=600"), r);
            }
        }
    }

    @Test
    void proxyRequireOfAnExtensionGets420ListingItAsUnsupported() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            String r = answer(server, Transport.UDP, (s, hp) -> s.request("MESSAGE", "sip:bob@" + hp, "alice",
                    "bob@" + hp, "preq", 1, "Proxy-Require: foo, bar\r\n"));
            assertTrue(r.startsWith("SIP/2.0 420"), r);
            assertTrue(r.contains("Unsupported: foo") && r.contains("bar"), r);
        }
    }
}
