package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stream framing by Content-Length, whole and one byte at a time, and the message fields the UAC reads. */
class StreamFramerTest {

    private static final String OK = "SIP/2.0 200 OK\r\n"
            + "v: SIP/2.0/TLS 127.0.0.1:5061;branch=z9hG4bKa, SIP/2.0/TLS 127.0.0.1:40000;branch=z9hG4bKb\r\n"
            + "Record-Route: <sip:127.0.0.1:5060;lr>, <sip:127.0.0.1:5061;transport=tls;lr>\r\n"
            + "From: <sip:a@x>;tag=1\r\nTo: <sip:b@y>;tag=2\r\ni: call-1\r\nCSeq: 1 INVITE\r\n"
            + "m: <sip:uas@127.0.0.1:5070;transport=udp>\r\nl: 4\r\n\r\nabcd";

    @Test
    void messagesAreCutByContentLengthWholeOrByteByByte() {
        byte[] two = ("\r\n\r\n" + OK + OK).getBytes(StandardCharsets.US_ASCII);
        assertEquals(2, new StreamFramer(65535).feed(two, 0, two.length).size());
        StreamFramer framer = new StreamFramer(65535);
        List<SipMessage> got = new ArrayList<>();
        for (int i = 0; i < two.length; i++) {
            got.addAll(framer.feed(two, i, 1));
        }
        assertEquals(2, got.size());
        SipMessage m = got.get(1);
        assertTrue(m.isResponse());
        assertEquals(200, m.status());
        assertEquals("call-1", m.callId());
        assertEquals("INVITE", m.cseqMethod());
        assertEquals("abcd", m.body());
        assertEquals(2, m.headers("Via").size());
        assertEquals(List.of("<sip:127.0.0.1:5060;lr>", "<sip:127.0.0.1:5061;transport=tls;lr>"), m.headers("Record-Route"));
        assertEquals("2", SipMessage.param(m.header("To"), "tag"));
        assertEquals("sip:uas@127.0.0.1:5070;transport=udp", SipMessage.uri(m.header("Contact")));
        assertEquals(5070, SipUri.address(SipMessage.uri(m.header("Contact"))).getPort());
        assertEquals(5061, SipUri.address("sip:127.0.0.1;transport=tls;lr").getPort());
    }

    @Test
    void aMessageWithoutContentLengthOrTooLargeIsAFramingError() {
        byte[] none = "OPTIONS sip:x SIP/2.0\r\nCall-ID: 1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThrows(IllegalArgumentException.class, () -> new StreamFramer(65535).feed(none, 0, none.length));
        byte[] big = OK.getBytes(StandardCharsets.US_ASCII);
        assertThrows(IllegalArgumentException.class, () -> new StreamFramer(100).feed(big, 0, big.length));
    }
}
