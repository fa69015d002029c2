package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The top Via of a raw request, read without parsing the message (RFC 3261 §20.42): its sent-by,
 * its branch and whether it asks for {@code rport} (RFC 3581), in the plain form
 * {@code SIP/2.0/UDP host[:port];...;branch=...} with a host name or IPv4 address and no quoted
 * parameter. Anything else (an IPv6 reference, LWS inside the sent-protocol or around the port's
 * colon, a quoted parameter, two branches, no branch, a branch that is not a token, a host with
 * other characters than a name's) is not read here and is left to the parser.
 * Threading: immutable.
 *
 * @param entry  the top Via's value as received, up to the comma that starts the next one
 * @param host   the sent-by host
 * @param port   the sent-by port, or -1 when it has none
 * @param branch the branch parameter
 * @param rport  whether the Via carries an {@code rport} parameter
 */
public record TopVia(String entry, String host, int port, String branch, boolean rport) {

    /** Whether {@code branch} is an RFC 3261 branch: one starting with the magic cookie {@code z9hG4bK}, in any case (§8.1.1.7). */
    public static boolean rfc3261Branch(String branch) {
        return branch != null && branch.regionMatches(true, 0, "z9hG4bK", 0, 7);
    }

    /** The top Via of {@code request}, or null when it has none or it is not in the form read here. */
    public static TopVia read(byte[] request) {
        return SipHead.of(request).topVia();
    }

    /**
     * The top Via of a Via header's value (its first entry), or null as for {@link #read}. One walk
     * over the value by index (this runs for every message the byte paths take): only the entry,
     * its host and its branch become strings.
     */
    public static TopVia of(String via) {
        int n = via.length();
        int end = n;
        for (int i = 0; i < n; i++) {
            char c = via.charAt(i);
            if (c == '"' || c == '[') {
                return null;
            }
            if (c == ',' && end == n) {
                end = i;
            }
        }
        // the entry, trimmed as String.trim does
        int s = 0;
        while (s < end && via.charAt(s) <= ' ') {
            s++;
        }
        while (end > s && via.charAt(end - 1) <= ' ') {
            end--;
        }
        int semi = indexOf(via, ';', s, end);
        // sent-protocol and sent-by, one run of blanks between them
        int sentEnd = SipHead.trimEnd(via, s, semi);
        int blank = s;
        while (blank < sentEnd && via.charAt(blank) != ' ' && via.charAt(blank) != '\t') {
            blank++;
        }
        int hostStart = SipHead.trimStart(via, blank, sentEnd);
        // the transport a token (§20.42): the parse drops a Via line with another, and reads the next
        if (blank - s < 9 || !via.regionMatches(true, s, "SIP/2.0/", 0, 8) || !token(via, s + 8, blank)
                || indexOf(via, ' ', hostStart, sentEnd) < sentEnd || indexOf(via, '\t', hostStart, sentEnd) < sentEnd) {
            return null;
        }
        int port = -1;
        int hostEnd = indexOf(via, ':', hostStart, sentEnd);
        if (hostEnd < sentEnd) {
            port = port(via, hostEnd + 1, sentEnd);
            if (port < 0) {
                return null;
            }
        }
        if (hostEnd == hostStart) {
            return null;
        }
        String branch = null;
        boolean rport = false;
        int p = semi;
        while (p < end) {
            int paramStart = p + 1;
            int paramEnd = indexOf(via, ';', paramStart, end);
            int eq = indexOf(via, '=', paramStart, paramEnd);
            int nameStart = SipHead.trimStart(via, paramStart, eq);
            int nameEnd = SipHead.trimEnd(via, nameStart, eq);
            int valueStart = eq < paramEnd ? SipHead.trimStart(via, eq + 1, paramEnd) : paramEnd;
            int valueEnd = SipHead.trimEnd(via, valueStart, paramEnd);
            if (!token(via, nameStart, nameEnd) || eq < paramEnd && !token(via, valueStart, valueEnd)) {
                // RFC 3261 §20.42: via-params are token [= token / host]; the parse reads past
                // anything else otherwise than this would (a name with blanks in it, say)
                return null;
            }
            if (nameIs(via, nameStart, nameEnd, "branch")) {
                if (branch != null) {
                    return null;
                }
                // a branch without a value reads as its name, as it always has here
                branch = eq < paramEnd ? via.substring(valueStart, valueEnd) : via.substring(nameStart, nameEnd);
            } else if (nameIs(via, nameStart, nameEnd, "rport")) {
                rport = true;
            }
            p = paramEnd;
        }
        // the parse reads a branch as one token and a host as a name or an address: past a character
        // outside them it reads less than this would, so such a Via is left to it
        return branch == null || !hostChars(via, hostStart, hostEnd) ? null
                : new TopVia(via.substring(s, end), via.substring(hostStart, hostEnd), port, branch, rport);
    }

    /** The index of {@code c} in {@code s} from {@code from} before {@code to}, or {@code to}. */
    private static int indexOf(String s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return to;
    }

    /** Whether {@code s} from {@code from} to {@code to} spells the lower-case {@code name}, in any case. */
    private static boolean nameIs(String s, int from, int to, String name) {
        return to - from == name.length() && s.regionMatches(true, from, name, 0, name.length());
    }

    /** Whether {@code s} from {@code from} to {@code to} is a non-empty RFC 3261 token (§25.1). */
    private static boolean token(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!tokenChar(s.charAt(i))) {
                return false;
            }
        }
        return to > from;
    }

    private static boolean tokenChar(char c) {
        return c < 128 && TOKEN[c];
    }

    /** RFC 3261 §25.1 token characters, by ASCII code. */
    private static final boolean[] TOKEN = new boolean[128];

    static {
        for (char c = 0; c < 128; c++) {
            TOKEN[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-.!%*_+`'~".indexOf(c) >= 0;
        }
    }

    /** Whether a sent-by host holds only the characters of a host name or an IPv4 address. */
    private static boolean hostChars(String host, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = host.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')) {
                return false;
            }
        }
        return true;
    }

    /** A port number's digits from {@code from} to {@code to} as a number, or -1. */
    private static int port(String s, int from, int to) {
        if (to == from || to - from > 5) {
            return -1;
        }
        int port = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535 ? port : -1;
    }

    /**
     * The entry as a response to the request copies it once the server has tagged it on receipt
     * (RFC 3261 §18.2.1, RFC 3581 §4), as the transport tags a request it parses: {@code received}
     * with the source address when the Via asks for rport or names another host, and rport's value
     * the source port. Other parameters stay as they came.
     */
    public String tagged(InetSocketAddress source) {
        boolean received = rport || !AddressText.sameHost(host, source.getAddress());
        if (!received) {
            return entry;
        }
        String[] parts = entry.split(";", -1);
        StringBuilder sb = new StringBuilder(entry.length() + 40).append(parts[0].trim());
        for (int i = 1; i < parts.length; i++) {
            String name = paramName(parts[i]);
            if (!name.equals("received") && !(rport && name.equals("rport"))) {
                sb.append(';').append(parts[i].trim());
            }
        }
        sb.append(";received=").append(AddressText.of(source.getAddress()));
        if (rport) {
            sb.append(";rport=").append(source.getPort());
        }
        return sb.toString();
    }

    /**
     * The entry tagged with {@code received} and {@code rport} from {@code source} whether or not it
     * asked for rport (other parameters as they came): over a connection, a response that has no
     * transaction to carry it back finds the connection its request came in on by these two.
     */
    public String taggedWithSource(InetSocketAddress source) {
        return new TopVia(entry, host, port, branch, true).tagged(source);
    }

    /** The lower-case name of a Via parameter ({@code name[=value]}). */
    private static String paramName(String param) {
        int eq = param.indexOf('=');
        return (eq >= 0 ? param.substring(0, eq) : param).trim().toLowerCase(Locale.ROOT);
    }
}
