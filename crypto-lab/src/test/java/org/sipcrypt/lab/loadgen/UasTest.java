package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.Transport;

/** The UAS on UDP: a retransmitted INVITE gets the 200 again, and the 200 is retransmitted until the ACK. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UasTest {

    private static final String INVITE = "INVITE sip:lab-uas@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bKt1\r\nFrom: <sip:a@x>;tag=1\r\nTo: <sip:lab-uas@127.0.0.1>\r\n"
            + "Call-ID: uas-test-1\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n";

    private static List<String> receive(DatagramSocket s, int atMost, int waitMillis) throws Exception {
        List<String> got = new ArrayList<>();
        s.setSoTimeout(waitMillis);
        byte[] buf = new byte[65535];
        try {
            while (got.size() < atMost) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                s.receive(p);
                got.add(new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8));
            }
        } catch (java.net.SocketTimeoutException enough) {
            return got;
        }
        return got;
    }

    @Test
    void aRetransmittedInviteIsAnsweredAgainAndThe200RepeatsUntilTheAck() throws Exception {
        try (Uas uas = new Uas();
             DatagramSocket caller = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            InetSocketAddress at = uas.listen(Transport.UDP, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null);
            byte[] invite = String.format(INVITE, caller.getLocalPort()).getBytes(StandardCharsets.UTF_8);
            caller.send(new DatagramPacket(invite, invite.length, at));
            List<String> first = receive(caller, 3, 2000);
            assertEquals(3, first.size(), "100, 180 and 200: " + first);
            assertTrue(first.get(2).startsWith("SIP/2.0 200 OK"));
            caller.send(new DatagramPacket(invite, invite.length, at));
            // the retransmitted INVITE gets the 200 again, and Timer G repeats it (500 ms, then 1 s)
            List<String> again = receive(caller, 3, 1700);
            assertTrue(again.size() >= 2 && again.stream().allMatch(m -> m.startsWith("SIP/2.0 200 OK")), again.toString());
            String toTag = first.get(2).lines().filter(l -> l.startsWith("To:")).findFirst().orElseThrow().substring(3).trim();
            byte[] ack = ("ACK sip:lab-uas@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:" + caller.getLocalPort()
                    + ";branch=z9hG4bKt2\r\nFrom: <sip:a@x>;tag=1\r\nTo: " + toTag + "\r\nCall-ID: uas-test-1\r\n"
                    + "CSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
            caller.send(new DatagramPacket(ack, ack.length, at));
            receive(caller, 10, 300);
            assertEquals(0, receive(caller, 1, 2500).size(), "no 200 after the ACK");
            assertTrue(uas.counters().retransmissions() >= 1);
            assertEquals(1, uas.requests("ACK"));
        }
    }
}
