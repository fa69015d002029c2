package org.sipcrypt.server;

import gov.nist.javax.sip.SipStackImpl;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;
import org.sipcrypt.server.config.ListenerConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.sip.LocalDomains;
import org.sipcrypt.server.sip.proxy.RouteTable;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.NettyMessageProcessorFactory;
import org.sipcrypt.server.transport.netty.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's listeners, in the two steps of start: bound on the transport, then opened as
 * JAIN-SIP listening points under one provider; and the local domains their addresses make.
 * Threading: immutable (static methods only); called from the starting thread.
 */
final class Listeners {

    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private Listeners() {
    }

    /**
     * Binds each listener on sipcrypt's transport, warning of a tls listener offering insecure suites;
     * with JAIN-SIP's transports, only picks the ports (the stack binds them).
     */
    static Map<Transport, InetSocketAddress> bind(ServerConfig config, RouteTable routes,
                                                NettyTransport transport) throws IOException {
        Map<Transport, InetSocketAddress> addresses = new EnumMap<>(Transport.class);
        if (transport == null && (config.tcpConnection() == ConnectionPattern.PER_CALL
                || routes.all().stream().anyMatch(h -> h.connection() == ConnectionPattern.PER_CALL))) {
            throw new IllegalArgumentException("per-call connections need transport.impl=netty");
        }
        for (ListenerConfig l : config.listeners()) {
            InetAddress host = InetAddress.getByName(l.host());
            if (transport == null) {
                addresses.put(l.transport(), new InetSocketAddress(host, l.port() != 0 ? l.port() : freePort(l)));
                continue;
            }
            addresses.put(l.transport(), transport.bind(l.transport(), new InetSocketAddress(host, l.port())));
            List<String> insecure = transport.settings().tls().insecureProviders();
            if (l.transport() == Transport.TLS && !insecure.isEmpty()) {
                log.warn("tls listener {} offers insecure suites {} (tls.allowInsecure, lab only)",
                        addresses.get(Transport.TLS), insecure);
            }
        }
        if (transport == null) {
            log.info("transport: JAIN-SIP built-in NIO (for comparison); listening on {}", addresses);
        }
        return addresses;
    }

    /** A listening point per address, filling {@code lps}; returns the one provider holding them all. */
    static SipProvider listen(SipStackImpl stack, NettyTransport transport,
                                      Map<Transport, InetSocketAddress> addresses, Map<Transport, ListeningPoint> lps)
            throws Exception {
        if (transport != null) {
            ((NettyMessageProcessorFactory) stack.getMessageProcessorFactory()).attach(transport);
        }
        SipProvider provider = null;
        for (Map.Entry<Transport, InetSocketAddress> e : addresses.entrySet()) {
            ListeningPoint lp = stack.createListeningPoint(e.getValue().getAddress().getHostAddress(),
                    e.getValue().getPort(), e.getKey().sipName());
            lps.put(e.getKey(), lp);
            if (provider == null) {
                provider = stack.createSipProvider(lp);
            } else {
                provider.addListeningPoint(lp);
            }
        }
        return provider;
    }

    /** The domains served: configured ones, the listeners' hosts and ports, and localhost on loopback. */
    static LocalDomains localDomains(ServerConfig config, Map<Transport, InetSocketAddress> addresses)
            throws IOException {
        Set<String> hosts = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        for (InetSocketAddress a : addresses.values()) {
            hosts.add(a.getAddress().getHostAddress());
            ports.add(a.getPort());
        }
        for (ListenerConfig l : config.listeners()) {
            hosts.add(l.host());
            if (InetAddress.getByName(l.host()).isLoopbackAddress()) {
                hosts.add("localhost");
            }
        }
        return new LocalDomains(config.domains(), hosts, ports);
    }

    private static int freePort(ListenerConfig l) throws IOException {
        if (l.transport() == Transport.UDP) {
            try (java.net.DatagramSocket s = new java.net.DatagramSocket(0, InetAddress.getByName(l.host()))) {
                return s.getLocalPort();
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(l.host()))) {
            return s.getLocalPort();
        }
    }
}
