package org.sipcrypt.server.sip.proxy;

import java.util.Locale;

/**
 * A SIP or SIPS URI read from its text without the parser, in the plain form proxies write in
 * Record-Route and user agents copy back: {@code sip[s]:[user@]host[:port][;params][?headers]}
 * with a host name or an IPv4 address. An IPv6 reference, a host with any other character, a port
 * that is not a number of 1 to 5 digits and any other scheme are not read here.
 * Threading: immutable.
 *
 * @param secure whether the scheme is sips
 * @param host   the host, as written
 * @param port   the port, or -1 when it has none
 * @param params the URI parameters, each with its leading {@code ;}, as written (may be empty)
 */
record SipUriText(boolean secure, String host, int port, String params) {

    /** The URI {@code uri} spells, or null when it is not in the form read here. */
    static SipUriText read(String uri) {
        int colon = uri.indexOf(':');
        boolean secure;
        if (colon == 3 && uri.regionMatches(true, 0, "sip", 0, 3)) {
            secure = false;
        } else if (colon == 4 && uri.regionMatches(true, 0, "sips", 0, 4)) {
            secure = true;
        } else {
            return null;
        }
        int end = uri.indexOf('?', colon);
        if (end < 0) {
            end = uri.length();
        }
        // a user part may hold ';' (user parameters) but never an unescaped '@'
        int at = uri.lastIndexOf('@', end - 1);
        int hostStart = Math.max(at + 1, colon + 1);
        int semi = uri.indexOf(';', hostStart);
        int hostEnd = semi >= 0 && semi < end ? semi : end;
        int portColon = uri.indexOf(':', hostStart);
        int port = -1;
        int nameEnd = hostEnd;
        if (portColon >= 0 && portColon < hostEnd) {
            port = port(uri, portColon + 1, hostEnd);
            if (port < 0) {
                return null;
            }
            nameEnd = portColon;
        }
        if (nameEnd == hostStart) {
            return null;
        }
        for (int i = hostStart; i < nameEnd; i++) {
            char c = uri.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-')) {
                return null;
            }
        }
        return new SipUriText(secure, uri.substring(hostStart, nameEnd), port, uri.substring(hostEnd, end));
    }

    /** The value of the URI parameter {@code name} (lower-case), "" for one without a value, or null when absent. */
    String param(String name) {
        int from = 0;
        while (from < params.length()) {
            int next = params.indexOf(';', from + 1);
            if (next < 0) {
                next = params.length();
            }
            // params.charAt(from) is ';'
            int eq = params.indexOf('=', from);
            int nameEnd = eq >= 0 && eq < next ? eq : next;
            if (params.substring(from + 1, nameEnd).trim().toLowerCase(Locale.ROOT).equals(name)) {
                return nameEnd == next ? "" : params.substring(nameEnd + 1, next).trim();
            }
            from = next;
        }
        return null;
    }

    /**
     * The host as the four bytes of an IPv4 address written in its one dotted form (four decimal
     * parts, no leading zeros), or null when it is not one.
     */
    byte[] ipv4() {
        byte[] ip = new byte[4];
        int part = 0;
        int value = -1;
        for (int i = 0; i <= host.length(); i++) {
            char c = i < host.length() ? host.charAt(i) : '.';
            if (c == '.') {
                if (value < 0 || part == 4) {
                    return null;
                }
                ip[part++] = (byte) value;
                value = -1;
            } else if (c >= '0' && c <= '9') {
                if (value == 0) {
                    // a leading zero: not the one dotted form, which a text comparison with our own
                    // addresses would miss (127.0.0.01 is 127.0.0.1 to the JDK), so left to the stack
                    return null;
                }
                value = value < 0 ? c - '0' : value * 10 + (c - '0');
                if (value > 255) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return part == 4 ? ip : null;
    }

    /** The port written between {@code from} and {@code to}, or -1 when it is not 1 to 5 digits up to 65535. */
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
}
