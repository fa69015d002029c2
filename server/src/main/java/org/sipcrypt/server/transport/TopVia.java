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

    /** The top Via of a Via header's value (its first entry), or null as for {@link #read}. */
    static TopVia of(String via) {
        if (via.indexOf('"') >= 0 || via.indexOf('[') >= 0) {
            return null;
        }
        int comma = via.indexOf(',');
        String top = (comma >= 0 ? via.substring(0, comma) : via).trim();
        String[] parts = top.split(";", -1);
        // sent-protocol and sent-by, one run of blanks between them (no regex: this runs per datagram)
        String sentPart = parts[0].trim();
        int blank = 0;
        while (blank < sentPart.length() && sentPart.charAt(blank) != ' ' && sentPart.charAt(blank) != '\t') {
            blank++;
        }
        String host = sentPart.substring(blank).trim();
        // the transport a token (§20.42): the parse drops a Via line with another, and reads the next
        if (blank < 9 || !sentPart.regionMatches(true, 0, "SIP/2.0/", 0, 8) || !token(sentPart.substring(8, blank))
                || host.indexOf(' ') >= 0 || host.indexOf('\t') >= 0) {
            return null;
        }
        int port = -1;
        int colon = host.indexOf(':');
        if (colon >= 0) {
            port = port(host.substring(colon + 1));
            host = host.substring(0, colon);
            if (port < 0) {
                return null;
            }
        }
        if (host.isEmpty()) {
            return null;
        }
        String branch = null;
        boolean rport = false;
        for (int i = 1; i < parts.length; i++) {
            String name = paramName(parts[i]);
            int eq = parts[i].indexOf('=');
            if (!token(name) || eq >= 0 && !token(parts[i].substring(eq + 1).trim())) {
                // RFC 3261 §20.42: via-params are token [= token / host]; the parse reads past
                // anything else otherwise than this would (a name with blanks in it, say)
                return null;
            }
            if (name.equals("branch")) {
                if (branch != null) {
                    return null;
                }
                branch = parts[i].substring(parts[i].indexOf('=') + 1).trim();
            } else if (name.equals("rport")) {
                rport = true;
            }
        }
        // the parse reads a branch as one token and a host as a name or an address: past a character
        // outside them it reads less than this would, so such a Via is left to it
        return branch == null || !token(branch) || !hostChars(host) ? null : new TopVia(top, host, port, branch, rport);
    }

    /** Whether {@code s} is a non-empty RFC 3261 token (§25.1). */
    private static boolean token(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-.!%*_+`'~".indexOf(c) >= 0)) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    /** Whether a sent-by host holds only the characters of a host name or an IPv4 address. */
    private static boolean hostChars(String host) {
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')) {
                return false;
            }
        }
        return true;
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

    /** A port number's digits as a number, or -1. */
    private static int port(String digits) {
        if (digits.isEmpty() || digits.length() > 5) {
            return -1;
        }
        int port = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535 ? port : -1;
    }
}
