package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
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

    static String msg(String firstLine, SipSocket s, String server, String extra, String callId, int cseq, String method) {
        return firstLine + "\r\n"
                + "Via: SIP/2.0/" + s.transport() + " 127.0.0.1:" + s.localPort() + ";branch=z9hG4bK" + callId + cseq + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@" + server + ">;tag=a1\r\n"
                + "To: <sip:alice@" + server + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + extra
                + "Content-Length: 0\r\n\r\n";
    }

    @Test
    void optionsToServerIsAnsweredOverUdpAndTcp() throws Exception {
        try (TestServer server = TestServer.start(dir)) {
            for (Transport t : Transport.values()) {
                try (SipSocket s = t == Transport.UDP ? SipSocket.udp(server.address(t)) : SipSocket.tcp(server.address(t))) {
                    String hp = server.hostPort(t);
                    s.send(msg("OPTIONS sip:" + hp + " SIP/2.0", s, hp, "", "opt-" + t, 1, "OPTIONS"));
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
                s.send(msg("REGISTER sip:" + hp + " SIP/2.0", s, hp,
                        "Contact: <sip:alice@127.0.0.1:" + s.localPort() + ">\r\nExpires: 600\r\n", "reg-1", 1, "REGISTER"));
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
                s.send(msg("REGISTER sip:" + hp + " SIP/2.0", s, "elsewhere.example",
                        "Contact: <sip:alice@127.0.0.1:" + s.localPort() + ">\r\n", "reg-foreign", 1, "REGISTER"));
                String r = s.receive(Duration.ofSeconds(5));
                assertNotNull(r);
                assertTrue(r.startsWith("SIP/2.0 404"), r);
            }
        }
    }
}
