package org.sipcrypt.lab.loadgen;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A SIP message as the generator needs it: the start line, the headers in order (compact forms
 * expanded, RFC 3261 §7.3.3) and the body. Only what the call flow reads is interpreted.
 * Threading: immutable after {@link #parse}.
 */
public final class SipMessage {

    private final String startLine;
    private final List<String[]> headers;
    private final String body;

    private SipMessage(String startLine, List<String[]> headers, String body) {
        this.startLine = startLine;
        this.headers = headers;
        this.body = body;
    }

    /**
     * Parses one whole message.
     *
     * @throws IllegalArgumentException when there is no start line or a header has no colon
     */
    public static SipMessage parse(byte[] bytes, int off, int len) {
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
        return new SipMessage(lines[0], headers, body);
    }

    private static String longName(String name) {
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
        return startLine.substring(0, startLine.indexOf(' '));
    }

    /** The start line. */
    public String startLine() {
        return startLine;
    }

    /** The first value of a header, or null. */
    public String header(String name) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    /** Every value of a header in order, comma-separated values split (for Via, Record-Route, Route). */
    public List<String> headers(String name) {
        List<String> out = new ArrayList<>();
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                out.addAll(splitValues(h[1]));
            }
        }
        return out;
    }

    /**
     * Every value of a header in order, each line whole: for headers whose values hold commas of
     * their own, such as WWW-Authenticate and Proxy-Authenticate.
     */
    public List<String> headerLines(String name) {
        List<String> out = new ArrayList<>();
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                out.add(h[1]);
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
        return c == null ? "" : c.substring(c.indexOf(' ') + 1).trim().toUpperCase(Locale.ROOT);
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

    /** A header parameter such as {@code tag} or {@code branch}, or null. */
    public static String param(String value, String name) {
        if (value == null) {
            return null;
        }
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

    /** The URI of a name-addr ({@code <sip:...>}) or addr-spec. */
    public static String uri(String value) {
        int lt = value.indexOf('<');
        if (lt >= 0) {
            return value.substring(lt + 1, value.indexOf('>', lt));
        }
        int semi = value.indexOf(';');
        return semi < 0 ? value.trim() : value.substring(0, semi).trim();
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

    @Override
    public String toString() {
        return startLine;
    }
}
