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

    /** An in-dialog BYE of plain form, with {@code extra} header lines before Content-Length. */
    private static byte[] bye(String from, String extra) {
        return b("BYE sip:bob@127.0.0.1:5070 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKb1\r\n"
                + "Max-Forwards: 70\r\nFrom: " + from + "\r\nTo: <sip:bob@127.0.0.1>;tag=callee\r\n"
                + "CSeq: 2 BYE\r\n" + extra + "Content-Length: 0\r\n\r\n");
    }

    private static final String FROM = "\"Alice\" <sip:alice@127.0.0.1>;tag=signed";

    @Test
    void aPlainMessageIsRegular() {
        assertNull(SipBytes.irregularity(bye(FROM, "Call-ID: c1@127.0.0.1\r\n")));
        assertNull(SipBytes.irregularity(bye(FROM, "Call-ID : c1\r\nX-Ok.Name_1+%!*`'~ :\tv\r\n")),
                "SP and HTAB before the colon, every token character in a name");
        assertNull(SipBytes.irregularity(b(new String(bye(FROM, "i: c1\r\n"), StandardCharsets.UTF_8)
                .replace("\r\n", "\n"))), "bare LF line ends");
    }

    @Test
    void aControlCharacterInAHeaderNameIsIrregular() {
        // issue 45: Call-ID: NEW plus Call-ID\x01: <signed Call-ID>
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: NEW\r\nCall-ID\u0001: signed@h\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID\u0001: signed@h\r\nCall-ID: NEW\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\nCall\u0000ID: x\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\nX\u000bY: x\r\n")));
    }

    @Test
    void aHeaderNameThatIsNotATokenIsIrregular() {
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\nCall ID: x\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\nX(y): x\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\n\u00e9t\u00e9: x\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\nno colon here\r\n")));
        assertEquals("header_name", SipBytes.irregularity(bye(FROM, "Call-ID: c\r\n: no name\r\n")));
    }

    @Test
    void aRepeatedHeaderTheReadersReadIsIrregular() {
        assertEquals("duplicate_header", SipBytes.irregularity(bye(FROM, "Call-ID: NEW\r\nCall-ID: c1\r\n")));
        assertEquals("duplicate_header", SipBytes.irregularity(bye(FROM, "Call-ID: a\r\ni: a\r\n")),
                "a compact and a long form count together");
        assertEquals("duplicate_header", SipBytes.irregularity(bye(FROM, "Call-ID: a\r\nf: <sip:x@h>;tag=2\r\n")));
        assertEquals("duplicate_header", SipBytes.irregularity(bye(FROM, "Call-ID: a\r\nl: 0\r\n")),
                "even the same Content-Length twice");
        assertEquals("duplicate_header", SipBytes.irregularity(bye(FROM, "Call-ID: a\r\nmax-forwards: 9\r\n")));
        assertEquals("duplicate_header", SipBytes.irregularity(bye(FROM, "Call-ID: a\r\nCSEQ: 3 BYE\r\n")));
        assertNull(SipBytes.irregularity(bye(FROM, "Call-ID: a\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKc\r\n"
                + "Route: <sip:127.0.0.1;lr>\r\nRoute: <sip:127.0.0.2;lr>\r\n")), "Via and Route may repeat");
    }

    @Test
    void aFromOrToWithTwoTagsIsIrregular() {
        // issue 45: From: ...;tag=<signed>;tag=other
        assertEquals("header_params", SipBytes.irregularity(bye(FROM + ";tag=other", "Call-ID: c\r\n")));
        assertEquals("header_params", SipBytes.irregularity(bye("sip:alice@127.0.0.1;tag=a;TAG = b", "i: c\r\n")));
        assertEquals("header_params", SipBytes.irregularity(bye(FROM + ";x=\">;tag=y\"", "i: c\r\n")),
                "a quoted parameter value");
        assertEquals("header_params", SipBytes.irregularity(bye("<sip:alice@127.0.0.1>;tag=a b", "i: c\r\n")),
                "a tag that is not a token");
        assertEquals("header_params", SipBytes.irregularity(bye("sip:alice@exam?ple.com;tag=1", "i: c\r\n")),
                "found by the fuzzer: the parse reads what follows '?' as the URI's headers");
        assertNull(SipBytes.irregularity(bye("\"a;tag=x\" <sip:alice@127.0.0.1;tag=uri>;tag=one", "i: c\r\n")),
                "tags inside the display name or the URI are not the header's");
    }

    @Test
    void foldedLinesControlCharactersAndAMissingBlankLineAreIrregular() {
        assertEquals("folded_line", SipBytes.irregularity(bye(FROM, "Call-ID: a\r\n b\r\n")));
        assertEquals("control_character", SipBytes.irregularity(bye(FROM, "Call-ID: a\u0000b\r\n")));
        assertEquals("control_character", SipBytes.irregularity(bye(FROM, "Call-ID: a\rX: b\r\n")), "a bare CR");
        assertEquals("no_blank_line", SipBytes.irregularity(b("BYE sip:b@h SIP/2.0\r\nCall-ID: a\r\n")));
    }

    @Test
    void theTagReaderTakesTheHeaderParameterOnly() {
        assertEquals("signed", SipBytes.tag(FROM));
        assertEquals("x", SipBytes.tag("sip:b@h;tag=x"));
        assertEquals("y", SipBytes.tag("<sip:b@h> ; TAG = y"));
        assertNull(SipBytes.tag("<sip:b@h;tag=x>"));
        assertNull(SipBytes.tag("\"tag=z;tag=z\" <sip:b@h>"));
    }

    @Test
    void theBodyStartsAfterTheEmptyLineWhateverTheLineEnds() {
        assertEquals(24, SipBytes.bodyStart(b("SIP/2.0 200 OK\r\nl: 4\r\n\r\nv=0\n")));
        assertEquals(21, SipBytes.bodyStart(b("SIP/2.0 200 OK\nl: 4\n\nv=0\n")));
        assertEquals(10, SipBytes.bodyStart(b("SIP/2.0 20")));
    }
}
