package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * Attacks with forged responses and requests that would make the proxy send on its own, played
 * against the real server with its defaults (no credentials needed): a response with a branch of
 * the proxy's form but not written by it is neither relayed to the address in its next Via
 * (reflection, amplification with a large body) nor kept for later retransmissions to trigger, over
 * UDP and TCP; an ACK without Max-Forwards addressed back to the proxy under another spelling of its
 * address is not relayed round and round; and a relayed ACK without Max-Forwards gets one.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForgedResponsesIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A body that makes a relayed copy worth sending: the amplification the attack is after. */
    private static final String BIG_BODY = "x".repeat(20_000);

    @TempDir
    Path dir;

    @Test
    void aForgedResponseIsNeitherReflectedNorKeptOverUdp() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket attacker = server.socket(Transport.UDP);
             DatagramSocket victim = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0))) {
            String proxy = server.hostPort(Transport.UDP);
            String victimVia = "SIP/2.0/UDP 127.0.0.2:" + victim.getLocalPort()
                    + ";branch=z9hG4bK-victim-1;received=127.0.0.2;rport=" + victim.getLocalPort();
            Counter dropped = unvouched(server.server().registry());
            double before = dropped.count();
            // the relay's stateless form (taken from bytes), then the stateful form (the stack's path)
            attacker.send(forgedResponse("UDP", proxy, "z9hG4bK-sc-0123456789abcdef.0011223344556677.s", victimVia));
            attacker.send(forgedResponse("UDP", proxy, "z9hG4bK-sc-0123456789abcdef.1.0011223344556677", victimVia));
            Await.until(() -> dropped.count() >= before + 2, WAIT, () -> "both forged responses dropped as unvouched");
            // a request naming the victim's Via: what would make a kept answer go to the victim again
            attacker.send("OPTIONS sip:" + proxy + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.2:" + victim.getLocalPort() + ";branch=z9hG4bK-victim-1\r\n"
                    + "Max-Forwards: 70\r\nFrom: <sip:a@127.0.0.1>;tag=1\r\nTo: <sip:" + proxy + ">\r\n"
                    + "Call-ID: forged-1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n");
            assertEquals(List.of(), received(victim, Duration.ofSeconds(1)), "the victim got datagrams");
        }
    }

    @Test
    void aForgedResponseOverTcpOpensNoConnectionToTheAddressItNames() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket attacker = server.socket(Transport.TCP);
             ServerSocket victim = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.2"))) {
            String proxy = server.hostPort(Transport.TCP);
            String victimVia = "SIP/2.0/TCP 127.0.0.2:" + victim.getLocalPort()
                    + ";branch=z9hG4bK-victim-2;received=127.0.0.2;rport=" + victim.getLocalPort();
            Counter dropped = unvouched(server.server().registry());
            double before = dropped.count();
            attacker.send(forgedResponse("TCP", proxy, "z9hG4bK-sc-0123456789abcdef.7.0011223344556677", victimVia));
            attacker.send(forgedResponse("TCP", proxy, "z9hG4bK-sc-0123456789abcdef.0011223344556677.s", victimVia));
            Await.until(() -> dropped.count() >= before + 2, WAIT, () -> "both forged responses dropped as unvouched");
            victim.setSoTimeout(1_000);
            boolean connected;
            try (var s = victim.accept()) {
                connected = true;
            } catch (SocketTimeoutException e) {
                connected = false;
            }
            assertEquals(false, connected, "the proxy connected to the address a forged Via named");
        }
    }

    @Test
    void anAckWithoutMaxForwardsToAnotherSpellingOfTheProxysAddressIsNotRelayed() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket attacker = server.socket(Transport.UDP)) {
            int port = server.address(Transport.UDP).getPort();
            for (String host : List.of("127.0.0.01", "127.1", "2130706433", "127.000.000.001")) {
                attacker.send("ACK sip:x@" + host + ":" + port + " SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP 127.0.0.1:" + attacker.localPort() + ";branch=z9hG4bK-loop-" + host + "\r\n"
                        + "From: <sip:a@127.0.0.1>;tag=a\r\nTo: <sip:x@127.0.0.1>;tag=b\r\n"
                        + "Call-ID: loop-" + host + "\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n");
            }
            // an answered OPTIONS after the ACKs: each ACK has been handled by then, and a loop would be under way
            attacker.exchange("OPTIONS sip:" + server.hostPort(Transport.UDP) + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:" + attacker.localPort() + ";branch=z9hG4bK-after-loop;rport\r\n"
                    + "Max-Forwards: 70\r\nFrom: <sip:a@127.0.0.1>;tag=1\r\nTo: <sip:x@127.0.0.1>\r\n"
                    + "Call-ID: after-loop\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n", "SIP/2.0 200", WAIT);
            // a grace for ACKs on other lanes than the OPTIONS: a loop relays hundreds of times in it
            Thread.sleep(500);
            double forwarded = server.server().registry().find("sip.proxy.forwarded").counters().stream()
                    .filter(c -> c.getId().getTag("method").equalsIgnoreCase("ack"))
                    .mapToDouble(Counter::count).sum();
            double early = server.server().registry().find("sip.requests.relayed_early").counters().stream()
                    .mapToDouble(Counter::count).sum();
            assertEquals(0.0, forwarded + early, "an ACK addressed to the proxy itself was relayed");
        }
    }

    @Test
    void aRelayedAckWithoutMaxForwardsGetsOne() throws Exception {
        try (TestServer server = TestServer.start(dir);
             SipSocket caller = server.socket(Transport.UDP);
             SipSink callee = SipSink.start()) {
            caller.send("ACK " + callee.uri("bob") + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:" + caller.localPort() + ";branch=z9hG4bK-ack-mf\r\n"
                    + "From: <sip:a@127.0.0.1>;tag=a\r\nTo: <sip:bob@127.0.0.1>;tag=b\r\n"
                    + "Call-ID: ack-mf\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n");
            String ack = callee.await("ACK", WAIT);
            assertTrue(ack.contains("\r\nMax-Forwards: 70\r\n"), "no Max-Forwards on the relayed ACK:\n" + ack);
        }
    }

    /** A 200 to an OPTIONS with our sent-by and {@code branch} on top and {@code next} below, with a large body. */
    private static String forgedResponse(String transport, String proxyHostPort, String branch, String next) {
        return "SIP/2.0 200 OK\r\n"
                + "Via: SIP/2.0/" + transport + " " + proxyHostPort + ";branch=" + branch + "\r\n"
                + "Via: " + next + "\r\n"
                + "From: <sip:a@127.0.0.1>;tag=forger\r\nTo: <sip:b@127.0.0.1>;tag=forged\r\n"
                + "Call-ID: forged-" + branch + "\r\nCSeq: 1 OPTIONS\r\n"
                + "Content-Type: text/plain\r\nContent-Length: " + BIG_BODY.length() + "\r\n\r\n" + BIG_BODY;
    }

    private static Counter unvouched(MeterRegistry registry) {
        return registry.counter("sip.app.errors", "reason", "unvouched_response");
    }

    /** The first lines of the datagrams {@code socket} receives until it has been quiet for {@code quiet}. */
    private static List<String> received(DatagramSocket socket, Duration quiet) throws IOException {
        List<String> got = new ArrayList<>();
        socket.setSoTimeout((int) quiet.toMillis());
        byte[] buf = new byte[65_535];
        while (true) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
            } catch (SocketTimeoutException e) {
                return got;
            }
            String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
            got.add(m.lines().findFirst().orElse(""));
        }
    }
}
