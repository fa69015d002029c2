package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Parsing the messages the generator and the UAS receive: header names in any case and compact form,
 * whitespace before the colon, folded lines, comma-separated values, parameters, methods, bodies; and,
 * on random input, the same answers as the line-splitting parser the lab had before.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class SipMessageTest {

    private static SipMessage parse(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return SipMessage.parse(b, 0, b.length);
    }

    @ParameterizedTest(name = "\"{0}\" is {1}")
    @CsvSource(delimiter = '|', value = {
        "v: SIP/2.0/UDP h;branch=z9hG4bK1 | Via",
        "V:SIP/2.0/UDP h;branch=z9hG4bK1 | Via",
        "f: <sip:a@x>;tag=1 | From",
        "t: <sip:b@y> | To",
        "i: c-1 | Call-ID",
        "I : c-1 | Call-ID",
        "m: <sip:a@127.0.0.1:5070> | Contact",
        "l: 0 | Content-Length",
        "L\t: 0 | Content-Length",
        "c: application/sdp | Content-Type",
        "call-id: c-1 | Call-ID",
        "CALL-ID: c-1 | Call-ID",
        "Call-ID  :  c-1 | Call-ID",
        "content-length : 0 | Content-Length",
        "record-route: <sip:p;lr> | Record-Route",
        "WWW-authenticate: Digest realm=\"r\" | WWW-Authenticate"})
    void headerNamesMatchInAnyCaseCompactFormAndSpacing(String line, String name) {
        SipMessage m = parse("SIP/2.0 200 OK\r\nX-Before: 1\r\n" + line + "\r\n\r\n");
        String value = line.substring(line.indexOf(':') + 1).trim();
        assertEquals(value, m.header(name));
        assertEquals(value, m.header(name.toLowerCase(Locale.ROOT)));
        assertEquals(value, m.header(name.toUpperCase(Locale.ROOT)));
        assertEquals(List.of(value), m.headerLines(name));
        assertEquals("1", m.header("x-before"));
    }

    @Test
    void aNameThatMerelyStartsWithACompactLetterIsItsOwnHeader() {
        SipMessage m = parse("OPTIONS sip:x SIP/2.0\r\nLocale-X: 5\r\nLx: 6\r\nVv: 7\r\nContent-Length: 0\r\n\r\n");
        assertEquals("5", m.header("Locale-X"));
        assertEquals("6", m.header("lx"));
        assertEquals("7", m.header("VV"));
        assertEquals("0", m.header("Content-Length"));
        assertNull(m.header("l"), "names are kept expanded, so a lookup by the compact form finds nothing");
        assertNull(m.header("Via"));
    }

    @Test
    void viaRecordRouteAndRouteValuesAreSplitAtCommasOutsideQuotesAndBrackets() {
        SipMessage m = parse("SIP/2.0 200 OK\r\n"
                + "Via: SIP/2.0/UDP a;branch=z9hG4bK1 , SIP/2.0/UDP b;branch=z9hG4bK2\r\n"
                + "v: SIP/2.0/TCP c;branch=z9hG4bK3\r\n"
                + "Record-Route: <sip:p1;lr>,<sip:p2;lr;x=\"a,b\">\r\n"
                + "From: \"Doe, J\" <sip:a@x>;tag=1\r\n"
                + "Contact: <sip:a@x;p=1,2>\r\n\r\n");
        assertEquals(List.of("SIP/2.0/UDP a;branch=z9hG4bK1", "SIP/2.0/UDP b;branch=z9hG4bK2",
                "SIP/2.0/TCP c;branch=z9hG4bK3"), m.headers("VIA"));
        assertEquals("SIP/2.0/UDP a;branch=z9hG4bK1", m.topValue("via"));
        assertEquals("z9hG4bK1", SipMessage.param(m.topValue("Via"), "branch"));
        assertEquals(List.of("<sip:p1;lr>", "<sip:p2;lr;x=\"a,b\">"), m.headers("record-route"));
        assertEquals(List.of("\"Doe, J\" <sip:a@x>;tag=1"), m.headers("From"));
        assertEquals(List.of("<sip:a@x;p=1,2>"), m.headers("Contact"));
        assertEquals(List.of(), m.headers("Route"));
        assertNull(m.topValue("Route"));
        assertEquals(List.of("a", "b", "", "c"), SipMessage.splitValues(" a ,b,, c"));
    }

    @Test
    void aFoldedLineContinuesTheHeaderBeforeIt() {
        SipMessage m = parse("SIP/2.0 200 OK\r\n"
                + "Via: SIP/2.0/UDP a;branch=z9hG4bK1,\r\n  SIP/2.0/UDP b;branch=z9hG4bK2\r\n"
                + "Subject: one\r\n\ttwo \r\n l: 9\r\nContent-Length: 0\r\n\r\n");
        assertEquals(List.of("SIP/2.0/UDP a;branch=z9hG4bK1", "SIP/2.0/UDP b;branch=z9hG4bK2"), m.headers("Via"));
        assertEquals("one two l: 9", m.header("Subject"));
        assertEquals("0", m.header("Content-Length"));
    }

    @Test
    void startLineMethodStatusAndCseq() {
        SipMessage invite = parse("INVITE sip:b@y SIP/2.0\r\nCSeq: 7 INVITE\r\n\r\n");
        assertEquals("INVITE", invite.method());
        assertEquals("INVITE sip:b@y SIP/2.0", invite.startLine());
        assertEquals(7, invite.cseqNumber());
        assertEquals("INVITE", invite.cseqMethod());
        assertEquals("invite", parse("invite sip:b@y SIP/2.0\r\n\r\n").method());
        assertEquals("INVITEX", parse("INVITEX sip:b@y SIP/2.0\r\n\r\n").method());
        assertEquals("PUBLISH", parse("PUBLISH sip:b@y SIP/2.0\r\n\r\n").method());
        SipMessage ok = parse("SIP/2.0 180 Ringing\r\ncseq:  12   bye \r\n\r\n");
        assertEquals(180, ok.status());
        assertEquals("BYE", ok.cseqMethod());
        assertEquals(12, ok.cseqNumber(), "the number before the first space only");
        assertEquals("PUBLISH", parse("SIP/2.0 200 OK\r\nCSeq: 3 publish\r\n\r\n").cseqMethod());
        assertEquals("", parse("SIP/2.0 200 OK\r\n\r\n").cseqMethod());
        assertEquals(-1, parse("SIP/2.0 200 OK\r\nCSeq: x INVITE\r\n\r\n").cseqNumber());
    }

    @Test
    void theMethodsTheFlowsCompareAreSharedConstants() {
        SipMessage m = parse("BYE sip:b@y SIP/2.0\r\nCSeq: 2 BYE\r\nCall-ID: c\r\n\r\n");
        assertSame(parse("BYE sip:c@z SIP/2.0\r\n\r\n").method(), m.method());
        assertSame(m.method(), m.cseqMethod());
    }

    @ParameterizedTest(name = "{1} of \"{0}\" is {2}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "<sip:b@y;tag=inuri>;tag=2 | tag | 2",
        "<sip:b@y;tag=inuri> | tag | null",
        "<sip:b@y> ; Tag = 3 | tag | null",
        "<sip:b@y> ; TAG=3 ; x=1 | tag | 3",
        "<sip:b@y>;tag=3 ;tag=4 | tag | 3",
        "<sip:b@y>;tag= | tag | ''",
        "<sip:b@y>;tagx=1;tag=5 | tag | 5",
        "SIP/2.0/UDP h:5060;branch=z9hG4bKx;rport | branch | z9hG4bKx",
        "SIP/2.0/UDP h:5060;branch=z9hG4bKx;rport | rport | null",
        "SIP/2.0/UDP h:5060;rport=40000;received=1.2.3.4 | received | 1.2.3.4",
        "sip:b@y;transport=tls | transport | tls",
        "tag=1 | tag | 1",
        "<sip:b@y>;branch=1 | tag | null"})
    void parametersAreFoundAfterTheUriInAnyCase(String value, String name, String expected) {
        assertEquals(expected, SipMessage.param(value, name));
    }

    @Test
    void aParameterOfNoValueIsNull() {
        assertNull(SipMessage.param(null, "tag"));
    }

    @Test
    void bodiesAndValuesAreUtf8AndAMessageCutBeforeItsBlankLineHasNoBody() {
        SipMessage m = parse("MESSAGE sip:b@y SIP/2.0\r\nFrom: \"José\" <sip:a@x>;tag=1\r\nl: 8\r\n\r\nçà\r\nx\r\n");
        assertEquals("\"José\" <sip:a@x>;tag=1", m.header("From"));
        assertEquals("çà\r\nx\r\n", m.body());
        SipMessage cut = parse("OPTIONS sip:x SIP/2.0\r\nCall-ID: 1\r\n");
        assertEquals("1", cut.callId());
        assertEquals("", cut.body());
        byte[] framed = "xxINVITE sip:b@y SIP/2.0\r\ni: c\r\n\r\nbodyyy".getBytes(StandardCharsets.US_ASCII);
        SipMessage inside = SipMessage.parse(framed, 2, framed.length - 4);
        assertEquals("INVITE", inside.method());
        assertEquals("c", inside.callId());
        assertEquals("body", inside.body());
    }

    @Test
    void noStartLineOrAHeaderWithoutAColonIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> parse(""));
        assertThrows(IllegalArgumentException.class, () -> parse("\r\nINVITE sip:b@y SIP/2.0\r\n\r\n"));
        assertThrows(IllegalArgumentException.class, () -> parse("  \r\nCall-ID: 1\r\n\r\n"));
        assertThrows(IllegalArgumentException.class, () -> parse("INVITE sip:b@y SIP/2.0\r\nCall-ID 1\r\n\r\n"));
        assertThrows(IllegalArgumentException.class, () -> parse("INVITE sip:b@y SIP/2.0\r\n: 1\r\n\r\n"));
    }

    /**
     * Random messages from the characters that matter to the parser (CR, LF, colon, spaces, commas,
     * semicolons, brackets, quotes, compact letters, non-ASCII and invalid UTF-8) give what the former
     * parser gave: the same refusals, start line, headers by every name seen, values and body.
     */
    @Test
    void randomInputIsParsedAsTheFormerLineSplittingParserDid() {
        byte[] alphabet = "\r\n\r\n::  \t,,;;<>\"=vVlLiImMfFtTcCxX-aZ09é".getBytes(StandardCharsets.UTF_8);
        byte[] extra = {(byte) 0xC4, (byte) 0xB0, (byte) 0xE2, (byte) 0x82, (byte) 0xFF, 0};
        Random random = new Random(3261);
        int compared = 0;
        for (int run = 0; run < 20_000; run++) {
            int len = random.nextInt(60);
            byte[] b = new byte[len + 4];
            for (int i = 0; i < b.length; i++) {
                b[i] = random.nextInt(10) == 0 ? extra[random.nextInt(extra.length)]
                        : alphabet[random.nextInt(alphabet.length)];
            }
            if (run % 2 == 0 && len > 8) {
                System.arraycopy("X y\r\n".getBytes(StandardCharsets.US_ASCII), 0, b, 2, 5);
            }
            Former expected;
            try {
                expected = Former.parse(b, 2, len);
            } catch (IllegalArgumentException e) {
                int at = run;
                assertThrows(IllegalArgumentException.class, () -> SipMessage.parse(b, 2, len), () -> "run " + at);
                continue;
            }
            SipMessage m = SipMessage.parse(b, 2, len);
            String input = "run " + run + ": " + new String(b, 2, len, StandardCharsets.UTF_8);
            assertEquals(expected.startLine, m.startLine(), input);
            assertEquals(expected.body, m.body(), input);
            for (String[] h : expected.headers) {
                String name = h[0];
                assertEquals(expected.header(name), m.header(name), input);
                assertEquals(expected.headerLines(name), m.headerLines(name), input);
                assertEquals(expected.headers(name), m.headers(name), input);
                List<String> all = expected.headers(name);
                assertEquals(all.isEmpty() ? null : all.get(0), m.topValue(name), input);
                for (String p : new String[] {"tag", "branch", "x", "", name}) {
                    assertEquals(Former.param(h[1], p), SipMessage.param(h[1], p), input);
                }
            }
            for (String name : new String[] {"Via", "Content-Length", "Call-ID", "Contact", "CSeq", "l"}) {
                assertEquals(expected.header(name), m.header(name), input);
            }
            String cseq = expected.header("CSeq");
            assertEquals(cseq == null ? "" : cseq.substring(cseq.indexOf(' ') + 1).trim().toUpperCase(Locale.ROOT),
                    m.cseqMethod(), input);
            int space = expected.startLine.indexOf(' ');
            if (space < 0) {
                assertThrows(IndexOutOfBoundsException.class, m::method, input);
            } else {
                assertEquals(expected.startLine.substring(0, space), m.method(), input);
            }
            compared++;
        }
        assertEquals(true, compared > 1000, "messages compared: " + compared);
    }

    /** The parser the lab had before it scanned bytes, kept here as the reference for what the answers were. */
    private static final class Former {
        final String startLine;
        final List<String[]> headers;
        final String body;

        private Former(String startLine, List<String[]> headers, String body) {
            this.startLine = startLine;
            this.headers = headers;
            this.body = body;
        }

        static Former parse(byte[] bytes, int off, int len) {
            String text = new String(bytes, off, len, StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            String body = end < 0 ? "" : text.substring(end + 4);
            String[] lines = head.split("\r\n");
            if (lines.length == 0 || lines[0].isBlank()) {
                throw new IllegalArgumentException("no start line");
            }
            List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                String line = lines[i];
                if ((line.startsWith(" ") || line.startsWith("\t")) && !headers.isEmpty()) {
                    String[] last = headers.get(headers.size() - 1);
                    last[1] = last[1] + " " + line.trim();
                    continue;
                }
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("header without a colon: " + line);
                }
                headers.add(new String[] {longName(line.substring(0, colon).trim()), line.substring(colon + 1).trim()});
            }
            return new Former(lines[0], headers, body);
        }

        static String longName(String name) {
            if (name.length() != 1) {
                return name;
            }
            return switch (Character.toLowerCase(name.charAt(0))) {
                case 'v' -> "Via";
                case 'f' -> "From";
                case 't' -> "To";
                case 'i' -> "Call-ID";
                case 'm' -> "Contact";
                case 'l' -> "Content-Length";
                case 'c' -> "Content-Type";
                default -> name;
            };
        }

        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        List<String> headerLines(String name) {
            List<String> out = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    out.add(h[1]);
                }
            }
            return out;
        }

        List<String> headers(String name) {
            List<String> out = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    out.addAll(splitValues(h[1]));
                }
            }
            return out;
        }

        static List<String> splitValues(String value) {
            List<String> out = new ArrayList<>();
            int depth = 0;
            boolean quoted = false;
            int start = 0;
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '"') {
                    quoted = !quoted;
                } else if (!quoted && c == '<') {
                    depth++;
                } else if (!quoted && c == '>') {
                    depth--;
                } else if (!quoted && depth == 0 && c == ',') {
                    out.add(value.substring(start, i).trim());
                    start = i + 1;
                }
            }
            out.add(value.substring(start).trim());
            return out;
        }

        static String param(String value, String name) {
            int gt = value.lastIndexOf('>');
            String params = gt >= 0 ? value.substring(gt + 1) : value;
            for (String p : params.split(";")) {
                String t = p.trim();
                if (t.regionMatches(true, 0, name + "=", 0, name.length() + 1)) {
                    return t.substring(name.length() + 1);
                }
            }
            return null;
        }
    }
}
