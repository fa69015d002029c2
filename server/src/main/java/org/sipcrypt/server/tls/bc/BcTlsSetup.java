package org.sipcrypt.server.tls.bc;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Security;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.util.encoders.Hex;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.DomainPolicies;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.PeerTrust;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.ServerIdentities;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * Everything the bc TLS engine's connections share: the suites, versions and key-exchange groups,
 * the crypto (handshake on JCA, each provider's bulk cipher where configured), the certificates and
 * keys (RSA or ECDSA; the default and one per {@code tls.domain}, chosen by server_name, replaced
 * whole on reload), the trust anchors,
 * the client-certificate policy, the two session caches (sessions granted by the listener, by
 * session ID; sessions obtained from each peer dialled), both bounded in size and lifetime, and the
 * listener's TLS 1.2 session-ticket key (made at start), all three with session reuse on only.
 * Threading: thread-safe; {@link #newConnection} is called on event loops.
 */
public final class BcTlsSetup {

    /** Whether the listener asks for client certificates. */
    public enum ClientCertificates { NONE, WANT, NEED }

    final BulkCipherCrypto crypto;
    /** The configured suites {@link #crypto} can run, in order: worked out once, not on every handshake. */
    final int[] suites;
    /** The key-exchange groups ({@code tls.groups}) by IANA code, most preferred first; null for BC's defaults. */
    final int[] groups;
    final ProtocolVersion[] versions;
    /** What the listener presents, by server_name, and the default presented to peers that ask. */
    private final CurrentIdentities identities;
    /** The OCSP response stapled for the default certificate ({@code tls.ocspStapling}), or null. */
    private volatile org.sipcrypt.server.tls.OcspStaple staple;
    /** The current identities in Bouncy Castle's form, made once per set (first handshake after a reload). */
    private volatile Prepared prepared;
    /** The peer checks; their anchors are replaced whole when {@code tls.trust} is reloaded. */
    final PeerTrust trust;
    /** The suites and client-certificate policy of each {@code tls.domain} with its own. */
    private final DomainPolicies policies;
    /** The subjects of the trust anchors named in certificate requests, with the anchors they were made from. */
    private volatile Authorities authorities;
    final ClientCertificates clientCertificates;
    final boolean verifyPeers;
    private final Cache<String, TlsSession> granted;
    private final Cache<InetSocketAddress, TlsSession> obtained;
    /** The listener's TLS 1.2 session tickets (RFC 5077); null with reuse off. */
    final SessionTickets tickets;

    /**
     * One identity as the bc engine presents it.
     * Threading: immutable.
     *
     * @param name         the identity's name ({@code default} or the {@code tls.domain}'s): the sessions it
     *                     granted are resumed under it only
     * @param key          the private key (RSA or EC)
     * @param tlsChain     the chain parsed once for the certificate messages
     * @param serverSuites of the suites configured for this identity (its {@code tls.domain}'s
     *                     {@code ciphers}, else {@code tls.ciphers}), those this key can serve: TLS 1.3
     *                     suites, and the TLS 1.2 suites whose authentication matches the key (RSA and
     *                     ECDHE-RSA for an RSA key, ECDHE-ECDSA for an EC key)
     * @param clientCertificates whether this identity's clients are asked for a certificate
     */
    record Served(String name, PrivateKey key, org.bouncycastle.tls.crypto.TlsCertificate[] tlsChain, int[] serverSuites,
                  ClientCertificates clientCertificates) {
    }

    /** The subjects of a set of trust anchors, made once per set. */
    private record Authorities(X509Certificate[] anchors, java.util.List<org.bouncycastle.asn1.x500.X500Name> names) {
    }

    /** The identities of one set in Bouncy Castle's form, by name. */
    private record Prepared(long serial, Map<String, Served> byName) {
    }

    private BcTlsSetup(BulkCipherCrypto crypto, int[] suites, int[] groups, ProtocolVersion[] versions,
                       CurrentIdentities identities, PeerTrust trust, DomainPolicies policies,
                       ClientCertificates clientCertificates, boolean sessionReuse, int cacheSize, Duration lifetime,
                       boolean verifyPeers) throws IOException {
        this.crypto = crypto;
        this.suites = TlsUtils.getSupportedCipherSuites(crypto, suites);
        this.groups = groups;
        if (groups != null) {
            for (int g : groups) {
                if (!runs(crypto, g)) {
                    throw new IOException("tls.groups: " + NamedGroup.getName(g)
                            + " is not available from the JVM's crypto providers here");
                }
            }
        }
        this.versions = versions;
        this.identities = identities;
        this.clientCertificates = clientCertificates;
        this.policies = policies;
        this.prepared = prepare(identities.current());
        this.trust = trust;
        this.verifyPeers = verifyPeers;
        this.granted = sessionReuse ? Caffeine.newBuilder().maximumSize(cacheSize).expireAfterWrite(lifetime).build() : null;
        this.obtained = sessionReuse ? Caffeine.newBuilder().maximumSize(cacheSize).expireAfterWrite(lifetime).build() : null;
        this.tickets = sessionReuse ? new SessionTickets(new SecureRandom(), lifetime, java.time.Clock.systemUTC()) : null;
    }

    /**
     * Reads the files and builds the setup.
     *
     * @param identity     chain and key presented by the listener and to peers that ask; null for none
     * @param trust        PEM CA certificates peers must chain to; null for the JDK's trust store
     * @param choices      suites and per-provider crypto engines
     * @param registry     the providers of those suites
     * @param sessionReuse whether sessions are granted, kept and offered
     * @param verifyPeers  false accepts any peer certificate (lab only)
     */
    public static BcTlsSetup create(KeyMaterial identity, Path trust, TlsChoices choices, CipherSuiteRegistry registry,
                                    ClientCertificates clientCertificates, boolean sessionReuse, int cacheSize,
                                    Duration lifetime, boolean verifyPeers) throws IOException {
        return serving(new CurrentIdentities(ServerIdentities.of(identity)),
                PeerTrust.of(trust == null ? null : PemFiles.readCertificates(trust)), null, choices, registry,
                clientCertificates, sessionReuse, cacheSize, lifetime, verifyPeers);
    }

    /** Staples the responses of {@code staple} for the default certificate from now on (before any handshake). */
    public void staple(org.sipcrypt.server.tls.OcspStaple staple) {
        this.staple = staple;
    }

    /**
     * The DER OCSP response to staple for the certificate served under {@code name}: the default's
     * current one; null for a tls.domain (stapling is refused with them), or when none is held.
     */
    byte[] stapled(String name) {
        org.sipcrypt.server.tls.OcspStaple s = staple;
        ServerIdentities.Identity presented = identities.current().fallback();
        if (s == null || presented == null || !presented.name().equals(name)) {
            return null;
        }
        return s.current(presented.leaf());
    }

    /**
     * Builds the setup of a listener that presents the current set of {@code identities}, chosen by
     * server_name, checks peers with {@code trust} (whose anchors a reload may replace), and offers each
     * {@code tls.domain} its own suites and client-certificate policy ({@code policies}; null: the
     * listener's for all); the other parameters as for {@link #create(KeyMaterial, Path, TlsChoices,
     * CipherSuiteRegistry, ClientCertificates, boolean, int, Duration, boolean)}.
     */
    public static BcTlsSetup serving(CurrentIdentities identities, PeerTrust trust, DomainPolicies policies,
                                    TlsChoices choices,
                                    CipherSuiteRegistry registry, ClientCertificates clientCertificates,
                                    boolean sessionReuse, int cacheSize, Duration lifetime, boolean verifyPeers)
            throws IOException {
        if (Security.getProvider(BouncyCastleProvider.PROVIDER_NAME) == null) {
            // last in the list: it serves only what the JDK's providers lack, here the
            // SHA256withRSASSA-PSS signatures TLS 1.3 and ECDHE handshakes use on this engine
            Security.addProvider(new BouncyCastleProvider());
        }
        Map<Integer, CipherEngine> bySuite = new HashMap<>();
        int[] codes = new int[choices.suites().size()];
        for (int i = 0; i < codes.length; i++) {
            CipherSuiteId s = choices.suites().get(i);
            codes[i] = s.code();
            bySuite.put(s.code(), choices.cryptoOf(registry.providerOf(s).orElseThrow()));
        }
        ProtocolVersion[] versions = !choices.offersTls13() ? new ProtocolVersion[] {ProtocolVersion.TLSv12}
                : choices.offersTls12() ? ProtocolVersion.TLSv13.downTo(ProtocolVersion.TLSv12)
                : new ProtocolVersion[] {ProtocolVersion.TLSv13};
        int[] groups = choices.groups().isEmpty() ? null
                : choices.groups().stream().mapToInt(KeyExchangeGroup::code).toArray();
        return new BcTlsSetup(new BulkCipherCrypto(new SecureRandom(), bySuite), codes, groups, versions, identities,
                trust, policies, clientCertificates,
                sessionReuse, cacheSize, lifetime, verifyPeers);
    }

    /**
     * Whether {@code crypto} runs the group: a hybrid when it runs both its halves (Bouncy Castle's
     * {@code hasNamedGroup} answers for single groups only).
     */
    static boolean runs(TlsCrypto crypto, int group) {
        if (NamedGroup.refersToASpecificHybrid(group)) {
            return crypto.hasNamedGroup(NamedGroup.getHybridFirst(group))
                    && crypto.hasNamedGroup(NamedGroup.getHybridSecond(group));
        }
        return crypto.hasNamedGroup(group);
    }

    /** Whether a listener can be served (a certificate and key were given). */
    public boolean canServe() {
        return identities.current().fallback() != null;
    }

    /**
     * Refuses a set this engine cannot present: a key other than RSA or EC, or one that none of the
     * configured suites runs with.
     */
    public void check(ServerIdentities set) throws IOException {
        prepare(set);
    }

    private Prepared prepare(ServerIdentities set) throws IOException {
        Map<String, Served> byName = new HashMap<>();
        for (ServerIdentities.Identity id : set.all()) {
            PrivateKey key = id.material().key();
            String what = id.name().equals(ServerIdentities.DEFAULT_NAME) ? "tls.key" : "tls.domain " + id.name();
            if (!key.getAlgorithm().equals("RSA") && !Credentials.isEc(key)) {
                throw new IOException(what + ": the bc TLS engine presents RSA and EC (ECDSA) keys, not "
                        + key.getAlgorithm());
            }
            ClientCertificates asked = clientCertificates;
            int[] offered = suites;
            DomainPolicies.Policy own = policies == null ? null : policies.domains().get(id.name());
            if (own != null) {
                offered = narrowed(own.suites());
                asked = ClientCertificates.valueOf(own.clientAuth().name());
            }
            int[] servable = Credentials.servable(offered, key);
            if (servable.length == 0) {
                throw new IOException((own == null ? "tls.ciphers" : what + " ciphers") + ": none of the suites runs"
                        + " with the " + key.getAlgorithm() + " key of " + what + " on the bc engine (an EC key needs"
                        + " ECDHE_ECDSA or TLS 1.3 suites, an RSA key RSA, ECDHE_RSA or TLS 1.3 suites)");
            }
            byName.put(id.name(), new Served(id.name(), key, Credentials.tlsCertificates(crypto, id.material().chainArray()),
                    servable, asked));
        }
        return new Prepared(set.serial(), Map.copyOf(byName));
    }

    /** Of {@link #suites} (those the crypto runs), the ones among {@code wanted}, in the listener's order. */
    private int[] narrowed(java.util.List<CipherSuiteId> wanted) {
        java.util.Set<Integer> codes = new java.util.HashSet<>();
        wanted.forEach(s -> codes.add(s.code()));
        return java.util.Arrays.stream(suites).filter(codes::contains).toArray();
    }

    /**
     * The subjects of the current trust anchors, named in certificate requests: worked out again only
     * when a reload replaced the anchors.
     */
    java.util.List<org.bouncycastle.asn1.x500.X500Name> authorities() {
        X509Certificate[] anchors = trust.getAcceptedIssuers();
        Authorities a = authorities;
        if (a != null && java.util.Arrays.equals(a.anchors(), anchors)) {
            return a.names();
        }
        java.util.List<org.bouncycastle.asn1.x500.X500Name> names = new java.util.ArrayList<>();
        for (X509Certificate ca : anchors) {
            names.add(org.bouncycastle.asn1.x500.X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()));
        }
        a = new Authorities(anchors, java.util.List.copyOf(names));
        authorities = a;
        return a.names();
    }

    /**
     * What the listener presents for a ClientHello's server_name (null: none sent), from the current
     * set; null when the name is refused ({@code tls.unknownServerName=refuse}). Runs on the event
     * loop or a handshake thread.
     */
    Served served(String serverName) throws IOException {
        ServerIdentities set = identities.current();
        ServerIdentities.Identity id = set.select(serverName);
        if (id == null) {
            return null;
        }
        Prepared p = prepared;
        if (p.serial() != set.serial()) {
            p = prepare(set);
            prepared = p;
        }
        return p.byName().get(id.name());
    }

    /** Whether the ClientHello's server_name chose a {@code tls.domain} rather than the default. */
    boolean namesDomain(String serverName) {
        ServerIdentities.Identity id = identities.current().select(serverName);
        return id != null && !id.name().equals(ServerIdentities.DEFAULT_NAME);
    }

    /** The default identity, presented to peers that ask for a client certificate; null for none. */
    Served clientIdentity() throws IOException {
        return served(null);
    }

    /**
     * A connection, not started yet.
     *
     * @param dialled the peer an outgoing connection goes to (its certificate must name it); null
     *                for an accepted connection
     */
    public BcTlsConnection newConnection(InetSocketAddress dialled) {
        if (dialled == null) {
            if (!canServe()) {
                throw new IllegalStateException("no tls.cert and tls.key: cannot accept TLS connections");
            }
            return new BcTlsConnection(new ServerPeer(this));
        }
        return new BcTlsConnection(new ClientPeer(this, dialled));
    }

    /** Sessions the listener granted and may resume; 0 with reuse off. */
    public long grantedSessions() {
        return granted == null ? 0 : granted.estimatedSize();
    }

    /**
     * A session granted under the identity {@code name} chose: a session is resumed only under the
     * domain (server_name) that granted it, so that it never skips another domain's suites or
     * client-certificate policy.
     */
    TlsSession grantedSession(String name, byte[] id) {
        return granted == null || id == null || id.length == 0 ? null
                : granted.getIfPresent(name + " " + Hex.toHexString(id));
    }

    void keepGranted(String name, TlsSession session) {
        if (granted != null && session != null && session.isResumable() && session.getSessionID().length > 0) {
            granted.put(name + " " + Hex.toHexString(session.getSessionID()), session);
        }
    }

    boolean grantsSessions() {
        return granted != null;
    }

    TlsSession obtainedSession(InetSocketAddress peer) {
        return obtained == null ? null : obtained.getIfPresent(peer);
    }

    void keepObtained(InetSocketAddress peer, TlsSession session) {
        if (obtained != null && session != null && session.isResumable()) {
            obtained.put(peer, session);
        }
    }
}
