package org.sipcrypt.server.sip;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import org.sipcrypt.server.transport.AddressText;

/**
 * Decides whether a URI names this server: a configured domain (any port), or one of the
 * addresses peers reach the listeners at with that listener's port (5060 when the URI has none):
 * the advertised host and port of each, and the address it is bound to with its port (for a listener
 * on a wildcard address, each address of the machine's interfaces). A URI on our IP address but
 * another port is someone else, e.g. a user agent on the same host.
 * Threading: immutable.
 */
public final class LocalDomains {

    private final Set<String> domains;
    private final Map<String, Set<Integer>> addresses;

    /**
     * @param domains   configured domain names served (any port)
     * @param addresses listening IP addresses (and their host names)
     * @param ports     listening ports, each with each of {@code addresses}
     */
    public LocalDomains(Collection<String> domains, Collection<String> addresses, Collection<Integer> ports) {
        this(domains, addresses.stream().collect(Collectors.toMap(a -> a, a -> Set.copyOf(ports), (x, y) -> x)));
    }

    /**
     * @param domains   configured domain names served (any port)
     * @param addresses each host (IP address or name) peers reach this server at, with the ports
     *                  they reach it on at that host
     */
    public LocalDomains(Collection<String> domains, Map<String, ? extends Collection<Integer>> addresses) {
        this.domains = lower(domains);
        Map<String, Set<Integer>> byHost = new HashMap<>();
        addresses.forEach((host, ports) -> byHost.computeIfAbsent(normalize(host), h -> new HashSet<>()).addAll(ports));
        Map<String, Set<Integer>> frozen = new HashMap<>();
        byHost.forEach((host, ports) -> frozen.put(host, Set.copyOf(ports)));
        this.addresses = Map.copyOf(frozen);
    }

    private static Set<String> lower(Collection<String> hosts) {
        return hosts.stream().map(LocalDomains::normalize).collect(Collectors.toUnmodifiableSet());
    }

    /**
     * A host as compared here: lower case, without brackets, and an IP literal in its one written
     * form, so that an address is compared as an address: {@code 127.0.0.01}, {@code 127.1} and
     * {@code 2130706433} are {@code 127.0.0.1} to the JDK's resolver, and {@code [0:0::1]} is
     * {@code ::1}. Never looks a name up.
     */
    static String normalize(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        byte[] v4 = ipv4Literal(h);
        if (v4 != null) {
            return (v4[0] & 0xff) + "." + (v4[1] & 0xff) + "." + (v4[2] & 0xff) + "." + (v4[3] & 0xff);
        }
        if (h.indexOf(':') >= 0) {
            try {
                // a literal with a colon is parsed without any name lookup
                return AddressText.of(InetAddress.getByName(h));
            } catch (UnknownHostException e) {
                return h;
            }
        }
        return h;
    }

    /**
     * The IPv4 address a host written in one of the forms the JDK takes as a literal stands for
     * ({@code a.b.c.d}, {@code a.b.c}, {@code a.b}, {@code a}, decimal, leading zeros allowed), or null.
     */
    static byte[] ipv4Literal(String h) {
        if (h.isEmpty() || h.length() > 64 || h.charAt(0) == '.' || h.charAt(h.length() - 1) == '.') {
            return null;
        }
        long[] parts = new long[4];
        int n = 0;
        long value = 0;
        int digits = 0;
        for (int i = 0; i <= h.length(); i++) {
            char c = i < h.length() ? h.charAt(i) : '.';
            if (c == '.') {
                if (digits == 0 || n == 4) {
                    return null;
                }
                parts[n++] = value;
                value = 0;
                digits = 0;
            } else if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
                if (++digits > 12 || value > 0xffffffffL) {
                    return null;
                }
            } else {
                return null;
            }
        }
        long address;
        switch (n) {
            case 1 -> address = parts[0];
            case 2 -> address = parts[0] > 0xff || parts[1] > 0xffffff ? -1 : parts[0] << 24 | parts[1];
            case 3 -> address = parts[0] > 0xff || parts[1] > 0xff || parts[2] > 0xffff ? -1
                    : parts[0] << 24 | parts[1] << 16 | parts[2];
            default -> address = parts[0] > 0xff || parts[1] > 0xff || parts[2] > 0xff || parts[3] > 0xff ? -1
                    : parts[0] << 24 | parts[1] << 16 | parts[2] << 8 | parts[3];
        }
        if (address < 0) {
            return null;
        }
        return new byte[] {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
    }

    /** Whether the URI is a SIP(S) URI addressed to this server. */
    public boolean isLocal(URI uri) {
        if (!(uri instanceof SipURI sip)) {
            return false;
        }
        return isLocal(sip.getHost(), sip.getPort());
    }

    /** Whether host and port (-1 for none) name this server. */
    public boolean isLocal(String host, int port) {
        String h = normalize(host);
        if (domains.contains(h)) {
            return true;
        }
        Set<Integer> ports = addresses.get(h);
        return ports != null && ports.contains(port <= 0 ? 5060 : port);
    }

    /** Whether the host is one of our domains or addresses, whatever the port (for addresses-of-record). */
    public boolean isLocalDomain(String host) {
        String h = normalize(host);
        return domains.contains(h) || addresses.containsKey(h);
    }

    @Override
    public String toString() {
        return "domains=" + domains + " addresses=" + new TreeMap<>(addresses);
    }
}
