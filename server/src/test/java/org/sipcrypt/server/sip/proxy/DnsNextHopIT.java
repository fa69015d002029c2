package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.dns.DnsRecordType;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestDnsServer;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/**
 * RFC 3263 through the real server: a call to {@code sip:bob@example.test}, a domain the proxy
 * neither serves nor routes, is sent where the DNS server the test runs on loopback says: SRV
 * records for {@code _sip._tcp.example.test} name a dead UAS (a closed port) first and the live
 * one second; the connect to the first fails and the call reaches the second (§4.3). The ACK for a
 * 2xx, forwarded statelessly, is located too. A name the
 * DNS server never answers for gets its call answered once {@code dns.timeout} has passed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsNextHopIT {

    @TempDir
    Path dir;

    private static int closedTcpPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static double count(MeterRegistry registry, String result) {
        Counter c = registry.find("dns.resolutions").tag("result", result).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void callFollowsSrvRecordsPastADeadServerToTheLiveOne() throws Exception {
        try (TestDnsServer dns = TestDnsServer.start("127.0.0.1");
             TestUa bob = TestUa.start("bob", "example.test", Transport.TCP);
             TestServer proxy = TestServer.start(dir, "dns.servers", dns.hostPort());
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            dns.srv("_sip._tcp.example.test", 10, 0, closedTcpPort(), "dead.example.test", 60)
                    .srv("_sip._tcp.example.test", 20, 0, bob.port(), "live.example.test", 60)
                    .a("dead.example.test", "127.0.0.1", 60)
                    .a("live.example.test", "127.0.0.1", 60);

            TestUa.Call call = alice.call(bob.aor(), proxy.address(Transport.UDP));

            Request invite = bob.awaitRequest(Request.INVITE, TestUa.TIMEOUT);
            assertEquals("sip:bob@example.test", invite.getRequestURI().toString());
            assertEquals(1, dns.queries("example.test", DnsRecordType.NAPTR));
            assertEquals(1, dns.queries("_sip._tcp.example.test", DnsRecordType.SRV));
            bob.awaitRequest(Request.ACK, TestUa.TIMEOUT);
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            assertEquals(1.0, count(proxy.server().registry(), "resolved"));
            // the first address refused the connect: the INVITE was sent again to the second (RFC 3263 §4.3)
            assertEquals(1.0, proxy.server().registry().find("sip.app.errors").tag("reason", "next_hop_failover")
                    .counter().count());

            // a second call takes the answer from the cache: no new query
            TestUa.Call again = alice.call(bob.aor(), proxy.address(Transport.UDP));
            assertEquals(Response.OK, again.hangUp().getStatusCode());
            assertEquals(1, dns.queries("_sip._tcp.example.test", DnsRecordType.SRV));
            assertEquals(1.0, count(proxy.server().registry(), "cached"));
            assertEquals(java.util.List.of(), bob.errors());
        }
    }

    @Test
    void anAckForA2xxToANamedHostIsForwardedToItsLocatedAddress() throws Exception {
        try (TestDnsServer dns = TestDnsServer.start("127.0.0.1");
             TestServer proxy = TestServer.start(dir, "dns.servers", dns.hostPort());
             SipSocket alice = SipSocket.udp(proxy.address(Transport.UDP));
             SipSocket bob = SipSocket.udp(proxy.address(Transport.UDP))) {
            dns.a("bobhost.test", "127.0.0.1", 60);
            String uri = "sip:bob@bobhost.test:" + bob.localPort();
            // the ACK for a 2xx (To tag set), forwarded statelessly (RFC 3261 §16.11) to its Request-URI
            alice.send("ACK " + uri + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:" + alice.localPort() + ";branch=z9hG4bKack-dns-1;rport\r\n"
                    + "Max-Forwards: 70\r\n"
                    + "From: <sip:alice@127.0.0.1>;tag=alice-tag\r\n"
                    + "To: <sip:bob@bobhost.test>;tag=bob-tag\r\n"
                    + "Call-ID: ack-dns-1\r\n"
                    + "CSeq: 1 ACK\r\n"
                    + "Content-Length: 0\r\n\r\n");
            String forwarded = bob.receive(TestUa.TIMEOUT);
            assertTrue(forwarded.startsWith("ACK " + uri + " SIP/2.0"), forwarded);
            assertEquals(1, dns.queries("bobhost.test", DnsRecordType.A));
            assertEquals(0, dns.queries("bobhost.test", DnsRecordType.NAPTR));
        }
    }

    @Test
    void aNameTheDnsServerNeverAnswersForEndsTheCallAfterTheTimeout() throws Exception {
        try (TestDnsServer dns = TestDnsServer.start("127.0.0.1");
             TestServer proxy = TestServer.start(dir, "dns.servers", dns.hostPort(), "dns.timeout", "300ms");
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            dns.silent(true);
            TestUa.Call call = alice.invite(alice.uri("bob", "silent.test"), proxy.address(Transport.UDP));
            Response last = call.invite().awaitFinal(TestUa.TIMEOUT);
            assertEquals(Response.SERVER_INTERNAL_ERROR, last.getStatusCode());
            assertTrue(dns.queries("silent.test", DnsRecordType.NAPTR) >= 1);
            assertEquals(1.0, count(proxy.server().registry(), "timeout"));
        }
    }
}
