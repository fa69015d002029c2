package org.sipcrypt.lab.loadgen;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A SIP message as the generator needs it: the start line, the headers in order (compact forms
 * expanded, RFC 3261 §7.3.3) and the body. Only what the call flow reads is interpreted. Every
 * message the generator and the UAS receive is parsed here, so the bytes are scanned in place: each
 * start line, header value and body is decoded once, and the names and methods the lab's flows use
 * are shared constants instead of new strings.
 * Threading: immutable after {@link #parse}.
 */
public final class SipMessage {

    /** Header names the lab's messages carry, returned as they are instead of decoded anew. */
    private static final String[] KNOWN_NAMES = {"Via", "From", "To", "Call-ID", "CSeq", "Contact", "Max-Forwards",
        "Record-Route", "Route", "Content-Length", "Content-Type", "Expires", "WWW-Authenticate",
        "Proxy-Authenticate", "Authorization", "Proxy-Authorization", "Accept", "Allow", "Supported", "Server",
        "User-Agent"};
    /** Methods the lab sends and answers, returned as they are by {@link #method} and {@link #cseqMethod}. */
    private static final String[] KNOWN_METHODS = {"INVITE", "ACK", "BYE", "CANCEL", "OPTIONS", "REGISTER"};

    private final String startLine;
    /** Name and value of each header in order: names at even indexes, values at odd ones. */
    private final List<String> fields;
    private final String body;

    private SipMessage(String startLine, List<String> fields, String body) {
        this.startLine = startLine;
        this.fields = fields;
        this.body = body;
    }

    /**
     * Parses one whole message: lines end in CRLF, the first blank line ends the headers, a line
     * starting with a space or tab continues the header before it (RFC 3261 §7.3.1).
     *
     * @throws IllegalArgumentException when there is no start line or a header has no colon
     */
    public static SipMessage parse(byte[] bytes, int off, int len) {
        int end = off + len;
        int headEnd = indexOfBlankLine(bytes, off, end);
        int limit = headEnd < 0 ? end : headEnd;
        int eol = lineEnd(bytes, off, limit);
        String startLine = utf8(bytes, off, eol);
        if (startLine.isBlank()) {
            throw new IllegalArgumentException("no start line");
        }
        List<String> fields = new ArrayList<>(24);
        while (eol < limit) {
            int line = eol + 2;
            eol = lineEnd(bytes, line, limit);
            if (line == eol && eol == limit) {
                // the CRLF ending a message cut before its blank line closes no header
                break;
            }
            if (line < eol && (bytes[line] == ' ' || bytes[line] == '\t') && !fields.isEmpty()) {
                int last = fields.size() - 1;
                fields.set(last, fields.get(last) + " " + trimmedUtf8(bytes, line, eol));
                continue;
            }
            int colon = indexOf(bytes, ':', line, eol);
            if (colon <= line) {
                throw new IllegalArgumentException("header without a colon: " + utf8(bytes, line, eol));
            }
            fields.add(name(bytes, line, colon));
            fields.add(trimmedUtf8(bytes, colon + 1, eol));
        }
        String body = headEnd < 0 || headEnd + 4 == end ? "" : utf8(bytes, headEnd + 4, end);
        return new SipMessage(startLine, fields, body);
    }

    /** Where the first blank line (CRLF CRLF) in {@code b[from, to)} starts, or -1; the stream framer's too. */
    static int indexOfBlankLine(byte[] b, int from, int to) {
        for (int i = from; i + 3 < to; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Where the line starting at {@code from} ends: its CRLF, or {@code to}; the stream framer's too. */
    static int lineEnd(byte[] b, int from, int to) {
        for (int i = from; i + 1 < to; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        return to;
    }

    private static int indexOf(byte[] b, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A header name, trimmed, its compact form expanded. The ASCII whitespace trimmed from bytes is
     * what {@link String#trim} would take from the decoded text, since UTF-8 encodes no other
     * character below U+0021 and never uses such a byte inside a longer sequence.
     */
    private static String name(byte[] b, int from, int to) {
        while (from < to && (b[from] & 0xFF) <= ' ') {
            from++;
        }
        while (to > from && (b[to - 1] & 0xFF) <= ' ') {
            to--;
        }
        if (to - from == 1 && b[from] >= 0) {
            String expanded = compactForm((char) b[from]);
            if (expanded != null) {
                return expanded;
            }
        }
        for (String known : KNOWN_NAMES) {
            if (sameAscii(b, from, to, known)) {
                return known;
            }
        }
        return longName(utf8(b, from, to));
    }

    private static boolean sameAscii(byte[] b, int from, int to, String s) {
        if (to - from != s.length()) {
            return false;
        }
        for (int k = 0; k < s.length(); k++) {
            if (b[from + k] != s.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static String longName(String name) {
        if (name.length() != 1) {
            return name;
        }
        String expanded = compactForm(name.charAt(0));
        return expanded != null ? expanded : name;
    }

    /** The full name of a compact form (RFC 3261 §7.3.3), or null. */
    private static String compactForm(char c) {
        return switch (Character.toLowerCase(c)) {
            case 'v' -> "Via";
            case 'f' -> "From";
            case 't' -> "To";
            case 'i' -> "Call-ID";
            case 'm' -> "Contact";
            case 'l' -> "Content-Length";
            case 'c' -> "Content-Type";
            default -> null;
        };
    }

    private static String trimmedUtf8(byte[] b, int from, int to) {
        while (from < to && (b[from] & 0xFF) <= ' ') {
            from++;
        }
        while (to > from && (b[to - 1] & 0xFF) <= ' ') {
            to--;
        }
        return from == to ? "" : utf8(b, from, to);
    }

    private static String utf8(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }

    /** Whether this is a response. */
    public boolean isResponse() {
        return startLine.startsWith("SIP/2.0 ");
    }

    /** The status code of a response. */
    public int status() {
        return Integer.parseInt(startLine.substring(8, 11));
    }

    /** The method of a request. */
    public String method() {
        for (String m : KNOWN_METHODS) {
            if (startLine.length() > m.length() && startLine.startsWith(m) && startLine.charAt(m.length()) == ' ') {
                return m;
            }
        }
        return startLine.substring(0, startLine.indexOf(' '));
    }

    /** The start line. */
    public String startLine() {
        return startLine;
    }

    /** The first value of a header, or null. */
    public String header(String name) {
        for (int i = 0; i < fields.size(); i += 2) {
            if (fields.get(i).equalsIgnoreCase(name)) {
                return fields.get(i + 1);
            }
        }
        return null;
    }

    /** Every value of a header in order, comma-separated values split (for Via, Record-Route, Route). */
    public List<String> headers(String name) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < fields.size(); i += 2) {
            if (fields.get(i).equalsIgnoreCase(name)) {
                splitValues(fields.get(i + 1), out);
            }
        }
        return out;
    }

    /**
     * The first of {@link #headers(String)}, or null when there is no such header: the top Via,
     * without a list for the others.
     */
    public String topValue(String name) {
        String v = header(name);
        if (v == null) {
            return null;
        }
        int comma = nextComma(v, 0);
        return comma < 0 ? v.trim() : trimmed(v, 0, comma);
    }

    /**
     * Every value of a header in order, each line whole: for headers whose values hold commas of
     * their own, such as WWW-Authenticate and Proxy-Authenticate.
     */
    public List<String> headerLines(String name) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < fields.size(); i += 2) {
            if (fields.get(i).equalsIgnoreCase(name)) {
                out.add(fields.get(i + 1));
            }
        }
        return out;
    }

    /** The Call-ID. */
    public String callId() {
        return header("Call-ID");
    }

    /** The method in CSeq. */
    public String cseqMethod() {
        String c = header("CSeq");
        if (c == null) {
            return "";
        }
        int from = c.indexOf(' ') + 1;
        int to = c.length();
        while (from < to && c.charAt(from) <= ' ') {
            from++;
        }
        while (to > from && c.charAt(to - 1) <= ' ') {
            to--;
        }
        for (String m : KNOWN_METHODS) {
            if (to - from == m.length() && c.startsWith(m, from)) {
                return m;
            }
        }
        return c.substring(from, to).toUpperCase(Locale.ROOT);
    }

    /** The sequence number in CSeq, or -1 when there is none. */
    public long cseqNumber() {
        String c = header("CSeq");
        if (c == null) {
            return -1;
        }
        int space = c.indexOf(' ');
        try {
            return Long.parseLong((space < 0 ? c : c.substring(0, space)).trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The body. */
    public String body() {
        return body;
    }

    /**
     * A header parameter such as {@code tag} or {@code branch}, or null: the first {@code ;}-separated
     * part after the URI's {@code >} (or of the whole value) that starts with {@code name=}, name in
     * any case; its value runs to the next {@code ;}, whitespace around it trimmed.
     */
    public static String param(String value, String name) {
        if (value == null) {
            return null;
        }
        int n = name.length();
        int part = value.lastIndexOf('>') + 1;
        int length = value.length();
        while (part <= length) {
            int semi = value.indexOf(';', part);
            int partEnd = semi < 0 ? length : semi;
            int from = part;
            int to = partEnd;
            while (from < to && value.charAt(from) <= ' ') {
                from++;
            }
            while (to > from && value.charAt(to - 1) <= ' ') {
                to--;
            }
            if (to - from > n && value.regionMatches(true, from, name, 0, n) && value.charAt(from + n) == '=') {
                return value.substring(from + n + 1, to);
            }
            if (semi < 0) {
                break;
            }
            part = semi + 1;
        }
        return null;
    }

    /** The URI of a name-addr ({@code <sip:...>}) or addr-spec. */
    public static String uri(String value) {
        int lt = value.indexOf('<');
        if (lt >= 0) {
            return value.substring(lt + 1, value.indexOf('>', lt));
        }
        int semi = value.indexOf(';');
        return semi < 0 ? value.trim() : value.substring(0, semi).trim();
    }

    /**
     * The comma-separated values of a header line (RFC 3261 §7.3.1), each trimmed; commas in quotes
     * or {@code <>} kept.
     */
    static List<String> splitValues(String value) {
        List<String> out = new ArrayList<>();
        splitValues(value, out);
        return out;
    }

    private static void splitValues(String value, List<String> out) {
        int start = 0;
        int comma;
        while ((comma = nextComma(value, start)) >= 0) {
            out.add(trimmed(value, start, comma));
            start = comma + 1;
        }
        out.add(trimmed(value, start, value.length()));
    }

    /**
     * The next comma from {@code from} that separates values, or -1: outside quotes and angle
     * brackets. Every separating comma leaves the scan outside both, so each value starts afresh.
     */
    private static int nextComma(String value, int from) {
        int depth = 0;
        boolean quoted = false;
        for (int i = from; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '<') {
                depth++;
            } else if (!quoted && c == '>') {
                depth--;
            } else if (!quoted && depth == 0 && c == ',') {
                return i;
            }
        }
        return -1;
    }

    /** {@code value.substring(from, to).trim()} with one copy. */
    private static String trimmed(String value, int from, int to) {
        while (from < to && value.charAt(from) <= ' ') {
            from++;
        }
        while (to > from && value.charAt(to - 1) <= ' ') {
            to--;
        }
        return value.substring(from, to);
    }

    @Override
    public String toString() {
        return startLine;
    }
}
