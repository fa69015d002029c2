package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SipBytesTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void callIdIsFoundInLongAndCompactFormAnyCase() {
        assertEquals("abc@h", SipBytes.callId(b("OPTIONS sip:x SIP/2.0\r\nVia: v\r\nCALL-ID:  abc@h \r\n\r\n")));
        assertEquals("xyz", SipBytes.callId(b("OPTIONS sip:x SIP/2.0\r\ni: xyz\r\n\r\n")));
    }

    @Test
    void requestMethodIsReadFromTheRequestLineOnly() {
        assertEquals("ACK", SipBytes.requestMethod(b("ACK sip:x SIP/2.0\r\nVia: v\r\n\r\n")));
        assertEquals("INVITE", SipBytes.requestMethod(b("INVITE sip:x SIP/2.0\r\n\r\n")));
        assertNull(SipBytes.requestMethod(b("SIP/2.0 200 OK\r\n\r\n")), "a response");
        assertNull(SipBytes.requestMethod(b("\r\nACK sip:x SIP/2.0\r\n\r\n")), "not at the start");
        assertNull(SipBytes.requestMethod(b("ack sip:x SIP/2.0\r\n\r\n")), "methods are case-sensitive");
        assertNull(SipBytes.requestMethod(b("ACK")), "no request line");
        assertNull(SipBytes.requestMethod(b("")));
    }

    @Test
    void headerCountsCountLongAndCompactFormsInOnePassAndStopAtTheBody() {
        String[][] names = {{"call-id", "i"}, {"cseq", null}, {"content-length", "l"}, {"from", "f"}};
        int[] counts = SipBytes.headerCounts(b("INVITE sip:x SIP/2.0\r\nCall-ID: a\r\ni: b\r\nCSeq: 1 INVITE\r\n"
                + "From: <sip:a@h>\r\nl: 3\r\nCONTENT-LENGTH : 3\r\nX-From: y\r\n\r\nf: body\r\n"), names);
        assertEquals(java.util.List.of(2, 1, 2, 1), java.util.Arrays.stream(counts).boxed().toList());
    }

    @Test
    void callIdInTheBodyIsIgnored() {
        assertNull(SipBytes.callId(b("OPTIONS sip:x SIP/2.0\r\nVia: v\r\n\r\nCall-ID: body\r\n")));
    }

    @Test
    void badRequestCopiesViaFromToCallIdCseqAndAddsToTag() {
        String req = "INVITE sip:bob@h SIP/2.0\r\nv: SIP/2.0/UDP 1.2.3.4;branch=z9hG4bKa\r\n"
                + "Via: SIP/2.0/UDP 5.6.7.8;branch=z9hG4bKb\r\nf: <sip:a@h>;tag=1\r\nt: <sip:b@h>\r\n"
                + "i: cid\r\nCSeq: 1 INVITE\r\nContent-Length: zz\r\n\r\n";
        String r = new String(BadRequestResponse.build(b(req), 400, "Bad\r\nContent-Length header"), StandardCharsets.UTF_8);
        assertTrue(r.startsWith("SIP/2.0 400 Bad  Content-Length header\r\n"), r);
        assertTrue(r.contains("v: SIP/2.0/UDP 1.2.3.4;branch=z9hG4bKa\r\nVia: SIP/2.0/UDP 5.6.7.8;branch=z9hG4bKb\r\n"), r);
        assertTrue(r.contains("t: <sip:b@h>;tag=sc400\r\n"), r);
        assertTrue(r.contains("i: cid\r\n") && r.contains("CSeq: 1 INVITE\r\n") && r.endsWith("Content-Length: 0\r\n\r\n"), r);
    }

    @Test
    void ackAndResponsesAndMessagesWithoutViaGetNoAnswer() {
        assertNull(BadRequestResponse.build(b("ACK sip:b@h SIP/2.0\r\nVia: x\r\nFrom: a\r\nTo: b\r\nCall-ID: c\r\nCSeq: 1 ACK\r\n\r\n"), 400, "x"));
        assertNull(BadRequestResponse.build(b("SIP/2.0 200 OK\r\nVia: x\r\nFrom: a\r\nTo: b\r\nCall-ID: c\r\nCSeq: 1 ACK\r\n\r\n"), 400, "x"));
        assertNull(BadRequestResponse.build(b("OPTIONS sip:b@h SIP/2.0\r\nFrom: a\r\nTo: b\r\nCall-ID: c\r\nCSeq: 1 OPTIONS\r\n\r\n"), 400, "x"));
        assertNotNull(BadRequestResponse.build(b("OPTIONS sip:b@h SIP/2.0\r\nVia: x\r\nFrom: a\r\nTo: b\r\nCall-ID: c\r\nCSeq: 1 OPTIONS\r\n\r\n"), 400, "x"));
    }
}
