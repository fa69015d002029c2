package org.sipcrypt.server.transport.netty.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.DomainPolicies;
import org.sipcrypt.server.tls.PeerTrust;
import org.sipcrypt.server.tls.ServerNameKeyManager;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS stage on the {@code jsse} engine (the JDK's SunJSSE in Netty's {@code SslHandler}): a server context (the tls
 * listener's certificate, the configured suites, client-certificate policy) and a client context
 * for outgoing TLS (the same certificate when there is one, presented when a peer asks; peers
 * checked against the trust file, their certificate matched to the address dialled). TLS 1.3 is
 * offered when a TLS 1.3 suite is configured, TLS 1.2 always. Key-exchange groups ({@code tls.groups})
 * are set on each engine on Java 20 and later, and JVM-wide through {@code jdk.tls.namedGroups} before.
 * Threading: immutable; {@link #newHandler} is called on event loops.
 */
final class JsseTlsStage extends TlsStage {

    private static final Logger log = LoggerFactory.getLogger(TlsStage.class);
    private static final String REJECT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";
    private static final String NAMED_GROUPS_PROPERTY = "jdk.tls.namedGroups";
    /** {@code SSLParameters.setNamedGroups} (Java 20+), or null on an older JVM. */
    private static final Method SET_NAMED_GROUPS = setNamedGroups();

    private final SslContext server;
    /** The server context of each {@code tls.domain} with its own suites or client-certificate policy. */
    private final Map<String, SslContext> domainServers;
    private final SslContext client;
    private final Duration handshakeTimeout;
    private final boolean sessionReuse;
    private final boolean verifyPeers;
    /** The groups to set on each engine (Java 20+), or null for none: the JVM's own, or jdk.tls.namedGroups. */
    private final String[] namedGroups;

    private final CurrentIdentities identities;

    private JsseTlsStage(SslContext server, Map<String, SslContext> domainServers, SslContext client,
                         Duration handshakeTimeout, boolean sessionReuse, boolean verifyPeers, String[] namedGroups,
                         CurrentIdentities identities) {
        this.identities = identities;
        this.domainServers = Map.copyOf(domainServers);
        this.namedGroups = namedGroups;
        this.server = server;
        this.client = client;
        this.handshakeTimeout = handshakeTimeout;
        this.sessionReuse = sessionReuse;
        this.verifyPeers = verifyPeers;
    }

    /**
     * Builds the contexts from the {@code tls.*} settings and the suites chosen for this engine.
     * With {@code tls.allowInsecure}, RC4 and 3DES are taken out of the JDK's
     * {@code jdk.tls.disabledAlgorithms} for this JVM (lab only); so is the JDK's refusal of the
     * static-RSA suites among those configured (see {@link #liftStaticRsaRefusal}). With {@code tls.sessionReuse} off,
     * each session is invalidated once its handshake is done and SunJSSE's stateless session tickets
     * are turned off (see {@link #disableSessionTickets}).
     *
     * @param identities what the listener presents, chosen by server_name, and the default presented to
     *                   peers that ask; no default: a client that presents none (no listener then)
     * @param trust      the anchors client certificates and servers dialled are checked against
     * @param policies   the suites and client-certificate policy of each {@code tls.domain} with its own:
     *                   one server context each, chosen by server_name in {@link DomainSniHandler}
     */
    static JsseTlsStage create(CurrentIdentities identities, PeerTrust trust, DomainPolicies policies, TlsConfig t,
                               TlsChoices choices) throws IOException {
        if (!t.sessionReuse()) {
            disableSessionTickets();
        }
        List<CipherSuiteId> suites = choices.suites();
        List<String> versions = choices.versions();
        boolean allowInsecure = t.allowInsecure();
        boolean verifyPeers = t.verifyPeers();
        int cacheSize = t.sessionCacheSize();
        Duration lifetime = t.sessionLifetime();
        List<String> names = jsseNames(suites);
        if (allowInsecure) {
            JdkInsecureSuites.allow();
            log.warn("insecure TLS algorithms RC4 and 3DES re-enabled in this JVM (tls.allowInsecure, lab only)");
        }
        liftStaticRsaRefusal(suites);
        // SunJSSE lets TLS 1.2 clients renegotiate unless told otherwise before its first server
        // handshake; renegotiation buys a SIP peer nothing and costs the server a handshake each time
        if (System.getProperty(REJECT_RENEGOTIATION) == null) {
            System.setProperty(REJECT_RENEGOTIATION, "true");
        }
        String[] protocols = versions.toArray(new String[0]);
        boolean serves = identities.current().fallback() != null;
        ServerNameKeyManager keys = identities.keyManager();
        SslContext server = null;
        Map<String, SslContext> domainServers = new HashMap<>();
        if (serves) {
            server = serverContext(keys, trust, protocols, names, t.clientAuth(), t);
            for (Map.Entry<String, DomainPolicies.Policy> d : policies.domains().entrySet()) {
                domainServers.put(d.getKey(), serverContext(keys, trust, protocols,
                        jsseNames(d.getValue().suites()), d.getValue().clientAuth(), t));
            }
        }
        SslContextBuilder cb = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols(protocols).ciphers(names)
                .sessionCacheSize(cacheSize).sessionTimeout(lifetime.toSeconds());
        if (serves) {
            cb.keyManager(keys);
        }
        if (!verifyPeers) {
            cb.trustManager(InsecureTrustManagerFactory.INSTANCE);
        } else {
            // the chain against the anchors, the names against the host dialled by RFC 5922's rules
            cb.trustManager(new PeerTrustFactory(trust));
        }
        return new JsseTlsStage(server, domainServers, cb.build(), t.handshakeTimeout(), t.sessionReuse(), verifyPeers,
                namedGroups(choices.groups()), identities);
    }

    private static List<String> jsseNames(List<CipherSuiteId> suites) {
        List<String> names = new ArrayList<>();
        for (CipherSuiteId s : suites) {
            names.add(Objects.requireNonNull(s.jsseName(), () -> s + " does not run on the jsse engine"));
        }
        return names;
    }

    /** A server context: the key manager choosing by server_name, these suites and this client-certificate policy. */
    private static SslContext serverContext(ServerNameKeyManager keys, PeerTrust trust, String[] protocols,
                                            List<String> names, TlsConfig.ClientAuth mode, TlsConfig t)
            throws IOException {
        ClientAuth clientAuth = switch (mode) {
            case NONE -> ClientAuth.NONE;
            case WANT -> ClientAuth.OPTIONAL;
            case NEED -> ClientAuth.REQUIRE;
        };
        SslContextBuilder b = SslContextBuilder.forServer(keys).sslProvider(SslProvider.JDK)
                .protocols(protocols).ciphers(names).clientAuth(clientAuth)
                .sessionCacheSize(t.sessionCacheSize()).sessionTimeout(t.sessionLifetime().toSeconds());
        // client certificates against the current anchors of tls.trust (replaced by a reload)
        b.trustManager(t.verifyPeers() ? new PeerTrustFactory(trust) : InsecureTrustManagerFactory.INSTANCE);
        return b.build();
    }

    /**
     * Newer JDKs (Debian's OpenJDK 17.0.21) list {@code TLS_RSA_*} in {@code jdk.tls.disabledAlgorithms},
     * so SunJSSE would silently never negotiate a configured {@code TLS_RSA_WITH_*} suite, RFC 3261
     * §26.3.1's {@code TLS_RSA_WITH_AES_128_CBC_SHA} among them. The entries refusing exactly the
     * configured static-RSA suites are taken out for this JVM, with one warning naming them; nothing
     * is lifted for a suite list without static RSA (preset {@code modern}).
     */
    private static void liftStaticRsaRefusal(List<CipherSuiteId> suites) {
        List<String> lifted = JdkInsecureSuites.allowStaticRsaSuites(suites);
        if (!lifted.isEmpty()) {
            log.warn("jdk.tls.disabledAlgorithms entries {} lifted in this JVM for the configured static-RSA suites {}"
                    + " (legacy: no forward secrecy; leave them out of tls.ciphers, e.g. tls.preset modern, to keep"
                    + " the JDK's refusal)", lifted, JdkInsecureSuites.staticRsaNames(suites));
        }
    }

    /**
     * The groups of {@code tls.groups} for SunJSSE: set on each engine's {@code SSLParameters} where
     * the JVM has {@code setNamedGroups} (Java 20 and later; the result); on an older JVM set for the
     * whole JVM as {@code jdk.tls.namedGroups}, which SunJSSE reads once, when it is first used (null
     * is returned). Refused when that property already holds another list.
     */
    private static String[] namedGroups(List<KeyExchangeGroup> groups) {
        if (groups.isEmpty()) {
            return null;
        }
        String[] names = groups.stream().map(KeyExchangeGroup::jsseName).toArray(String[]::new);
        if (SET_NAMED_GROUPS != null) {
            return names;
        }
        String wanted = String.join(",", names);
        String present = System.getProperty(NAMED_GROUPS_PROPERTY);
        if (present != null && !present.equals(wanted)) {
            throw new IllegalArgumentException("tls.groups: this JVM (Java " + Runtime.version().feature()
                    + ", no SSLParameters.setNamedGroups) takes the jsse engine's groups from " + NAMED_GROUPS_PROPERTY
                    + ", already set to \"" + present + "\" (expected \"" + wanted + "\" or unset)");
        }
        System.setProperty(NAMED_GROUPS_PROPERTY, wanted);
        log.info("tls.groups {} set JVM-wide as {} (Java {} has no SSLParameters.setNamedGroups); effective only"
                + " if SunJSSE was not used before in this JVM", wanted, NAMED_GROUPS_PROPERTY, Runtime.version().feature());
        return null;
    }

    private static Method setNamedGroups() {
        try {
            return SSLParameters.class.getMethod("setNamedGroups", String[].class);
        } catch (NoSuchMethodException e) {
            // Java 17 to 19: jdk.tls.namedGroups instead
            return null;
        }
    }

    /** Sets the groups on one engine (Java 20+). */
    private void applyGroups(SSLEngine engine) {
        if (namedGroups == null) {
            return;
        }
        SSLParameters p = engine.getSSLParameters();
        try {
            SET_NAMED_GROUPS.invoke(p, (Object) namedGroups.clone());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("SSLParameters.setNamedGroups failed for tls.groups", e);
        }
        engine.setSSLParameters(p);
    }

    /**
     * Turns SunJSSE's stateless TLS 1.2 session tickets off for this JVM, so that a session the
     * server invalidated cannot come back in a ticket. The JDK reads the switch once, when its TLS
     * classes first load, so this works only before any TLS use in the process.
     */
    private static void disableSessionTickets() {
        System.setProperty("jdk.tls.server.enableSessionTicketExtension", "false");
    }

    @Override
    public boolean canServe() {
        return server != null;
    }

    @Override
    public ChannelHandler newHandler(Channel ch, InetSocketAddress dialled) {
        if (dialled == null) {
            if (server == null) {
                throw new IllegalStateException("no tls.cert: cannot accept TLS connections");
            }
            if (!domainServers.isEmpty()) {
                return new DomainSniHandler(identities, domainServers, server, handshakeTimeout.toMillis(),
                        this::setUp);
            }
            SslHandler h = server.newHandler(ch.alloc());
            setUp(h);
            return h;
        }
        // the peer host is what PeerTrust checks the server's names against
        SslHandler h = client.newHandler(ch.alloc(), dialled.getHostString(), dialled.getPort());
        setUp(h);
        return h;
    }

    /** What every handler gets: the name matcher (accepted), groups, handshake timeout, session invalidation. */
    private void setUp(SslHandler h) {
        if (!h.engine().getUseClientMode()) {
            ServerNames.refuseUnknown(h.engine(), identities);
        }
        applyGroups(h.engine());
        h.setHandshakeTimeout(handshakeTimeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!sessionReuse) {
            SslHandler handler = h;
            h.handshakeFuture().addListener(f -> handler.engine().getSession().invalidate());
        }
    }
}
