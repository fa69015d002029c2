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
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.util.encoders.Hex;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.PeerTrust;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * Everything the bc TLS engine's connections share: the suites, versions and key-exchange groups,
 * the crypto (handshake on JCA, each provider's bulk cipher where configured), the certificate and
 * key (RSA or ECDSA), the trust anchors,
 * the client-certificate policy, and the two session caches (sessions granted by the listener, by
 * session ID; sessions obtained from each peer dialled), both bounded in size and lifetime.
 * Threading: thread-safe; {@link #newConnection} is called on event loops.
 */
public final class BcTlsSetup {

    /** Whether the listener asks for client certificates. */
    public enum ClientCertificates { NONE, WANT, NEED }

    final BulkCipherCrypto crypto;
    /** The configured suites {@link #crypto} can run, in order: worked out once, not on every handshake. */
    final int[] suites;
    /**
     * Of {@link #suites}, those the listener's key can serve: TLS 1.3 suites, and the TLS 1.2 suites
     * whose authentication matches the key (RSA and ECDHE-RSA for an RSA key, ECDHE-ECDSA for an EC key).
     */
    final int[] serverSuites;
    /** The key-exchange groups ({@code tls.groups}) by IANA code, most preferred first; null for BC's defaults. */
    final int[] groups;
    final ProtocolVersion[] versions;
    final X509Certificate[] chain;
    /** {@link #chain} parsed once for the certificate messages. */
    final org.bouncycastle.tls.crypto.TlsCertificate[] tlsChain;
    final PrivateKey key;
    final X509TrustManager trust;
    /** The subjects of the trust anchors, named in certificate requests. */
    final java.util.List<org.bouncycastle.asn1.x500.X500Name> authorities;
    final ClientCertificates clientCertificates;
    final boolean verifyPeers;
    private final Cache<String, TlsSession> granted;
    private final Cache<InetSocketAddress, TlsSession> obtained;

    private BcTlsSetup(BulkCipherCrypto crypto, int[] suites, int[] groups, ProtocolVersion[] versions,
                       X509Certificate[] chain, PrivateKey key, X509TrustManager trust,
                       ClientCertificates clientCertificates, boolean sessionReuse, int cacheSize, Duration lifetime,
                       boolean verifyPeers) throws IOException {
        this.crypto = crypto;
        this.suites = TlsUtils.getSupportedCipherSuites(crypto, suites);
        this.serverSuites = key == null ? this.suites : Credentials.servable(this.suites, key);
        if (key != null && serverSuites.length == 0) {
            throw new IOException("tls.ciphers: none of the suites runs with the " + key.getAlgorithm()
                    + " key of tls.key on the bc engine (an EC key needs ECDHE_ECDSA or TLS 1.3 suites, an RSA key"
                    + " RSA, ECDHE_RSA or TLS 1.3 suites)");
        }
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
        this.chain = chain;
        this.tlsChain = chain == null ? null : Credentials.tlsCertificates(crypto, chain);
        this.key = key;
        this.trust = trust;
        java.util.List<org.bouncycastle.asn1.x500.X500Name> names = new java.util.ArrayList<>();
        for (X509Certificate ca : trust.getAcceptedIssuers()) {
            names.add(org.bouncycastle.asn1.x500.X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()));
        }
        this.authorities = java.util.List.copyOf(names);
        this.clientCertificates = clientCertificates;
        this.verifyPeers = verifyPeers;
        this.granted = sessionReuse ? Caffeine.newBuilder().maximumSize(cacheSize).expireAfterWrite(lifetime).build() : null;
        this.obtained = sessionReuse ? Caffeine.newBuilder().maximumSize(cacheSize).expireAfterWrite(lifetime).build() : null;
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
        X509Certificate[] chain = identity == null ? null : identity.chainArray();
        PrivateKey privateKey = identity == null ? null : identity.key();
        if (privateKey != null && !privateKey.getAlgorithm().equals("RSA") && !Credentials.isEc(privateKey)) {
            throw new IOException("tls.key: the bc TLS engine presents RSA and EC (ECDSA) keys, not "
                    + privateKey.getAlgorithm());
        }
        int[] groups = choices.groups().isEmpty() ? null
                : choices.groups().stream().mapToInt(KeyExchangeGroup::code).toArray();
        return new BcTlsSetup(new BulkCipherCrypto(new SecureRandom(), bySuite), codes, groups, versions, chain, privateKey,
                PeerTrust.pkix(trust == null ? null : PemFiles.readCertificates(trust)), clientCertificates,
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
        return chain != null && key != null;
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

    TlsSession grantedSession(byte[] id) {
        return granted == null || id == null || id.length == 0 ? null : granted.getIfPresent(Hex.toHexString(id));
    }

    void keepGranted(TlsSession session) {
        if (granted != null && session != null && session.isResumable() && session.getSessionID().length > 0) {
            granted.put(Hex.toHexString(session.getSessionID()), session);
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
