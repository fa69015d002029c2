package org.sipcrypt.server.sip.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Transport;

/**
 * One Via entry as written: its sent-protocol ({@code SIP/2.0/UDP}), its sent-by host and port
 * (null when it has none), and the parameters a response's way back depends on ({@code received},
 * {@code rport}, {@code branch}; null when absent, {@code rport} empty when it has no value), as
 * the relays from bytes read it ({@link RequestRelay}, {@link ResponseRelay}).
 * Threading: immutable.
 */
record ViaEntry(String sentProtocol, String host, String port, String received, String rport, String branch) {

    /** The entry {@code via}, or null when it has no sent-by. */
    static ViaEntry read(String via) {
        String[] parts = via.split(";", -1);
        String sent = parts[0].trim();
        int blank = 0;
        while (blank < sent.length() && sent.charAt(blank) != ' ' && sent.charAt(blank) != '\t') {
            blank++;
        }
        String sentBy = sent.substring(blank).trim();
        if (sentBy.isEmpty()) {
            return null;
        }
        int colon = sentBy.lastIndexOf(':');
        boolean bracketed = sentBy.lastIndexOf(']') > colon;
        String host = colon < 0 || bracketed ? sentBy : sentBy.substring(0, colon).trim();
        String port = colon < 0 || bracketed ? null : sentBy.substring(colon + 1).trim();
        String received = null;
        String rport = null;
        String branch = null;
        for (int i = 1; i < parts.length; i++) {
            String param = parts[i].trim();
            int eq = param.indexOf('=');
            String name = (eq >= 0 ? param.substring(0, eq) : param).trim().toLowerCase(Locale.ROOT);
            String value = eq >= 0 ? param.substring(eq + 1).trim() : "";
            switch (name) {
                case "received" -> received = value;
                case "rport" -> rport = value;
                case "branch" -> branch = value;
                default -> {
                }
            }
        }
        return new ViaEntry(sent.substring(0, blank), host, port, received, rport, branch);
    }

    /** Where a response goes back by this entry, as {@link LoopDetector#returnPath} writes it. */
    String returnPath() {
        return LoopDetector.returnPath(host, port, received, rport, branch);
    }

    /**
     * Where a response goes by this entry (RFC 3261 §18.2.2, RFC 3581 §4): its {@code received}
     * address, else its sent-by, and its {@code rport} value, else its port; null unless that is
     * {@code over} to an IPv4 address.
     */
    InetSocketAddress address(Transport over) {
        if (!sentProtocol.equalsIgnoreCase("SIP/2.0/" + over.sipName())) {
            return null;
        }
        String to = received != null ? received : host;
        int p = rport != null && !rport.isEmpty() ? number(rport) : this.port != null ? number(this.port)
                : over.defaultPort();
        byte[] ip = new SipUriText(false, to, -1, "").ipv4();
        if (ip == null || p < 1 || p > 65535) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), p);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes are an IPv4 address", e);
        }
    }

    /**
     * Where a response goes back by the Via entry {@code via}, as {@link LoopDetector#returnPath}
     * writes it: its {@code received}, else sent-by host, its {@code rport} value, else sent-by
     * port, and its branch; null when the entry has no sent-by.
     */
    static String returnPath(String via) {
        ViaEntry entry = ViaEntry.read(via);
        return entry == null ? null : entry.returnPath();
    }

    /** A port of 1 to 5 decimal digits, or -1. */
    private static int number(String s) {
        return SipHead.number(s, 5, Integer.MAX_VALUE);
    }

    /** The top entry of a Via value, as {@link TopVia#read} takes it. */
    static String topEntry(String value) {
        int comma = value.indexOf(',');
        return (comma >= 0 ? value.substring(0, comma) : value).trim();
    }
}
