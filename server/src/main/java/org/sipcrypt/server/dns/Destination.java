package org.sipcrypt.server.dns;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.sipcrypt.server.transport.Transport;

/**
 * One next hop a SIP request can be sent to (RFC 3263 §4): a transport and an IP address with port,
 * never a name.
 * Threading: immutable.
 */
public record Destination(Transport transport, InetSocketAddress address) {

    public Destination {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(address, "address");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("a destination names an address, not a host name: " + address);
        }
    }

    /** {@code tcp 192.0.2.7:5060}. */
    @Override
    public String toString() {
        String host = address.getAddress().getHostAddress();
        return transport.configName() + ' ' + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ':'
                + address.getPort();
    }
}
