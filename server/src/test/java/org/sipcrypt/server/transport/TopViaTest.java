package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TopViaTest {

    private static final InetSocketAddress SOURCE = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5099);

    private static TopVia read(String viaLines) {
        return TopVia.read(("INVITE sip:bob@127.0.0.1 SIP/2.0\r\n" + viaLines + "Call-ID: c\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theFirstEntryOfTheFirstViaLineIsRead() {
        TopVia via = read("v: SIP/2.0/UDP Host.Example:5070 ; branch=z9hG4bK-1;rport,"
                + " SIP/2.0/UDP 10.0.0.9;branch=z9hG4bK-2\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK-3\r\n");
        assertNotNull(via);
        assertEquals("SIP/2.0/UDP Host.Example:5070 ; branch=z9hG4bK-1;rport", via.entry());
        assertEquals("Host.Example", via.host());
        assertEquals(5070, via.port());
        assertEquals("z9hG4bK-1", via.branch());
        assertTrue(via.rport());
        TopVia plain = read("Via: SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK-3\r\n");
        assertEquals(-1, plain.port());
        assertFalse(plain.rport());
        assertNull(read("Via: SIP/2.0/UDP 10.0.0.8\r\n"), "no branch");
        assertNull(read(""), "no Via");
    }

    @Test
    void aBranchThatIsNotATokenOrAHostWithOtherCharactersIsLeftToTheParser() {
        // found by the fuzzer's differential check: the parse reads the branch z9(G4bK-1 as z9
        assertNull(read("Via: SIP/2.0/UDP 10.0.0.8;branch=z9(G4bK-1\r\n"));
        assertNull(read("Via: SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK\"1\r\n"));
        assertNull(read("Via: SIP/2.0/UDP 10.0(0.8;branch=z9hG4bK-1\r\n"));
        assertNull(read("Via: SIP/2.0/UDP 10.0.0.8;branch=\r\n"), "an empty branch");
        assertNull(read("Via: SIP/2.0/UDP 10.0.0.8;bra SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK-1\r\n"),
                "found by the fuzzer: the parse reads no branch here");
    }

    @Test
    void rportIsFilledAndReceivedAddedAsTheTransportTagsAParsedRequest() {
        // RFC 3581 §4: rport asked for, so received and rport carry the source, whatever the host says
        assertEquals("SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;received=127.0.0.1;rport=5099",
                read("Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;rport\r\n").tagged(SOURCE));
        assertEquals("SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;x=1;received=127.0.0.1;rport=5099",
                read("Via: SIP/2.0/UDP 127.0.0.1:5070;rport=1;branch=z9hG4bK-1;received=10.9.9.9;x=1\r\n")
                        .tagged(SOURCE), "a stale rport value and received are replaced");
        // RFC 3261 §18.2.1: another host gets received; the same host and no rport leave the Via as it came
        assertEquals("SIP/2.0/UDP pc.example:5070;branch=z9hG4bK-2;received=127.0.0.1",
                read("Via: SIP/2.0/UDP pc.example:5070;branch=z9hG4bK-2\r\n").tagged(SOURCE));
        assertEquals("SIP/2.0/UDP 127.0.0.1:5070 ;branch=z9hG4bK-3",
                read("Via: SIP/2.0/UDP 127.0.0.1:5070 ;branch=z9hG4bK-3\r\n").tagged(SOURCE));
    }

    @Test
    void aResponseBuiltWithTheTopViaTagsOnlyItsFirstEntry() {
        String request = "INVITE sip:bob@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;rport,"
                + " SIP/2.0/UDP 10.0.0.9;branch=z9hG4bK-2;rport\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK-3\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a\r\nTo: <sip:bob@127.0.0.1>\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\n"
                + "Contact: <sip:alice@127.0.0.1:5070>\r\nContent-Length: 0\r\n\r\n";
        byte[] bytes = request.getBytes(StandardCharsets.UTF_8);
        byte[] answer = BadRequestResponse.build(bytes, 407, "Proxy Authentication Required", "t1",
                "Proxy-Authenticate: Digest realm=\"r\"\r\n", TopVia.read(bytes), SOURCE);
        assertEquals("SIP/2.0 407 Proxy Authentication Required\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1;received=127.0.0.1;rport=5099,"
                + " SIP/2.0/UDP 10.0.0.9;branch=z9hG4bK-2;rport\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK-3\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a\r\nTo: <sip:bob@127.0.0.1>;tag=t1\r\n"
                + "Call-ID: c1\r\nCSeq: 1 INVITE\r\n"
                + "Proxy-Authenticate: Digest realm=\"r\"\r\n"
                + "Content-Length: 0\r\n\r\n", new String(answer, StandardCharsets.UTF_8));
    }
}
