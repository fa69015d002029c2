package org.sipcrypt.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * A block of IP addresses, written as an address ({@code 192.0.2.10}, {@code ::1}) or in CIDR
 * notation ({@code 10.0.0.0/8}, {@code 2001:db8::/32}); used for {@code auth.trustedPeers}.
 * Only literal addresses are accepted: a host name would make trust depend on DNS.
 * Threading: immutable.
 *
 * @param network      the first address of the block (host bits cleared)
 * @param prefixLength how many leading bits an address must share with {@code network}
 */
public record AddressBlock(InetAddress network, int prefixLength) {

    public AddressBlock {
        Objects.requireNonNull(network, "network");
        int bits = network.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " outside 0.." + bits);
        }
        network = masked(network, prefixLength);
    }

    /**
     * Parses {@code ADDRESS} or {@code ADDRESS/PREFIX}.
     *
     * @throws IllegalArgumentException naming the text and what was expected
     */
    public static AddressBlock parse(String text) {
        String expected = " (expected an IP address or a CIDR block, e.g. 192.0.2.10 or 10.0.0.0/8)";
        String t = text.trim();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        if (addr.startsWith("[") && addr.endsWith("]")) {
            addr = addr.substring(1, addr.length() - 1);
        }
        // literal addresses only: hex digits, dots and colons, never a name to resolve
        if (addr.isEmpty() || !addr.matches("[0-9a-fA-F.:]+") || !addr.contains(".") && !addr.contains(":")) {
            throw new IllegalArgumentException("\"" + text + "\" is not an address" + expected);
        }
        InetAddress a;
        try {
            a = InetAddress.getByName(addr);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not an address" + expected, e);
        }
        int bits = a.getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + text + "\" has no prefix length after /" + expected, e);
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("\"" + text + "\": prefix length outside 0.." + bits + expected);
            }
        }
        return new AddressBlock(a, prefix);
    }

    /**
     * Whether {@code address} lies in this block (an IPv4 address never lies in an IPv6 block).
     * Compares bytes only: it runs on event loops for every new request (the per-source limits).
     */
    public boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        byte[] n = network.getAddress();
        if (a.length != n.length) {
            return false;
        }
        int whole = prefixLength / 8;
        for (int i = 0; i < whole; i++) {
            if (a[i] != n[i]) {
                return false;
            }
        }
        int bits = prefixLength % 8;
        int mask = 0xff << (8 - bits) & 0xff;
        return bits == 0 || (a[whole] & mask) == (n[whole] & mask);
    }

    private static InetAddress masked(InetAddress address, int prefixLength) {
        byte[] b = address.getAddress();
        for (int i = 0; i < b.length; i++) {
            int keep = Math.max(0, Math.min(8, prefixLength - i * 8));
            b[i] &= (byte) (0xff << (8 - keep));
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of " + b.length + " bytes", e);
        }
    }

    @Override
    public String toString() {
        return network.getHostAddress() + "/" + prefixLength;
    }
}
