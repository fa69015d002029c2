package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HeadCopyTest {

    private static final String OK = "SIP/2.0 200 OK\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-sc-1.s, SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa\r\n"
            + "v : SIP/2.0/UDP 127.0.0.1:5090;branch=z9hG4bKb\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a\r\n"
            + "To: <sip:bob@127.0.0.1>;tag=b\r\n"
            + "Subject: caf\u00e9\r\n"
            + "Call-ID: c1\r\n"
            + "CSeq: 1 INVITE\r\n"
            + "Content-Length: 4\r\n"
            + "\r\n"
            + "v=0\n";

    private static SipHead head(String s) {
        return SipHead.of(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aCopyWithNoEditIsTheMessageByteForByte() {
        byte[] msg = OK.getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(msg, new HeadCopy(SipHead.of(msg)).bytes());
    }

    @Test
    void editedLinesChangeAndEveryOtherByteStaysAsItCame() {
        SipHead h = head(OK);
        int via = h.lineOf("via", 0);
        int second = h.lineOf("via", via + 1);
        assertEquals(0, via);
        assertEquals(1, second);
        assertEquals("v :", h.lineNameText(second));
        byte[] copy = new HeadCopy(h)
                .putFirst("Via: SIP/2.0/UDP 127.0.0.1:5061;branch=z9hG4bKnew")
                .putFirst("Max-Forwards: 70")
                .replace(via, h.lineNameText(via) + " SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa")
                .remove(h.lineOf("call-id", 0))
                .bytes();
        assertEquals("SIP/2.0 200 OK\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5061;branch=z9hG4bKnew\r\n"
                + "Max-Forwards: 70\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa\r\n"
                + "v : SIP/2.0/UDP 127.0.0.1:5090;branch=z9hG4bKb\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a\r\n"
                + "To: <sip:bob@127.0.0.1>;tag=b\r\n"
                + "Subject: caf\u00e9\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Content-Length: 4\r\n"
                + "\r\n"
                + "v=0\n", text(copy));
    }

    @Test
    void lastAndAdjacentLinesCanBeRemoved() {
        SipHead h = head(OK);
        byte[] copy = new HeadCopy(h).remove(0).remove(1).remove(h.lineCount() - 1).bytes();
        assertEquals(OK.replace("Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-sc-1.s, SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa\r\n", "")
                .replace("v : SIP/2.0/UDP 127.0.0.1:5090;branch=z9hG4bKb\r\n", "")
                .replace("Content-Length: 4\r\n", ""), text(copy));
    }

    @Test
    void aValueReadForACopyKeepsItsBytes() {
        SipHead h = head(OK);
        String subject = h.lineValueText(h.lineOf("subject", 0));
        byte[] copy = new HeadCopy(h).replace(h.lineOf("subject", 0), "Subject: " + subject).bytes();
        assertEquals(OK, text(copy));
    }

    @Test
    void aMessageWithABareLfLineIsNotCopied() {
        assertThrows(IllegalArgumentException.class, () -> new HeadCopy(head(OK.replace("Call-ID: c1\r\n", "Call-ID: c1\n"))));
    }
}
