package org.sipcrypt.server.sip.registrar;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.Transport;

/**
 * Whether a request came through a NAT, by the tests of Kamailio's {@code nat_uac_test} that its
 * default configuration runs for phones ({@code nat_uac_test("19")}: flags 1, 2 and 16): the Contact
 * host is a private address (RFC 1918) or a shared one of carrier-grade NAT (RFC 6598); the top
 * Via's sent-by host is not the source address ("received" test), or its port (5060, 5061 for TLS,
 * when it names none) not the source port ({@code rport} test). A Contact naming another public
 * address than the source is not taken for a NAT: a REGISTER may bind a contact of another host
 * (RFC 3261 §10.2, third-party registration), and its requests then go to that contact. A host name in Contact or Via is compared as text: a name never equals a
 * source address, so a Via naming a host is taken for a NAT, as Kamailio takes it.
 * Over WS and WSS every request counts as behind a NAT: the client is reached over its own connection only
 * (RFC 7118 §5).
 * Threading: stateless; safe from any thread.
 */
public final class NatTest {

    private NatTest() {
    }

    /**
     * Whether {@code request}, received from {@code source} over {@code over}, or its contact
     * {@code contact} (null to test the Via alone) shows a NAT.
     */
    public static boolean behindNat(Request request, URI contact, InetSocketAddress source, Transport over) {
        if (source == null) {
            return false;
        }
        if (over != null && over.webSocket()) {
            // RFC 7118 §5: a WebSocket client cannot be reached at its Contact (often a .invalid host)
            return true;
        }
        return viaDiffers((ViaHeader) request.getHeader(ViaHeader.NAME), source, over)
                || contact instanceof SipURI sip && contactDiffers(sip.getHost(), source.getAddress());
    }

    /** The "received" and {@code rport} tests on the top Via. */
    static boolean viaDiffers(ViaHeader via, InetSocketAddress source, Transport over) {
        if (via == null) {
            return false;
        }
        int port = via.getPort() > 0 ? via.getPort() : over.defaultPort();
        return !AddressText.sameHost(via.getHost(), source.getAddress()) || port != source.getPort();
    }

    /** A private or shared IPv4 Contact address. */
    static boolean contactDiffers(String host, InetAddress source) {
        byte[] ip = ipv4(host);
        return ip != null && privateOrShared(ip);
    }

    /** 10/8, 172.16/12, 192.168/16 (RFC 1918) and 100.64/10 (RFC 6598). */
    static boolean privateOrShared(byte[] ip) {
        int a = ip[0] & 0xff;
        int b = ip[1] & 0xff;
        return a == 10 || a == 172 && (b & 0xf0) == 16 || a == 192 && b == 168 || a == 100 && (b & 0xc0) == 64;
    }

    /** The four bytes of a dotted-quad IPv4 literal, or null for anything else. */
    static byte[] ipv4(String host) {
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] ip = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            int v = Integer.parseInt(p);
            if (v > 255) {
                return null;
            }
            ip[i] = (byte) v;
        }
        return ip;
    }
}
