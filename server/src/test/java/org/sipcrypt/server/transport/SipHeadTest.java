package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SipHeadTest {

    private static final String INVITE = "INVITE sip:bob@127.0.0.1:5070;transport=udp SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa1;rport, SIP/2.0/UDP 127.0.0.1:5090;branch=z9hG4bKa0\r\n"
            + "v: SIP/2.0/UDP 127.0.0.1:5091;branch=z9hG4bKzz\r\n"
            + "Max-Forwards: 69\r\n"
            + "Route: <sip:127.0.0.1:5060;lr>, <sip:127.0.0.2;lr>\r\n"
            + "route: <sip:127.0.0.3;lr>\r\n"
            + "f: \"Alice\" <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: <sip:bob@127.0.0.1>\r\n"
            + "i: call-1@127.0.0.1\r\n"
            + "CSeq:  7\tINVITE \r\n"
            + "m: <sip:alice@127.0.0.1:5080>\r\n"
            + "l: 4\r\n"
            + "\r\n"
            + "v=0\n";

    private static SipHead head(String s) {
        return SipHead.of(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void oneIndexAnswersEveryFieldOfAPlainRequest() {
        SipHead h = head(INVITE);
        assertNull(h.irregularity());
        assertTrue(h.regular());
        assertFalse(h.isResponse());
        assertEquals("INVITE", h.method());
        assertEquals(-1, h.status());
        assertEquals("sip:bob@127.0.0.1:5070;transport=udp", h.requestUri());
        assertEquals("call-1@127.0.0.1", h.callId());
        assertEquals("z9hG4bKa1", h.topVia().branch());
        assertEquals(5080, h.topVia().port());
        assertTrue(h.topVia().rport());
        assertEquals("a1", h.fromTag());
        assertNull(h.toTag());
        assertEquals(7, h.cseqNumber());
        assertEquals("INVITE", h.cseqMethod());
        assertEquals(69, h.maxForwards());
        assertEquals(4, h.contentLength());
        assertEquals(List.of("<sip:127.0.0.1:5060;lr>, <sip:127.0.0.2;lr>", "<sip:127.0.0.3;lr>"), h.routes());
        assertEquals(11, h.lineCount());
        assertEquals(INVITE.length() - "\r\nv=0\n".length(), h.headerEnd());
        assertEquals(INVITE.length() - "v=0\n".length(), h.bodyStart());
    }

    @Test
    void compactNamesFoldToTheirLongFormAndCountTogether() {
        SipHead h = head(INVITE);
        assertEquals(2, h.count("via"));
        assertEquals(2, h.count("v"));
        assertEquals(2, h.count("route"));
        assertEquals(1, h.count("contact"));
        assertEquals("<sip:alice@127.0.0.1:5080>", h.value("contact"));
        assertEquals(List.of("SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa1;rport, SIP/2.0/UDP 127.0.0.1:5090;branch=z9hG4bKa0",
                "SIP/2.0/UDP 127.0.0.1:5091;branch=z9hG4bKzz"), h.values("v"));
        assertEquals(0, h.count("x-unknown"));
        assertEquals(0, h.count("proxy-authorization"));
    }

    @Test
    void unknownNamesMatchExactlyInAnyCase() {
        SipHead h = head("OPTIONS sip:x SIP/2.0\r\nX-Thing : one\r\nx-thing:two\r\nX-Thingy: no\r\n\r\n");
        assertEquals(2, h.count("x-thing"));
        assertEquals(List.of("one", "two"), h.values("x-thing"));
        assertEquals("no", h.value("x-thingy"));
    }

    @Test
    void aResponseHasAStatusAndNoMethod() {
        SipHead h = head("SIP/2.0 180 Ringing\r\nVia: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bKr\r\nTo: <sip:b@h>;tag=t9\r\n"
                + "CSeq: 1 INVITE\r\n\r\n");
        assertTrue(h.isResponse());
        assertEquals(180, h.status());
        assertNull(h.method());
        assertNull(h.requestUri());
        assertNull(h.requestToken(32));
        assertEquals("t9", h.toTag());
        assertEquals(-1, head("SIP/2.0 099 Low\r\n\r\n").status());
        assertEquals(-1, head("SIP/2.0 1800 Long\r\n\r\n").status());
    }

    @Test
    void aBareLfEndsALineAsCrlfDoes() {
        SipHead h = head("BYE sip:b@h SIP/2.0\nCall-ID: c1\nCSeq: 2 BYE\n\nbody");
        assertNull(h.irregularity());
        assertEquals("c1", h.callId());
        assertEquals("sip:b@h", h.requestUri());
        assertEquals(2, h.cseqNumber());
        assertEquals("BYE sip:b@h SIP/2.0\nCall-ID: c1\nCSeq: 2 BYE\n\n".length(), h.bodyStart());
    }

    @Test
    void aBareCrCutsTheValueAndMakesTheMessageIrregular() {
        SipHead h = head("BYE sip:b@h SIP/2.0\r\nCall-ID: c1\rX: y\r\n\r\n");
        assertEquals("control_character", h.irregularity());
        assertEquals("c1", h.callId());
        assertEquals("header_name", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c1\r\n\rX\r\n\r\n").irregularity());
    }

    /**
     * A header value is walked eight bytes at a time until a byte below U+0020 or DEL: every such
     * byte, at every offset of a word and in every kind of value, is still found and read as the
     * byte-by-byte rule says (HTAB allowed, CR only before LF, UTF-8 bytes plain text).
     */
    @Test
    void everyControlByteIsFoundAtEveryOffsetOfALongValue() {
        String plain = "abcdefghijklmnopqrstuvwxyz0123456789";
        for (int at = 0; at < 26; at++) {
            for (int c = 0; c < 0x80; c++) {
                if (c >= 0x20 && c != 0x7f || c == '\n') {
                    continue;
                }
                String value = plain.substring(0, at) + (char) c + plain.substring(at);
                SipHead h = head("BYE sip:b@h SIP/2.0\r\nSubject: " + value + "\r\nCall-ID: c1\r\n\r\n");
                String expected = c == '\t' ? null : "control_character";
                assertEquals(expected, h.irregularity(), "byte " + c + " at " + at);
                // the value ends at the first CR, as a scanning reader took it
                assertEquals(c == '\r' ? plain.substring(0, at) : value.trim(), h.value("subject"), "byte " + c + " at " + at);
                assertEquals("c1", h.callId());
            }
            String utf8 = plain.substring(0, at) + "\u00e9\u20ac" + plain.substring(at);
            SipHead h = head("BYE sip:b@h SIP/2.0\r\nSubject: " + utf8 + "\r\nCall-ID: c1\r\n\r\n");
            assertNull(h.irregularity(), "UTF-8 at " + at);
            assertEquals(utf8, h.value("subject"));
            // a bare LF ends the line wherever it falls in a word
            SipHead lf = head("BYE sip:b@h SIP/2.0\r\nSubject: " + plain.substring(0, at) + "\nCall-ID: c1\r\n\r\n");
            assertEquals(at == 0 ? "" : plain.substring(0, at), lf.value("subject"));
            assertEquals("c1", lf.callId());
        }
    }

    @Test
    void irregularitiesAreNamedInLineOrder() {
        assertEquals("start_line", head("\r\nBYE sip:b@h SIP/2.0\r\n\r\n").irregularity());
        assertEquals("folded_line", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c\r\n more\r\n\r\n").irregularity());
        assertEquals("header_name", head("BYE sip:b@h SIP/2.0\r\nCall-ID\u0001: c\r\n\r\n").irregularity());
        assertEquals("header_name", head("BYE sip:b@h SIP/2.0\r\nCall ID: c\r\n\r\n").irregularity());
        assertEquals("no_blank_line", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c\r\n").irregularity());
        assertEquals("no_blank_line", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c").irregularity());
        assertEquals("duplicate_header", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c\r\ni: d\r\n\r\n").irregularity());
        assertEquals("header_params", head("BYE sip:b@h SIP/2.0\r\nTo: <sip:b@h>;tag=1;tag=2\r\nCall-ID: c\r\n"
                + "Call-ID: d\r\n\r\n").irregularity(), "the earlier line's reason comes first");
        assertEquals("duplicate_header", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c\r\nCall-ID: d\r\n"
                + "To: <sip:b@h>;tag=1;tag=2\r\n\r\n").irregularity());
        assertEquals("control_character", head("BYE sip:b@h\u0000 SIP/2.0\r\n\r\n").irregularity());
        // a Content-Length the index cannot read, or not the body's length in these bytes
        assertEquals("content_length", head("BYE sip:b@h SIP/2.0\r\nContent-Length: 2\r\n\r\nabc").irregularity());
        assertEquals("content_length", head("BYE sip:b@h SIP/2.0\r\nl: 4\r\n\r\nabc").irregularity());
        assertEquals("content_length", head("BYE sip:b@h SIP/2.0\r\nContent-Length: x\r\n\r\n").irregularity());
        assertEquals("content_length", head("BYE sip:b@h SIP/2.0\r\nContent-Length: 0\r\n\r\n\r\n").irregularity());
        assertNull(head("BYE sip:b@h SIP/2.0\r\nContent-Length: 3\r\n\r\nabc").irregularity());
        assertNull(head("BYE sip:b@h SIP/2.0\r\nContent-Length:  03 \r\n\r\nabc").irregularity());
        assertNull(head("BYE sip:b@h SIP/2.0\r\nContent-Length: 3\n\nabc").irregularity(), "bare LF lines");
        assertNull(head("BYE sip:b@h SIP/2.0\r\n\r\nabc").irregularity(), "no Content-Length: the datagram's rest");
        assertEquals("duplicate_header", head("BYE sip:b@h SIP/2.0\r\nCall-ID: c\r\ni: d\r\nl: 9\r\n\r\n")
                .irregularity(), "a structural reason comes first");
        // a repeated header the byte readers do not read is no irregularity
        assertNull(head("BYE sip:b@h SIP/2.0\r\nVia: a\r\nVia: b\r\nRoute: <sip:h>\r\nRoute: <sip:i>\r\n\r\n")
                .irregularity());
    }

    @Test
    void theHeaderSectionEndsAtTheBlankLine() {
        SipHead h = head("OPTIONS sip:x SIP/2.0\r\nVia: v\r\n\r\nCall-ID: body\r\n");
        assertNull(h.callId());
        assertEquals(1, h.lineCount());
    }

    @Test
    void methodsAreUpperCaseTokensAndTheRequestTokenKeepsCase() {
        assertNull(head("ack sip:x SIP/2.0\r\n\r\n").method());
        assertEquals("ack", head("ack sip:x SIP/2.0\r\n\r\n").requestToken(32));
        assertEquals("FOO", head("FOO sip:x SIP/2.0\r\n\r\n").method());
        assertNull(head("ACK").method());
        assertNull(head("").method());
        assertNull(head("INVITE  sip:x SIP/2.0\r\n\r\n").requestUri(), "two spaces before the URI");
        assertNull(head("INVITE sip:x SIP/2.0 \r\n\r\n").requestUri(), "a space after the version");
        assertNull(head("INVITE sip:x SIP/2.1\r\n\r\n").requestUri());
    }

    @Test
    void typedFieldsDeclineFormsTheyDoNotRead() {
        assertEquals(-1, head("BYE sip:b@h SIP/2.0\r\nCSeq: 2147483648 BYE\r\n\r\n").cseqNumber());
        assertEquals(2147483647, head("BYE sip:b@h SIP/2.0\r\nCSeq: 2147483647 BYE\r\n\r\n").cseqNumber());
        assertEquals(-1, head("BYE sip:b@h SIP/2.0\r\nCSeq: 2BYE\r\n\r\n").cseqNumber());
        assertNull(head("BYE sip:b@h SIP/2.0\r\nCSeq: 2 B;E\r\n\r\n").cseqMethod());
        assertEquals(-1, head("BYE sip:b@h SIP/2.0\r\nMax-Forwards: 256\r\n\r\n").maxForwards());
        assertEquals(-1, head("BYE sip:b@h SIP/2.0\r\nMax-Forwards: 0070\r\n\r\n").maxForwards());
        assertEquals(0, head("BYE sip:b@h SIP/2.0\r\nMax-Forwards: 0\r\n\r\n").maxForwards());
        assertEquals(-1, head("BYE sip:b@h SIP/2.0\r\n\r\n").maxForwards());
        assertEquals(-1, head("BYE sip:b@h SIP/2.0\r\nContent-Length: +5\r\n\r\n").contentLength());
        assertNull(head("BYE sip:b@h SIP/2.0\r\nVia: SIP/2.0/UDP [::1];branch=z9hG4bKx\r\n\r\n").topVia());
        assertNull(head("BYE sip:b@h SIP/2.0\r\nTo: tel:+1;tag=x\r\n\r\n").toTag(), "not a sip URI");
        assertEquals(List.of(), head("BYE sip:b@h SIP/2.0\r\n\r\n").routes());
    }

    @Test
    void formsTheParseReadsOtherwiseAreDeclined() {
        // each found by SipHeadFuzzTest: the parse drops the line or writes the URI otherwise
        assertNull(head("SIP/2.0 200 OK\r\nVia: SIP/2.0/U@P 127.0.0.1;branch=z9hG4bKx\r\n\r\n").topVia(),
                "a transport that is not a token");
        SipHead badUri = head("SIP/2.0 200 OK\r\nFrom: <s\u00e0ip:a@127.0.0.1>;tag=x\r\n\r\n");
        assertNull(badUri.fromTag());
        assertEquals("header_params", badUri.irregularity());
        assertNull(head("BYE sip:b@h;; SIP/2.0\r\n\r\n").requestUri(), "an empty parameter");
        assertNull(head("BYE sIp:b@h SIP/2.0\r\n\r\n").requestUri(), "a scheme not in lower case");
        assertNull(head("BYE tel:+1 SIP/2.0\r\n\r\n").requestUri(), "another scheme");
        assertNull(head("BYE sip::b@h SIP/2.0\r\n\r\n").requestUri(), "an empty user");
        assertEquals("sips:b@h", head("BYE sips:b@h SIP/2.0\r\n\r\n").requestUri());
    }

    @Test
    void workIsLinearInTheMessageLength() {
        StringBuilder sb = new StringBuilder("OPTIONS sip:x SIP/2.0\r\n");
        for (int i = 0; i < 20_000; i++) {
            sb.append("a:\r\n");
        }
        sb.append("Call-ID: last\r\n\r\n");
        SipHead h = head(sb.toString());
        assertEquals(20_001, h.lineCount());
        assertEquals("last", h.callId());
        assertNotNull(h.bytes());
    }

    @Test
    void theRequestLineVersionIsReadAsTheParseReadsIt() {
        assertTrue(head("BYE sip:b@127.0.0.1 SIP/2.0\r\nVia: x\r\n\r\n").requestLineIsSip20());
        assertTrue(head("BYE sip:b@127.0.0.1 sip/2.0 \r\n\r\n").requestLineIsSip20());
        assertTrue(head("BYE sip:b@127.0.0.1 SIP/2.0\n\n").requestLineIsSip20());
        assertFalse(head("BYE sip:b@127.0.0.1 SIP/3.0\r\n\r\n").requestLineIsSip20());
        assertFalse(head("BYE sip:b@127.0.0.1 SIP/2.00\r\n\r\n").requestLineIsSip20());
        assertFalse(head("IP/2.0\r\n").requestLineIsSip20());
        assertFalse(head("").requestLineIsSip20());
    }
}
