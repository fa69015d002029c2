package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Stream framing by Content-Length, whole and one byte at a time, and the message fields the UAC reads. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StreamFramerTest {

    private static final String OK = "SIP/2.0 200 OK\r\n"
            + "v: SIP/2.0/TLS 127.0.0.1:5061;branch=z9hG4bKa, SIP/2.0/TLS 127.0.0.1:40000;branch=z9hG4bKb\r\n"
            + "Record-Route: <sip:127.0.0.1:5060;lr>, <sip:127.0.0.1:5061;transport=tls;lr>\r\n"
            + "From: <sip:a@x>;tag=1\r\nTo: <sip:b@y>;tag=2\r\ni: call-1\r\nCSeq: 1 INVITE\r\n"
            + "m: <sip:uas@127.0.0.1:5070;transport=udp>\r\nl: 4\r\n\r\nabcd";
    /** A request with no body that follows the message under test, so a wrong length shows as a wrong cut. */
    private static final String BYE = "BYE sip:b@y SIP/2.0\r\nCall-ID: call-2\r\nCSeq: 2 BYE\r\n"
            + "Content-Length: 0\r\n\r\n";

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The messages of {@code stream} fed whole, after checking that one byte at a time gives the same. */
    private static List<SipMessage> frame(String stream) {
        byte[] bytes = ascii(stream);
        List<SipMessage> whole = new StreamFramer(65535).feed(bytes, 0, bytes.length);
        StreamFramer framer = new StreamFramer(65535);
        List<SipMessage> byByte = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++) {
            byByte.addAll(framer.feed(bytes, i, 1));
        }
        assertEquals(whole.toString(), byByte.toString(), "whole and byte by byte");
        for (int i = 0; i < whole.size(); i++) {
            assertEquals(whole.get(i).body(), byByte.get(i).body(), "body " + i + " whole and byte by byte");
        }
        return whole;
    }

    private static String withLength(String contentLengthLine, String body) {
        return "INVITE sip:b@y SIP/2.0\r\nCall-ID: call-1\r\nCSeq: 1 INVITE\r\n" + contentLengthLine + "\r\n\r\n"
                + body;
    }

    @Test
    void messagesAreCutByContentLengthWholeOrByteByByte() {
        byte[] two = ascii("\r\n\r\n" + OK + OK);
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

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"Content-Length: 4", "content-length:4", "CONTENT-LENGTH: 4", "cOnTeNt-LeNgTh: 4",
        "l: 4", "L:4", "l:\t4 ", "Content-Length : 4", "Content-Length\t:\t4", "l  : 4", "L\t:4"})
    void theContentLengthIsReadInEveryFormAndCase(String line) {
        List<SipMessage> got = frame(withLength(line, "abcd") + BYE);
        assertEquals(2, got.size(), "the body and the next message: " + got);
        assertEquals("abcd", got.get(0).body());
        assertEquals("BYE", got.get(1).method());
        assertEquals("call-2", got.get(1).callId());
    }

    @Test
    void theFirstContentLengthCountsAndOnlyAtTheStartOfALine() {
        List<SipMessage> got = frame("INVITE sip:b@y SIP/2.0\r\nSubject: l: 9, Content-Length: 9\r\nl: 4\r\n"
                + "Content-Length: 7\r\n\r\nabcd" + BYE);
        assertEquals(2, got.size());
        assertEquals("abcd", got.get(0).body());
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"Locale-X: 5", "Lx: 5", "L-: 5", "Length: 5", "Content-Length-X: 5", "Content-Lengths: 5",
        "Content-Len: 5", "Xl: 5", " l: 5", "\tContent-Length: 5", "Content-Length\r: 5"})
    void aHeaderThatOnlyLooksLikeContentLengthIsNotTakenForIt(String line) {
        String head = "INVITE sip:b@y SIP/2.0\r\nCall-ID: call-1\r\nSubject: s\r\n" + line + "\r\n";
        List<SipMessage> got = frame(head + "Content-Length: 2\r\n\r\nab" + BYE);
        assertEquals(2, got.size(), "cut by the real Content-Length: " + got);
        assertEquals("ab", got.get(0).body());
        byte[] alone = ascii(head + "\r\nabcde");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new StreamFramer(65535).feed(alone, 0, alone.length));
        assertTrue(e.getMessage().startsWith("no Content-Length"), e.getMessage());
    }

    @Test
    void aBodySplitAcrossTwoFeedsWaitsForItsLastByte() {
        StreamFramer framer = new StreamFramer(65535);
        byte[] first = ascii(withLength("Content-Length: 10", "01234"));
        assertEquals(List.of(), framer.feed(first, 0, first.length));
        byte[] second = ascii("5678");
        assertEquals(List.of(), framer.feed(second, 0, second.length));
        byte[] rest = ascii("9" + BYE.substring(0, 10));
        List<SipMessage> got = framer.feed(rest, 0, rest.length);
        assertEquals(1, got.size());
        assertEquals("0123456789", got.get(0).body());
        byte[] end = ascii(BYE.substring(10));
        List<SipMessage> last = framer.feed(end, 0, end.length);
        assertEquals(1, last.size());
        assertEquals("call-2", last.get(0).callId());
    }

    @Test
    void aHeaderSplitAcrossFeedsInsideTheContentLengthIsReadWhole() {
        String whole = withLength("Content-Length: 12", "0123456789ab");
        int cut = whole.indexOf("12\r\n") + 1;
        StreamFramer framer = new StreamFramer(65535);
        byte[] a = ascii(whole.substring(0, cut));
        byte[] b = ascii(whole.substring(cut));
        assertEquals(List.of(), framer.feed(a, 0, a.length));
        List<SipMessage> got = framer.feed(b, 0, b.length);
        assertEquals(1, got.size());
        assertEquals("0123456789ab", got.get(0).body());
    }

    @Test
    void twoMessagesInOneFeedAreBothCutAtTheirLengths() {
        List<SipMessage> got = frame(withLength("l: 3", "abc") + withLength("Content-Length: 5", "vwxyz"));
        assertEquals(2, got.size());
        assertEquals("abc", got.get(0).body());
        assertEquals("vwxyz", got.get(1).body());
    }

    @Test
    void crlfKeepAlivesBeforeBetweenAndAfterMessagesAreSkipped() {
        List<SipMessage> got = frame("\r\n\r\n" + withLength("l: 3", "abc") + "\r\n\r\n\r\n" + BYE + "\r\n" + OK
                + "\r\n\r\n");
        assertEquals(3, got.size(), got.toString());
        assertEquals("abc", got.get(0).body());
        assertEquals("BYE", got.get(1).method());
        assertEquals("abcd", got.get(2).body());
        StreamFramer framer = new StreamFramer(65535);
        byte[] ping = ascii("\r\n\r\n");
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of(), framer.feed(ping, 0, ping.length), "a keep-alive alone is no message");
        }
        byte[] bye = ascii(BYE);
        assertEquals(1, framer.feed(bye, 0, bye.length).size());
    }

    @Test
    void aMessageWithoutContentLengthOrTooLargeIsAFramingError() {
        byte[] none = ascii("OPTIONS sip:x SIP/2.0\r\nCall-ID: 1\r\n\r\n");
        assertThrows(IllegalArgumentException.class, () -> new StreamFramer(65535).feed(none, 0, none.length));
        byte[] big = ascii(OK);
        assertThrows(IllegalArgumentException.class, () -> new StreamFramer(100).feed(big, 0, big.length));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"Content-Length: -1", "l: -4", "Content-Length: abc", "Content-Length: 4x", "l: 4 4",
        "Content-Length: ", "l:", "Content-Length: +4", "Content-Length: 0x4", "Content-Length: 4.0",
        "Content-Length: 65536", "Content-Length: 2147483647", "Content-Length: 2147483648",
        "l: 99999999999999999999999999"})
    void aNegativeNonNumericOrHugeContentLengthIsAFramingError(String line) {
        byte[] bytes = ascii(withLength(line, "abcd"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new StreamFramer(65535).feed(bytes, 0, bytes.length));
        assertTrue(e.getMessage().contains("Content-Length"), e.getMessage());
    }

    @Test
    void theFramingErrorSaysWhatWasWrong() {
        assertEquals("negative Content-Length: -1", frameError("Content-Length: -1"));
        assertEquals("bad Content-Length: \"4x\"", frameError("l: 4x"));
        assertEquals("Content-Length 70000 exceeds 65535", frameError("Content-Length: 70000"));
    }

    private static String frameError(String line) {
        byte[] bytes = ascii(withLength(line, ""));
        return assertThrows(IllegalArgumentException.class,
                () -> new StreamFramer(65535).feed(bytes, 0, bytes.length)).getMessage();
    }

    @Test
    void aBodyReachingTheLimitIsCutAndOneByteMoreIsRefused() {
        String head = withLength("Content-Length: 10", "");
        int max = head.length() + 10;
        byte[] fits = ascii(head + "0123456789");
        assertEquals("0123456789", new StreamFramer(max).feed(fits, 0, fits.length).get(0).body());
        byte[] over = ascii(withLength("Content-Length: 11", "0123456789a"));
        assertThrows(IllegalArgumentException.class, () -> new StreamFramer(max).feed(over, 0, over.length));
    }
}
