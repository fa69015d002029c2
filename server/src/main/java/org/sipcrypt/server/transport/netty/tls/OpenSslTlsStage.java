package org.sipcrypt.server.transport.netty.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.ssl.util.KeyManagerFactoryWrapper;
import io.netty.internal.tcnative.SSL;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.DomainPolicies;
import org.sipcrypt.server.tls.OcspStaple;
import org.sipcrypt.server.tls.PeerTrust;
import org.sipcrypt.server.tls.ServerIdentities;
import org.sipcrypt.server.tls.ServerNameKeyManager;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS stage on the {@code openssl} engine: Netty's {@code OpenSslEngine} on BoringSSL
 * (netty-tcnative, a native library) in Netty's {@code SslHandler}. A server context (the tls
 * listener's certificate, the configured suites and key-exchange groups, client-certificate policy) and a client context
 * for outgoing TLS (the same certificate when there is one; peers checked by {@link PeerTrust},
 * their names against the address dialled by RFC 5922's rules, as on the other engines).
 * With {@code tls.sessionReuse} on, the server keeps a session-ID cache of
 * {@code tls.sessionCacheSize} sessions for {@code tls.sessionLifetime} and issues session tickets
 * (TLS 1.2 tickets, TLS 1.3 PSK) under a key made at start, and the client offers the last session
 * of each peer; off, neither side keeps or offers a session. BoringSSL sends a TLS 1.3 ticket with
 * the server's first write after the handshake (for SIP, its first response), not before. On TLS 1.3 BoringSSL offers its own
 * three suites whatever the list says ({@link TlsChoices#BORINGSSL_TLS13}). The contexts are
 * reference-counted native objects: each connection's engine holds one reference until its
 * handler is removed, and {@link #close} gives up the stage's own. A {@code tls.domain} with its own
 * suites or client-certificate policy has a server context of its own, chosen by server_name in
 * {@link DomainSniHandler}; as BoringSSL's TLS 1.3 suites cannot be narrowed, a domain's
 * {@code ciphers} must include every TLS 1.3 suite of the listener's (refused at start otherwise).
 * Each context keeps the native form (BoringSSL's) of every chain and key it has presented, by
 * {@link ServerNameKeyManager}'s alias, instead of converting and parsing them again in every
 * handshake (where a key parsed anew also loses what BoringSSL precomputes for its RSA operations
 * and keeps with the key); an alias names its content, so a reload that leaves a file
 * unchanged keeps its native form and one that changes it makes a new one; a replaced key's native
 * form stays in memory until the context is closed, and past {@link #NATIVE_KEYS_KEPT} forms a
 * context converts the new ones per handshake again.
 * Threading: thread-safe; {@link #newHandler} is called on event loops, {@link #close} at stop.
 */
final class OpenSslTlsStage extends TlsStage {

    private static final Logger log = LoggerFactory.getLogger(TlsStage.class);

    /** How many chains with their keys each context keeps in native form (Netty's default). */
    static final int NATIVE_KEYS_KEPT = 1024;

    private final ReferenceCountedOpenSslContext server;
    /** The server context of each {@code tls.domain} with its own suites or client-certificate policy. */
    private final Map<String, io.netty.handler.ssl.SslContext> domainServers;
    private final ReferenceCountedOpenSslContext client;
    private final long handshakeTimeoutMillis;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CurrentIdentities identities;
    /** The OCSP response stapled for the listener's certificate ({@code tls.ocspStapling}), or null. */
    private final OcspStaple staple;

    private OpenSslTlsStage(ReferenceCountedOpenSslContext server, Map<String, io.netty.handler.ssl.SslContext> domainServers,
                            ReferenceCountedOpenSslContext client, long handshakeTimeoutMillis,
                            CurrentIdentities identities, OcspStaple staple) {
        this.identities = identities;
        this.staple = staple;
        this.domainServers = Map.copyOf(domainServers);
        this.server = server;
        this.client = client;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    }

    /**
     * The engines that cannot run in this JVM, with the reason: {@code openssl} when BoringSSL's
     * native library did not load (another platform than linux-x86_64, no writable temporary
     * directory to unpack it to, or {@code -Dio.netty.handler.ssl.noOpenSsl=true}).
     */
    static Map<TlsEngine, String> unavailableEngines() {
        if (OpenSsl.isAvailable()) {
            return Map.of();
        }
        Throwable cause = OpenSsl.unavailabilityCause();
        return Map.of(TlsEngine.OPENSSL, "BoringSSL (netty-tcnative-boringssl-static, linux-x86_64) did not load: "
                + rootMessage(cause));
    }

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c == t ? String.valueOf(t) : t + " (caused by " + c + ")";
    }

    /**
     * Builds the contexts from the {@code tls.*} settings and the suites chosen for this engine.
     *
     * @param identities what the listener presents, chosen by server_name, and the default presented to
     *                   peers that ask; no default: a client that presents none (no listener then)
     * @param trust      the anchors client certificates and servers dialled are checked against
     * @param policies   the suites and client-certificate policy of each {@code tls.domain} with its own
     */
    static OpenSslTlsStage create(CurrentIdentities identities, PeerTrust trust, DomainPolicies policies, TlsConfig t,
                                  TlsChoices choices, OcspStaple staple) throws IOException {
        boolean serves = identities.current().fallback() != null;
        ServerNameKeyManager keys = identities.keyManager();
        List<String> names = choices.suites().stream().map(CipherSuiteId::name).toList();
        String[] protocols = choices.versions().toArray(new String[0]);
        // DomainPolicies refused a domain whose ciphers narrow the TLS 1.3 suites, which BoringSSL cannot
        ReferenceCountedOpenSslContext server = null;
        ReferenceCountedOpenSslContext client = null;
        Map<String, io.netty.handler.ssl.SslContext> domainServers = new java.util.HashMap<>();
        try {
            if (serves) {
                server = serverContext(keys, trust, protocols, names, t.clientAuth(), t, choices, staple != null);
                for (Map.Entry<String, DomainPolicies.Policy> d : policies.domains().entrySet()) {
                    domainServers.put(d.getKey(), serverContext(keys, trust, protocols,
                            d.getValue().suites().stream().map(CipherSuiteId::name).toList(),
                            d.getValue().clientAuth(), t, choices, false));
                }
            }
            SslContextBuilder cb = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL_REFCNT)
                    .protocols(protocols).ciphers(names)
                    .sessionCacheSize(t.sessionCacheSize()).sessionTimeout(t.sessionLifetime().toSeconds());
            if (serves) {
                cb.keyManager(nativeKeysKept(keys));
            }
            cb.trustManager(t.verifyPeers() ? new PeerTrustFactory(trust) : InsecureTrustManagerFactory.INSTANCE);
            groups(cb, choices);
            client = (ReferenceCountedOpenSslContext) cb.build();
            sessions(client.sessionContext(), t.sessionReuse(), false);
        } catch (IOException | RuntimeException e) {
            release(server);
            release(client);
            domainServers.values().forEach(c -> release((ReferenceCountedOpenSslContext) c));
            throw e;
        }
        if (choices.offersTls13()) {
            List<String> added = TlsChoices.BORINGSSL_TLS13.stream().filter(s -> !names.contains(s)).toList();
            if (!added.isEmpty()) {
                log.info("openssl engine: TLS 1.3 also offers {} (BoringSSL's TLS 1.3 suites are fixed)", added);
            }
        }
        return new OpenSslTlsStage(server, domainServers, client, t.handshakeTimeout().toMillis(), identities, staple);
    }

    /** A server context: the key manager choosing by server_name, these suites and this client-certificate policy. */
    private static ReferenceCountedOpenSslContext serverContext(ServerNameKeyManager keys, PeerTrust trust,
                                                                String[] protocols, List<String> names,
                                                                TlsConfig.ClientAuth mode, TlsConfig t,
                                                                TlsChoices choices, boolean staples) throws IOException {
        SslContextBuilder b = SslContextBuilder.forServer(nativeKeysKept(keys)).enableOcsp(staples)
                .sslProvider(SslProvider.OPENSSL_REFCNT).protocols(protocols).ciphers(names)
                .clientAuth(clientAuth(mode))
                .sessionCacheSize(t.sessionCacheSize()).sessionTimeout(t.sessionLifetime().toSeconds());
        // client certificates against the current anchors of tls.trust (replaced by a reload)
        b.trustManager(t.verifyPeers() ? new PeerTrustFactory(trust) : InsecureTrustManagerFactory.INSTANCE);
        groups(b, choices);
        ReferenceCountedOpenSslContext server = (ReferenceCountedOpenSslContext) b.build();
        sessions(server.sessionContext(), t.sessionReuse(), true);
        return server;
    }

    /**
     * The key manager for a context that keeps, by alias, BoringSSL's form of each chain and key it
     * presented; without it Netty's OpenSSL engine converts the chosen chain and key to PEM and parses
     * both natively in every handshake.
     */
    static KeyManagerFactory nativeKeysKept(ServerNameKeyManager keys) {
        return new OpenSslCachingX509KeyManagerFactory(new KeyManagerFactoryWrapper(keys), NATIVE_KEYS_KEPT);
    }

    /** The groups of {@code tls.groups} by BoringSSL's names ({@code X25519}, {@code P-256}); none leaves BoringSSL's. */
    private static void groups(SslContextBuilder b, TlsChoices choices) {
        if (!choices.groups().isEmpty()) {
            b.option(OpenSslContextOption.GROUPS,
                    choices.groups().stream().map(KeyExchangeGroup::openSslName).toArray(String[]::new));
        }
    }

    /**
     * Session reuse on a context: on, the cache as sized and, on the server, tickets under a random
     * key (Netty leaves tickets off until a key is set); off, no cache, hence no ticket either.
     */
    private static void sessions(OpenSslSessionContext sessions, boolean reuse, boolean server) {
        sessions.setSessionCacheEnabled(reuse);
        if (reuse && server) {
            SecureRandom random = new SecureRandom();
            byte[] name = new byte[OpenSslSessionTicketKey.NAME_SIZE];
            byte[] hmac = new byte[OpenSslSessionTicketKey.HMAC_KEY_SIZE];
            byte[] aes = new byte[OpenSslSessionTicketKey.AES_KEY_SIZE];
            random.nextBytes(name);
            random.nextBytes(hmac);
            random.nextBytes(aes);
            sessions.setTicketKeys(new OpenSslSessionTicketKey(name, hmac, aes));
        }
    }

    private static ClientAuth clientAuth(TlsConfig.ClientAuth mode) {
        return switch (mode) {
            case NONE -> ClientAuth.NONE;
            case WANT -> ClientAuth.OPTIONAL;
            case NEED -> ClientAuth.REQUIRE;
        };
    }

    /**
     * Whether the handshake just finished on {@code engine} resumed a session (ID, ticket or TLS 1.3
     * PSK), as BoringSSL says; the JDK-style session creation time has only whole seconds here.
     * Runs on the connection's event loop once the handshake is done.
     */
    static boolean resumed(SSLEngine engine) {
        if (engine instanceof ReferenceCountedOpenSslEngine openssl) {
            long ssl = openssl.sslPointer();
            return ssl != 0 && SSL.isSessionReused(ssl);
        }
        return false;
    }

    @Override
    public boolean canServe() {
        return server != null;
    }

    @Override
    public io.netty.channel.ChannelHandler newHandler(Channel ch, InetSocketAddress dialled) {
        SslHandler h;
        if (dialled == null) {
            if (server == null) {
                throw new IllegalStateException("no tls.cert: cannot accept TLS connections");
            }
            if (!domainServers.isEmpty()) {
                return new DomainSniHandler(identities, domainServers, server, handshakeTimeoutMillis, a -> {
                    ServerNames.refuseUnknown(a.engine(), identities);
                    a.setHandshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
                });
            }
            h = server.newHandler(ch.alloc());
            ServerNames.refuseUnknown(h.engine(), identities);
            staple(h.engine());
        } else {
            // the peer host is what PeerTrust checks the server's names against, and the key of the client's session cache
            h = client.newHandler(ch.alloc(), dialled.getHostString(), dialled.getPort());
        }
        h.setHandshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
        return h;
    }

    /**
     * Sets the listener certificate's current OCSP response on a new server engine, sent to a client
     * whose ClientHello asks for it (status_request); nothing when none is held. No tls.domain here:
     * stapling is refused with them, so the certificate presented is the default.
     */
    private void staple(SSLEngine engine) {
        if (staple == null || !(engine instanceof ReferenceCountedOpenSslEngine openssl)) {
            return;
        }
        ServerIdentities.Identity presented = identities.current().fallback();
        byte[] response = presented == null ? null : staple.current(presented.leaf());
        if (response != null) {
            openssl.setOcspResponse(response);
        }
    }

    /** Gives up the stage's references to the native contexts; connections still open keep theirs. */
    @Override
    public void close() {
        super.close();
        if (closed.compareAndSet(false, true)) {
            release(server);
            release(client);
            domainServers.values().forEach(c -> release((ReferenceCountedOpenSslContext) c));
        }
    }

    private static void release(ReferenceCountedOpenSslContext ctx) {
        if (ctx != null) {
            ctx.release();
        }
    }
}
