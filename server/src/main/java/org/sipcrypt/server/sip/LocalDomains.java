package org.sipcrypt.server.sip;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sip.address.SipURI;
import javax.sip.address.URI;

/**
 * Decides whether a URI names this server: a configured domain (any port), or one of the
 * listening addresses with one of the listening ports (5060 when the URI has none). A URI on our
 * IP address but another port is someone else, e.g. a user agent on the same host.
 * Threading: immutable.
 */
public final class LocalDomains {

    private final Set<String> domains;
    private final Set<String> addresses;
    private final Set<Integer> ports;

    /**
     * @param domains   configured domain names served (any port)
     * @param addresses listening IP addresses (and their host names)
     * @param ports     listening ports
     */
    public LocalDomains(Collection<String> domains, Collection<String> addresses, Collection<Integer> ports) {
        this.domains = lower(domains);
        this.addresses = lower(addresses);
        this.ports = Set.copyOf(ports);
    }

    private static Set<String> lower(Collection<String> hosts) {
        return hosts.stream().map(LocalDomains::normalize).collect(Collectors.toUnmodifiableSet());
    }

    static String normalize(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h;
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
        return addresses.contains(h) && ports.contains(port <= 0 ? 5060 : port);
    }

    /** Whether the host is one of our domains or addresses, whatever the port (for addresses-of-record). */
    public boolean isLocalDomain(String host) {
        String h = normalize(host);
        return domains.contains(h) || addresses.contains(h);
    }

    @Override
    public String toString() {
        return "domains=" + domains + " addresses=" + addresses + " ports=" + List.copyOf(ports);
    }
}
