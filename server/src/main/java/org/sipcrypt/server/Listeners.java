package org.sipcrypt.server;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;
import org.sipcrypt.server.config.ListenerConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.SipcryptSipStack;
import org.sipcrypt.server.sip.LocalDomains;
import org.sipcrypt.server.sip.proxy.RouteTable;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.NettyMessageProcessorFactory;
import org.sipcrypt.server.transport.netty.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's listeners, in the two steps of start: bound on the transport, then opened as
 * JAIN-SIP listening points under as many providers as the most listeners of one transport; and the
 * local domains their addresses make.
 * Threading: immutable (static methods only); called from the starting thread.
 */
final class Listeners {

    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private Listeners() {
    }

    /**
     * Binds each listener on sipcrypt's transport, warning of a tls listener offering insecure suites;
     * with JAIN-SIP's transports, only picks the ports (the stack binds them). Returns them in
     * configuration order, each with its actual port and the address it advertises.
     */
    static List<Listener> bind(ServerConfig config, RouteTable routes, NettyTransport transport) throws IOException {
        List<Listener> bound = new ArrayList<>();
        if (transport == null && (config.tcpConnection() == ConnectionPattern.PER_CALL
                || routes.all().stream().anyMatch(h -> h.connection() == ConnectionPattern.PER_CALL))) {
            throw new IllegalArgumentException("per-call connections need transport.impl=netty");
        }
        for (ListenerConfig l : config.listeners()) {
            InetAddress host = InetAddress.getByName(l.host());
            InetSocketAddress actual = transport == null
                    ? new InetSocketAddress(host, l.port() != 0 ? l.port() : freePort(l))
                    : transport.bind(l.transport(), new InetSocketAddress(host, l.port()));
            String sentByHost = l.advertisedHost() != null ? l.advertisedHost() : AddressText.of(actual.getAddress());
            Listener listener = new Listener(l.transport(), actual, sentByHost, l.sentByPort(actual.getPort()));
            bound.add(listener);
            if (transport == null) {
                continue;
            }
            List<String> insecure = transport.settings().tls().insecureProviders();
            if (l.transport().secure() && !insecure.isEmpty()) {
                log.warn("{} listener {} offers insecure suites {} (tls.allowInsecure, lab only)", l.transport().configName(), listener, insecure);
            }
        }
        if (transport == null) {
            log.info("transport: JAIN-SIP built-in NIO (for comparison); listening on {}", bound);
        }
        return bound;
    }

    /**
     * A listening point per listener. JAIN-SIP gives a provider one listening point per transport,
     * so the k-th listener of each transport goes under the k-th provider, the first provider holding
     * the first of each.
     */
    static ListeningPoints listen(SipcryptSipStack stack, NettyTransport transport, List<Listener> listeners)
            throws Exception {
        if (transport != null) {
            ((NettyMessageProcessorFactory) stack.getMessageProcessorFactory()).attach(transport);
        }
        List<SipProvider> providers = new ArrayList<>();
        Map<Transport, Integer> seen = new EnumMap<>(Transport.class);
        List<ListeningPoints.Entry> entries = new ArrayList<>();
        for (Listener l : listeners) {
            ListeningPoint lp = stack.createListeningPoint(l.bound().getAddress().getHostAddress(), l.bound().getPort(),
                    l.transport().sipName());
            int k = seen.merge(l.transport(), 1, Integer::sum) - 1;
            if (k == providers.size()) {
                providers.add(stack.createSipProvider(lp));
            } else {
                providers.get(k).addListeningPoint(lp);
            }
            entries.add(new ListeningPoints.Entry(l, lp, providers.get(k)));
        }
        return new ListeningPoints(entries);
    }

    /**
     * The domains served: configured ones; each listener's advertised host with its advertised port;
     * its bound address with its port, or for a wildcard listener every address of the machine's
     * interfaces of its family (read once here, without DNS); and localhost where loopback is among them.
     */
    static LocalDomains localDomains(ServerConfig config, List<Listener> listeners) throws IOException {
        Map<String, Set<Integer>> hosts = new HashMap<>();
        List<InetAddress> interfaces = null;
        for (Listener l : listeners) {
            hosts.computeIfAbsent(l.sentByHost(), h -> new HashSet<>()).add(l.sentByPort());
            List<InetAddress> addresses = List.of(l.bound().getAddress());
            if (l.wildcard()) {
                if (interfaces == null) {
                    interfaces = interfaceAddresses();
                }
                // an IPv6 wildcard socket takes IPv4 peers too (dual stack)
                addresses = interfaces.stream().filter(a -> l.ipv6() || a instanceof Inet4Address).toList();
            }
            for (InetAddress a : addresses) {
                hosts.computeIfAbsent(AddressText.of(a), h -> new HashSet<>()).add(l.bound().getPort());
                if (a.isLoopbackAddress()) {
                    hosts.computeIfAbsent("localhost", h -> new HashSet<>()).add(l.bound().getPort());
                }
            }
        }
        return new LocalDomains(config.domains(), hosts);
    }

    /** The addresses of the machine's interfaces, as the kernel lists them (no name lookup). */
    private static List<InetAddress> interfaceAddresses() throws IOException {
        List<InetAddress> out = new ArrayList<>();
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            out.addAll(Collections.list(ni.getInetAddresses()));
        }
        return out;
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
