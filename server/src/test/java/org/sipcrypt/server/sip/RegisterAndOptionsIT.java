package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegisterAndOptionsIT {

    @TempDir
    Path dir;

    @Test
    void optionsToServerIsAnsweredOverUdpAndTcp() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            for (Transport t : List.of(Transport.UDP, Transport.TCP)) {
                try (SipSocket s = server.socket(t)) {
                    String hp = server.hostPort(t);
                    s.send(s.request("OPTIONS", "sip:" + hp, "alice", hp, "opt-" + t, 1, ""));
                    String r = s.receive(Duration.ofSeconds(5));
                    assertNotNull(r, "no answer over " + t);
                    assertTrue(r.startsWith("SIP/2.0 200"), r);
                }
            }
        }
    }

    @Test
    void registerIsAnsweredWithBinding() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = server.hostPort(Transport.UDP);
                s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@" + hp, "reg-1", 1,
                        s.contact("alice") + "Expires: 600\r\n"));
                String r = s.receive(Duration.ofSeconds(5));
                assertNotNull(r);
                assertTrue(r.startsWith("SIP/2.0 200"), r);
                assertTrue(r.contains("expires=600"), r);
            }
        }
    }

    @Test
    void registerForAnotherDomainGets404() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = server.hostPort(Transport.UDP);
                s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@elsewhere.example", "reg-foreign", 1,
                        s.contact("alice")));
                String r = s.receive(Duration.ofSeconds(5));
                assertNotNull(r);
                assertTrue(r.startsWith("SIP/2.0 404"), r);
            }
        }
    }

    @Test
    void ipv6ListenerAnswersAndTagsReceivedInCompressedForm() throws Exception {
        try (TestServer server = TestServer.start(dir, "listen", "udp:[::1]:0")) {
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = "[::1]:" + server.address(Transport.UDP).getPort();
                s.send(s.request("REGISTER", "sip:" + hp, "alice", "alice@" + hp, "reg-v6", 1,
                        s.contact("alice") + "Expires: 600\r\n"));
                String r = s.receive(Duration.ofSeconds(5));
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
            try (SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
                String hp = server.hostPort(Transport.UDP);
                s.send(s.request("MESSAGE", "sip:bob@" + hp, "alice", "bob@" + hp, "preq", 1,
                        "Proxy-Require: foo, bar\r\n"));
                String r = s.receive(Duration.ofSeconds(5));
                assertNotNull(r);
                assertTrue(r.startsWith("SIP/2.0 420"), r);
                assertTrue(r.contains("Unsupported: foo") && r.contains("bar"), r);
            }
        }
    }
}
