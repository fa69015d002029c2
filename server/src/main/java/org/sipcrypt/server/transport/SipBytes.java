package org.sipcrypt.server.transport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads single header values out of raw SIP message bytes without parsing the message: enough to
 * pick a worker lane by Call-ID on the event loop, and to answer a message that does not parse.
 * Header names match case-insensitively, compact forms included (RFC 3261 §7.3.3).
 * <p>What these readers find is what JAIN-SIP's parse finds only in a message of plain form, and
 * {@link #irregularity} is the one rule that says so: every reader that acts on a message without
 * its parse (the early answers, the kept transactions, the stateless relay, the overload guard's
 * dialog test) asks it first and leaves any message it names to the parse.
 * Threading: stateless; safe from any thread.
 */
public final class SipBytes {

    private SipBytes() {
    }

    /** The Call-ID value ({@code Call-ID} or {@code i}), or {@code null}. */
    public static String callId(byte[] msg) {
        return headerValue(msg, "call-id", "i");
    }

    /**
     * The method of a request, read from its request line ({@code METHOD SP Request-URI SP
     * SIP/2.0}), or {@code null} for a response or anything else: only upper-case letters before the
     * first space count as a method here.
     */
    public static String requestMethod(byte[] msg) {
        int i = 0;
        while (i < msg.length && i <= 16 && msg[i] >= 'A' && msg[i] <= 'Z') {
            i++;
        }
        return i > 0 && i < msg.length && msg[i] == ' ' ? new String(msg, 0, i, StandardCharsets.US_ASCII) : null;
    }

    /** Whether the message starts with a status line's {@code SIP/2.0 }. */
    public static boolean isResponse(byte[] msg) {
        return msg.length > 8 && msg[0] == 'S' && msg[1] == 'I' && msg[2] == 'P' && msg[3] == '/' && msg[4] == '2'
                && msg[5] == '.' && msg[6] == '0' && msg[7] == ' ';
    }

    /**
     * The first value of a header within the header section, or {@code null}.
     *
     * @param longName  lower-case header name
     * @param shortName lower-case compact form, or {@code null}
     */
    public static String headerValue(byte[] msg, String longName, String shortName) {
        return scan(msg, longName, shortName, null);
    }

    /**
     * Every value of a header within the header section, in order (one per header line; values
     * a line joins with commas stay together).
     *
     * @param longName  lower-case header name
     * @param shortName lower-case compact form, or {@code null}
     */
    public static List<String> headerValues(byte[] msg, String longName, String shortName) {
        List<String> values = new ArrayList<>(2);
        scan(msg, longName, shortName, values);
        return values;
    }

    /**
     * How many header lines of each name the header section holds, counted in one pass.
     *
     * @param names for each header, its lower-case name and its lower-case compact form (or null)
     * @return the counts, in the order of {@code names}
     */
    public static int[] headerCounts(byte[] msg, String[][] names) {
        int[] counts = new int[names.length];
        int end = msg.length;
        int lineStart = nextLine(msg, 0, end);
        while (lineStart >= 0 && lineStart < end && msg[lineStart] != '\r' && msg[lineStart] != '\n') {
            for (int i = 0; i < names.length; i++) {
                if (matchName(msg, lineStart, end, names[i][0]) >= 0
                        || names[i][1] != null && matchName(msg, lineStart, end, names[i][1]) >= 0) {
                    counts[i]++;
                    break;
                }
            }
            lineStart = nextLine(msg, lineStart, end);
        }
        return counts;
    }

    /**
     * Scans the header section for a header: returns its first value when {@code all} is null
     * (nothing allocated but that value), else adds every value to {@code all} and returns null.
     */
    private static String scan(byte[] msg, String longName, String shortName, List<String> all) {
        int end = msg.length;
        int lineStart = nextLine(msg, 0, end);
        // stop at the blank line that ends the headers: the body is not searched
        while (lineStart >= 0 && lineStart < end && msg[lineStart] != '\r' && msg[lineStart] != '\n') {
            int valueStart = matchName(msg, lineStart, end, longName);
            if (valueStart < 0 && shortName != null) {
                valueStart = matchName(msg, lineStart, end, shortName);
            }
            if (valueStart >= 0) {
                int lineEnd = lineEnd(msg, valueStart, end);
                String value = new String(msg, valueStart, lineEnd - valueStart, StandardCharsets.UTF_8).trim();
                if (all == null) {
                    return value;
                }
                all.add(value);
            }
            lineStart = nextLine(msg, lineStart, end);
        }
        return null;
    }

    /**
     * Headers the byte readers read and a message may carry once (RFC 3261 §7.3.1, §20): each row
     * a long name and its compact form (or null), lower case; a compact and a long line count together.
     */
    private static final String[][] READ_ONCE = {
        {"call-id", "i"}, {"from", "f"}, {"to", "t"}, {"cseq", null}, {"max-forwards", null},
        {"content-length", "l"},
    };

    /**
     * Why the readers of this class could read {@code msg} otherwise than JAIN-SIP's parse does,
     * or null when it is in the plain form they read exactly: a start line at the first byte, every header line a
     * name that is an RFC 3261 token (§25.1) followed only by optional SP or HTAB and a colon, no line
     * folded (§7.3.1), no control character but HTAB before the line end (CRLF or LF, §7.5), a blank
     * line after the headers, none of Call-ID, From, To, CSeq, Max-Forwards and Content-Length twice
     * (long and compact forms counted together), and a From or To with at most one {@code tag}
     * parameter, a token, after an address free of quotes in its parameters. The parse would take a
     * name as the text before the colon trimmed of every character up to U+0020, the first of
     * two Call-IDs and the last of two tags, where these readers would take another line or value.
     *
     * @return null, or the reason: {@code start_line} (not starting with a method or SIP), {@code header_name}, {@code folded_line}, {@code control_character},
     *     {@code no_blank_line}, {@code duplicate_header} or {@code header_params}
     */
    public static String irregularity(byte[] msg) {
        int end = msg.length;
        if (end == 0 || !tokenChar(msg[0])) {
            // the parse skips line ends before the start line (RFC 3261 §7.5); the readers do not
            return "start_line";
        }
        int i = 0;
        // the start line: no control character but the line end
        while (i < end && msg[i] != '\n') {
            if (control(msg[i]) && !(msg[i] == '\r' && i + 1 < end && msg[i + 1] == '\n')) {
                return "control_character";
            }
            i++;
        }
        int[] counts = new int[READ_ONCE.length];
        for (int lineStart = i + 1; ; ) {
            if (lineStart >= end) {
                return "no_blank_line";
            }
            byte first = msg[lineStart];
            if (first == '\n' || first == '\r' && lineStart + 1 < end && msg[lineStart + 1] == '\n') {
                break;
            }
            if (first == ' ' || first == '\t') {
                return "folded_line";
            }
            int nameEnd = lineStart;
            while (nameEnd < end && tokenChar(msg[nameEnd])) {
                nameEnd++;
            }
            int colon = nameEnd;
            while (colon < end && (msg[colon] == ' ' || msg[colon] == '\t')) {
                colon++;
            }
            if (nameEnd == lineStart || colon >= end || msg[colon] != ':') {
                return "header_name";
            }
            int lineEnd = colon + 1;
            while (lineEnd < end && msg[lineEnd] != '\n') {
                if (control(msg[lineEnd]) && msg[lineEnd] != '\t'
                        && !(msg[lineEnd] == '\r' && lineEnd + 1 < end && msg[lineEnd + 1] == '\n')) {
                    return "control_character";
                }
                lineEnd++;
            }
            if (lineEnd >= end) {
                return "no_blank_line";
            }
            for (int h = 0; h < READ_ONCE.length; h++) {
                if (nameIs(msg, lineStart, nameEnd, READ_ONCE[h][0])
                        || READ_ONCE[h][1] != null && nameIs(msg, lineStart, nameEnd, READ_ONCE[h][1])) {
                    if (++counts[h] > 1) {
                        return "duplicate_header";
                    }
                    if ((h == 1 || h == 2) && tagCount(new String(msg, colon + 1, lineEnd - colon - 1,
                            StandardCharsets.ISO_8859_1)) > 1) {
                        return "header_params";
                    }
                    break;
                }
            }
            lineStart = lineEnd + 1;
        }
        return null;
    }

    /**
     * The {@code tag} parameter of a From or To value (RFC 3261 §20.20, §20.39), or null when it
     * has none: the parameters after the {@code >} that closes the URI of a name-addr, or after
     * the first semicolon of an addr-spec (§20: a URI with parameters is in angle brackets).
     * Meant for a message {@link #irregularity} passed, whose From and To have one tag at most.
     */
    public static String tag(String value) {
        String params = headerParams(value);
        if (params == null) {
            return null;
        }
        for (String param : params.split(";")) {
            int eq = param.indexOf('=');
            if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("tag")) {
                String tag = param.substring(eq + 1).trim();
                return tag.isEmpty() ? null : tag;
            }
        }
        return null;
    }

    /**
     * How many {@code tag} parameters a From or To value has; 2 (as for a repeat) when its
     * parameters are not in the plain form {@link #tag} reads: a quote, an angle bracket, a
     * question mark or a comma, or a tag that is not one token.
     */
    static int tagCount(String value) {
        String params = headerParams(value);
        if (params == null) {
            return 2;
        }
        if (params.indexOf('"') >= 0 || params.indexOf('<') >= 0 || params.indexOf('>') >= 0
                || params.indexOf('?') >= 0 || params.indexOf(',') >= 0) {
            return 2;
        }
        int tags = 0;
        for (String param : params.split(";", -1)) {
            int eq = param.indexOf('=');
            if ((eq >= 0 ? param.substring(0, eq) : param).trim().equalsIgnoreCase("tag")) {
                String tag = eq >= 0 ? param.substring(eq + 1).trim() : "";
                if (tag.isEmpty() || !token(tag)) {
                    return 2;
                }
                tags++;
            }
        }
        return tags;
    }

    /**
     * The header parameters of a From or To value, from the semicolon that starts them ("" when
     * there are none), or null when the value's address cannot be told apart: an unclosed quote
     * or angle bracket, or an addr-spec with a quote, a question mark or a comma, or a scheme other
     * than sip or sips.
     */
    private static String headerParams(String value) {
        boolean quoted = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == '<') {
                int close = value.indexOf('>', i);
                return close < 0 ? null : value.substring(close + 1);
            }
        }
        String uri = value.trim();
        if (quoted || value.indexOf('"') >= 0 || !uri.regionMatches(true, 0, "sip:", 0, 4)
                && !uri.regionMatches(true, 0, "sips:", 0, 5)) {
            // the parse reads the parameters of an addr-spec of another scheme as the URI's
            return null;
        }
        int semi = value.indexOf(';');
        String addr = semi >= 0 ? value.substring(0, semi) : value;
        if (addr.indexOf('?') >= 0 || addr.indexOf(',') >= 0) {
            // RFC 3261 §20: such a URI goes in angle brackets; the parse takes what follows '?' as its headers
            return null;
        }
        return semi >= 0 ? value.substring(semi) : "";
    }

    /** Whether {@code s} is a non-empty RFC 3261 token. */
    private static boolean token(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0x7e || !tokenChar((byte) c)) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    /** RFC 3261 §25.1: token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~"). */
    private static boolean tokenChar(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '.'
                || b == '!' || b == '%' || b == '*' || b == '_' || b == '+' || b == '`' || b == '\'' || b == '~';
    }

    private static boolean control(byte b) {
        return b >= 0 && b < 0x20 || b == 0x7f;
    }

    /** Whether the bytes from {@code start} to {@code end} spell the lower-case {@code name}, in any case. */
    private static boolean nameIs(byte[] msg, int start, int end, String name) {
        if (end - start != name.length()) {
            return false;
        }
        for (int k = 0; k < name.length(); k++) {
            int c = msg[start + k];
            if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Offset of the body: just past the empty line ending the headers, whether lines end in CRLF or
     * in a bare LF (RFC 3261 §7.5, which JAIN-SIP's parse accepts too), or the message length when
     * there is none.
     */
    public static int bodyStart(byte[] msg) {
        int lineStart = nextLine(msg, 0, msg.length);
        while (lineStart >= 0 && lineStart < msg.length) {
            if (msg[lineStart] == '\n') {
                return lineStart + 1;
            }
            if (msg[lineStart] == '\r' && lineStart + 1 < msg.length && msg[lineStart + 1] == '\n') {
                return lineStart + 2;
            }
            lineStart = nextLine(msg, lineStart, msg.length);
        }
        return msg.length;
    }

    /** Offset of the blank line ending the headers, or the message length when there is none. */
    public static int headerSectionEnd(byte[] msg) {
        for (int i = 0; i + 3 < msg.length; i++) {
            if (msg[i] == '\r' && msg[i + 1] == '\n' && msg[i + 2] == '\r' && msg[i + 3] == '\n') {
                return i + 2;
            }
        }
        return msg.length;
    }

    private static int nextLine(byte[] msg, int from, int end) {
        for (int i = from; i < end; i++) {
            if (msg[i] == '\n') {
                return i + 1;
            }
        }
        return -1;
    }

    private static int lineEnd(byte[] msg, int from, int end) {
        for (int i = from; i < end; i++) {
            if (msg[i] == '\r' || msg[i] == '\n') {
                return i;
            }
        }
        return end;
    }

    /** Offset after "name *:" at {@code start}, or -1. */
    private static int matchName(byte[] msg, int start, int end, String name) {
        int n = name.length();
        if (start + n >= end) {
            return -1;
        }
        for (int k = 0; k < n; k++) {
            int c = msg[start + k];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != name.charAt(k)) {
                return -1;
            }
        }
        int i = start + n;
        while (i < end && (msg[i] == ' ' || msg[i] == '\t')) {
            i++;
        }
        return i < end && msg[i] == ':' ? i + 1 : -1;
    }
}
