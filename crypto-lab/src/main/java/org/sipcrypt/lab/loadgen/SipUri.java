package org.sipcrypt.lab.loadgen;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The host and port a SIP URI sends to (RFC 3263 is not done: the host must be an IP literal or a
 * name the JVM resolves; the default port is 5060, or 5061 for {@code sips:} and {@code transport=tls}).
 * Threading: immutable.
 */
public final class SipUri {

    private SipUri() {
    }

    /** Where a request to this URI goes. */
    public static InetSocketAddress address(String uri) {
        String u = uri.trim();
        boolean sips = u.toLowerCase(Locale.ROOT).startsWith("sips:");
        String rest = u.substring(u.indexOf(':') + 1);
        int at = rest.indexOf('@');
        if (at >= 0) {
            rest = rest.substring(at + 1);
        }
        int semi = rest.indexOf(';');
        String params = semi < 0 ? "" : rest.substring(semi).toLowerCase(Locale.ROOT);
        String hostPort = semi < 0 ? rest : rest.substring(0, semi);
        int q = hostPort.indexOf('?');
        if (q >= 0) {
            hostPort = hostPort.substring(0, q);
        }
        int colon = hostPort.lastIndexOf(':');
        int port = sips || params.contains("transport=tls") ? 5061 : 5060;
        String host = hostPort;
        if (colon > 0 && !hostPort.endsWith("]")) {
            host = hostPort.substring(0, colon);
            port = Integer.parseInt(hostPort.substring(colon + 1));
        }
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        return new InetSocketAddress(host, port);
    }
}
