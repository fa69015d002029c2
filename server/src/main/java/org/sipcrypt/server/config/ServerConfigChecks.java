package org.sipcrypt.server.config;

import static org.sipcrypt.server.config.ConfigValues.format;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.transport.ConnectionPattern;

/**
 * The checks that tie the records of one {@link ServerConfig} together (each record checks its own
 * values in its constructor); run once, by {@link ServerConfig.Builder#build()}. Every failure is an
 * {@link IllegalArgumentException} whose message names the key, the value and what was expected.
 * Threading: immutable (static methods only).
 */
final class ServerConfigChecks {

    private ServerConfigChecks() {
    }

    static void check(ServerConfig c) {
        listenerSockets(c.listeners());
        expiresOrder(c);
        perCallNeedsNetty(c);
        routesHaveListeners(c);
        tls(c);
        partialBytes(c);
        routersNeedProxyMode(c);
        destinationSets(c);
    }

    /**
     * A route or the default route naming a set must name one that has destinations; a destination's
     * transport needs a listener to send from, as a route's does; per-call connections need sipcrypt's
     * transport.
     */
    static void destinationSets(ServerConfig c) {
        var sets = c.destinations().sets();
        for (int i = 0; i <= c.routes().size(); i++) {
            RouteConfig r = i < c.routes().size() ? c.routes().get(i) : c.defaultRoute();
            if (r != null && r.toSet() && !sets.containsKey(r.set())) {
                String key = i < c.routes().size() ? "route[" + i + "]" : "defaultRoute";
                throw new IllegalArgumentException(key + ": \"" + r + "\" names set " + r.set()
                        + ", which has no destination (expected destination=" + r.set() + "=HOST:PORT..., or one of: "
                        + (sets.isEmpty() ? "none configured" : String.join(", ", sets.keySet())) + ")");
            }
        }
        List<DestinationConfig> ds = c.destinations().destinations();
        for (int i = 0; i < ds.size(); i++) {
            DestinationConfig d = ds.get(i);
            if (c.listeners().stream().noneMatch(l -> l.transport() == d.transport())) {
                String t = d.transport().configName();
                throw new IllegalArgumentException("destination[" + i + "]: transport " + t + " needs a " + t
                        + " listener to send from (expected e.g. listen=" + t + ":127.0.0.1:"
                        + d.transport().defaultPort() + " besides the others)");
            }
            if (d.connection() == ConnectionPattern.PER_CALL && c.transportImpl() != TransportImpl.NETTY) {
                throw new IllegalArgumentException("destination[" + i + "]: connection \"per-call\" needs the netty"
                        + " transport, not " + c.transportImpl().configName() + " (expected persistent, or transport.impl=netty)");
            }
        }
        if (!ds.isEmpty() && c.mode() != Mode.PROXY) {
            throw new IllegalArgumentException("destination: given with mode " + c.mode().configName()
                    + " (destination sets are used in proxy mode only)");
        }
    }

    /** Routers decide where the proxy sends a request; a redirect server has nowhere to run them. */
    static void routersNeedProxyMode(ServerConfig c) {
        if (c.routing().enabled() && c.mode() != Mode.PROXY) {
            throw new IllegalArgumentException("routing.router: " + String.join(",", c.routing().routers())
                    + " given with mode " + c.mode().configName() + " (routers run in proxy mode only)");
        }
    }

    /**
     * Two listeners cannot bind one socket: the same transport kind (UDP, or a stream: TCP and TLS
     * share the port space), the same port (other than 0, an ephemeral one each), and the same address,
     * or one of them a wildcard covering the other's address family ({@code ::} covers IPv4 too).
     */
    static void listenerSockets(List<ListenerConfig> listeners) {
        for (int i = 0; i < listeners.size(); i++) {
            ListenerConfig a = listeners.get(i);
            for (int j = 0; j < i; j++) {
                ListenerConfig b = listeners.get(j);
                if (a.port() == 0 || a.port() != b.port() || a.transport().reliable() != b.transport().reliable()) {
                    continue;
                }
                String ha = bare(a.host());
                String hb = bare(b.host());
                boolean same = ha.equalsIgnoreCase(hb) || a.wildcard() && b.wildcard() && family(ha) == family(hb);
                boolean covered = b.wildcard() && (family(hb) == 6 || family(ha) == 4)
                        || a.wildcard() && (family(ha) == 6 || family(hb) == 4);
                if (same || covered) {
                    throw new IllegalArgumentException("listen[" + i + "]: " + a + " binds the same "
                            + (a.transport().reliable() ? "TCP" : "UDP") + " address:port as listen[" + j + "] " + b
                            + (same ? "" : " (a wildcard address binds every address of its family on its port)")
                            + " (expected each listener on an address:port of its own)");
                }
            }
        }
    }

    private static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /** 6 for an IPv6 literal, else 4 (names are bound as the resolver answers; taken as IPv4 here). */
    private static int family(String host) {
        return host.indexOf(':') >= 0 ? 6 : 4;
    }

    private static void expiresOrder(ServerConfig c) {
        String expected = " (expected registrar.minExpires <= registrar.defaultExpires <= registrar.maxExpires)";
        if (c.minExpires().compareTo(c.maxExpires()) > 0) {
            throw new IllegalArgumentException("registrar.minExpires: " + format(c.minExpires())
                    + " is above registrar.maxExpires " + format(c.maxExpires()) + expected);
        }
        if (c.defaultExpires().compareTo(c.minExpires()) < 0) {
            throw new IllegalArgumentException("registrar.defaultExpires: " + format(c.defaultExpires())
                    + " is below registrar.minExpires " + format(c.minExpires()) + expected);
        }
        if (c.defaultExpires().compareTo(c.maxExpires()) > 0) {
            throw new IllegalArgumentException("registrar.defaultExpires: " + format(c.defaultExpires())
                    + " is above registrar.maxExpires " + format(c.maxExpires()) + expected);
        }
    }

    /** JAIN-SIP's built-in transport only keeps connections; per-call needs sipcrypt's transport. */
    private static void perCallNeedsNetty(ServerConfig c) {
        if (c.transportImpl() == TransportImpl.NETTY) {
            return;
        }
        String notNetty = " netty transport, not " + c.transportImpl().configName()
                + " (expected persistent, or transport.impl=netty)";
        if (c.tcpConnection() == ConnectionPattern.PER_CALL) {
            throw new IllegalArgumentException("tcp.connection: \"per-call\" needs the" + notNetty);
        }
        for (int i = 0; i < c.routes().size(); i++) {
            if (c.routes().get(i).connection() == ConnectionPattern.PER_CALL) {
                throw new IllegalArgumentException("route[" + i + "]: connection \"per-call\" needs the" + notNetty);
            }
        }
        if (c.defaultRoute() != null && c.defaultRoute().connection() == ConnectionPattern.PER_CALL) {
            throw new IllegalArgumentException("defaultRoute: connection \"per-call\" needs the" + notNetty);
        }
    }

    /**
     * A request leaves from a listening point of its transport (its Via names it), so a route over a
     * transport the server does not listen on would answer every call 503; refused at start instead.
     */
    private static void routesHaveListeners(ServerConfig c) {
        List<RouteConfig> routes = c.routes();
        for (int i = 0; i <= routes.size(); i++) {
            RouteConfig r = i < routes.size() ? routes.get(i) : c.defaultRoute();
            if (r == null || r.toSet() || c.listeners().stream().anyMatch(l -> l.transport() == r.transport())) {
                continue;
            }
            String key = i < routes.size() ? "route[" + i + "]" : "defaultRoute";
            String t = r.transport().configName();
            throw new IllegalArgumentException(key + ": transport " + t + " needs a " + t + " listener to send from"
                    + " (expected e.g. listen=" + t + ":127.0.0.1:" + r.transport().defaultPort()
                    + " besides the others)");
        }
    }

    /**
     * A tls listener needs a certificate and key and sipcrypt's transport; the cipher suites must
     * run together on one TLS engine; client certificates need a trust file to check them against.
     */
    private static void tls(ServerConfig c) {
        TlsConfig t = c.tls();
        for (ListenerConfig l : c.listeners()) {
            String name = l.transport().configName();
            if (l.transport().secure() && (t.cert() == null || t.key() == null && !KeyMaterial.isPkcs12(t.cert()))) {
                throw new IllegalArgumentException((t.cert() == null ? "tls.cert" : "tls.key")
                        + ": needed by the " + name + " listener (java -jar sipcrypt-server.jar certs --out DIR makes lab files)");
            }
            if ((l.transport().secure() || l.transport().webSocket()) && c.transportImpl() != TransportImpl.NETTY) {
                throw new IllegalArgumentException("listen: " + name + " needs the netty transport, not "
                        + c.transportImpl().configName() + " (expected transport.impl=netty)");
            }
        }
        readable("tls.cert", t.cert(), " (expected a PEM file)");
        readable("tls.key", t.key(), " (expected a PEM file)");
        readable("tls.trust", t.trust(), " (expected a PEM file)");
        if (t.cert() != null && t.key() != null && KeyMaterial.isPkcs12(t.cert())) {
            throw new IllegalArgumentException("tls.key: not used with a PKCS#12 tls.cert (the key is in \""
                    + t.cert() + "\"; its password is tls.keyPassword)");
        }
        java.util.Set<String> domainNames = new java.util.HashSet<>();
        for (int i = 0; i < t.domains().size(); i++) {
            TlsDomainConfig d = t.domains().get(i);
            String where = "tls.domain[" + i + "]";
            if (!domainNames.add(d.name())) {
                throw new IllegalArgumentException(where + ": \"" + d.name() + "\" is given twice (expected each"
                        + " name once)");
            }
            if (KeyMaterial.isPkcs12(d.cert())) {
                throw new IllegalArgumentException(where + ": cert \"" + d.cert() + "\" is PKCS#12 (expected a PEM"
                        + " certificate with a PEM key file)");
            }
            readable(where, d.cert(), " (expected a PEM file)");
            readable(where, d.key(), " (expected a PEM file)");
        }
        if (!t.domains().isEmpty() && c.listeners().stream().noneMatch(l -> l.transport().secure())) {
            throw new IllegalArgumentException("tls.domain: given without a tls or wss listener (expected listen=tls:HOST:PORT)");
        }
        if (t.clientAuth() != TlsConfig.ClientAuth.NONE && t.trust() == null) {
            throw new IllegalArgumentException("tls.trust: needed to check client certificates (tls.clientAuth="
                    + t.clientAuth().configName() + ")");
        }
        revocation(t, c);
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        TlsChoices listener = choices(registry, "", t);
        org.sipcrypt.server.tls.DomainPolicies.of(t, listener, registry);
        for (int i = 0; i < t.peers().size(); i++) {
            TlsConfig peer = t.peers().get(i).applyTo(t);
            String where = "tls.peer[" + i + "]";
            choices(registry, where + " ", peer);
            for (Path p : new Path[] {peer.cert(), peer.key(), peer.trust()}) {
                readable(where, p, "");
            }
        }
    }

    /**
     * tls.revocation crl and both need lists to check against, every mode but off peer checks on;
     * lists given while no mode reads them would silently check nothing. The lists themselves are
     * parsed when the TLS stage is made. Stapling runs on the openssl and bc engines, without tls.domain.
     */
    private static void revocation(TlsConfig t, ServerConfig c) {
        for (int i = 0; i < t.crl().size(); i++) {
            readable("tls.crl[" + i + "]", t.crl().get(i), " (expected a PEM or DER CRL file)");
        }
        if (t.ocspStapling()) {
            if (t.engine() != org.sipcrypt.server.tls.spi.TlsEngine.OPENSSL
                    && t.engine() != org.sipcrypt.server.tls.spi.TlsEngine.BC) {
                throw new IllegalArgumentException("tls.ocspStapling: on needs tls.engine openssl or bc (the jsse"
                        + " engine does not staple; engine is " + t.engineName() + ")");
            }
            if (!t.domains().isEmpty()) {
                throw new IllegalArgumentException("tls.ocspStapling: on is not built with tls.domain (only the"
                        + " tls.cert certificate would be stapled)");
            }
            if (c.listeners().stream().noneMatch(l -> l.transport().secure())) {
                throw new IllegalArgumentException("tls.ocspStapling: on without a tls or wss listener would staple"
                        + " nothing (expected listen=tls:HOST:PORT)");
            }
        }
        if (t.ocspResponder() != null && !t.revocation().usesOcsp() && !t.ocspStapling()) {
            throw new IllegalArgumentException("tls.ocspResponder: given while nothing asks a responder (expected"
                    + " tls.revocation=ocsp or both, or tls.ocspStapling=on, or no tls.ocspResponder)");
        }
        if (!t.revocation().usesCrls() && !t.crl().isEmpty()) {
            throw new IllegalArgumentException("tls.crl: given while tls.revocation is " + t.revocation().configName()
                    + " (expected tls.revocation=crl or both, or no tls.crl)");
        }
        if (t.revocation() == TlsConfig.Revocation.OFF) {
            return;
        }
        if (t.revocation().usesCrls() && t.crl().isEmpty()) {
            throw new IllegalArgumentException("tls.revocation: " + t.revocation().configName()
                    + " needs at least one tls.crl file");
        }
        if (!t.verifyPeers()) {
            throw new IllegalArgumentException("tls.revocation: " + t.revocation().configName()
                    + " with tls.verifyPeers=off would check nothing (expected tls.verifyPeers=on or tls.revocation=off)");
        }
    }

    private static void readable(String key, Path p, String expected) {
        if (p != null && !Files.isReadable(p)) {
            throw new IllegalArgumentException(key + ": cannot read \"" + p + "\"" + expected);
        }
    }

    private static TlsChoices choices(CipherSuiteRegistry registry, String where, TlsConfig t) {
        try {
            return TlsChoices.resolve(registry, t.ciphers(), t.allowInsecure(), t.engine(), t.crypto(), t.versions(),
                    t.groups(), java.util.Map.of());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + e.getMessage(), e);
        }
    }

    /** One message of the largest size must fit in the bound on incomplete messages. */
    private static void partialBytes(ServerConfig c) {
        int partial = c.tcpLimits().maxPartialBytes();
        if (partial < c.maxMessageBytes()) {
            throw new IllegalArgumentException("tcp.maxPartialBytes: " + partial + " is below sip.maxMessageBytes "
                    + c.maxMessageBytes() + " (expected room for at least one message of the largest size)");
        }
    }
}
