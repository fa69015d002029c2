package org.sipcrypt.server.transport;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP addresses as SIP writes them: IPv4 dotted, IPv6 in the compressed form of RFC 5952 without
 * a zone index (the JDK writes {@code 0:0:0:0:0:0:0:1%0}, which no peer expects in a
 * {@code received} parameter).
 * Threading: stateless; safe from any thread.
 */
public final class AddressText {

    private AddressText() {
    }

    /** The address in SIP's textual form (no brackets). */
    public static String of(InetAddress address) {
        String text = address.getHostAddress();
        if (!(address instanceof Inet6Address)) {
            return text;
        }
        int zone = text.indexOf('%');
        return compress(zone >= 0 ? text.substring(0, zone) : text);
    }

    /**
     * Whether a Via host names this address: equal text for IPv4 and names, equal addresses for
     * IPv6 literals however they are written (brackets, zeros).
     */
    public static boolean sameHost(String viaHost, InetAddress address) {
        String h = viaHost.startsWith("[") && viaHost.endsWith("]") ? viaHost.substring(1, viaHost.length() - 1) : viaHost;
        if (h.indexOf(':') < 0) {
            return h.equals(address.getHostAddress());
        }
        try {
            // a literal: parsed without any name lookup
            return InetAddress.getByName(h).equals(address);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** RFC 5952 §4: lower-case, no leading zeros, the longest run of two or more zero groups as "::". */
    static String compress(String full) {
        String[] groups = full.split(":", -1);
        if (groups.length != 8) {
            return full;
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (Integer.parseInt(groups[i], 16) == 0) {
                int j = i;
                while (j < 8 && Integer.parseInt(groups[j], 16) == 0) {
                    j++;
                }
                if (j - i > bestLen) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (bestLen >= 2 && i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(Integer.parseInt(groups[i], 16)));
        }
        return sb.toString();
    }
}
