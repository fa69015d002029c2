package org.sipcrypt.server.transport.netty.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.CertStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsPeerConfig;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import java.time.Clock;
import java.time.Instant;
import org.sipcrypt.server.config.TlsDomainConfig;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.OcspClient;
import org.sipcrypt.server.tls.OcspStaple;
import org.sipcrypt.server.tls.PeerRevocation;
import org.sipcrypt.server.tls.DomainPolicies;
import org.sipcrypt.server.tls.PeerTrust;
import org.sipcrypt.server.tls.ServerIdentities;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS stage of the stream transport, on the TLS engine the configuration chose: a handler for
 * each new connection, accepted (the listener's certificate) or dialled (the peer's certificate
 * checked against the trust anchors and the address dialled). Made from the {@code tls.*}
 * settings whole: {@link #forListener} for the tls listener and outgoing TLS, {@link #forPeers}
 * for the {@code tls.peer} overrides. The listener's certificates (the default and one per
 * {@code tls.domain}, chosen by the ClientHello's server_name), the trust anchors and the revocation
 * lists are replaced together by {@link #reload}, or not at all.
 * Threading: thread-safe; {@link #newHandler} is called on event loops, {@link #reload} on other threads.
 */
public abstract sealed class TlsStage implements AutoCloseable permits JsseTlsStage, BcTlsStage, OpenSslTlsStage {

    private static final Logger log = LoggerFactory.getLogger(TlsStage.class);

    private List<String> insecure = List.of();
    private boolean peersCheckedAgainstTrust;
    private CurrentIdentities identities;
    private PeerTrust trust;
    private TlsConfig config;
    private PeerRevocation revocation = PeerRevocation.OFF;
    /** The OCSP client of the revocation checks and the staple, or null; closed with the stage. */
    private OcspClient ocsp;
    /** The OCSP response stapled for the listener's certificate (openssl engine), or null. */
    private OcspStaple staple;
    /** What the stage is for, in logs and reload failures: {@code TLS}, {@code TLS to HOST:PORT}. */
    private String what;

    /**
     * The stage of the tls listener, when there is one, and of outgoing TLS to peers without a
     * {@code tls.peer} entry; logs what it offers and warns of lab-only settings.
     */
    public static TlsStage forListener(TlsConfig tls, CipherSuiteRegistry registry) throws IOException {
        return create(tls, registry, "TLS");
    }

    /** The stage of connections to one {@code tls.peer}: the {@code tls.*} settings with its overrides. */
    public static TlsStage forPeer(TlsPeerConfig peer, TlsConfig tls, CipherSuiteRegistry registry) throws IOException {
        return create(peer.applyTo(tls), registry, "TLS to " + peer.peer());
    }

    /** The stage of every {@code tls.peer}, by the address it resolves to now. */
    public static Map<InetSocketAddress, TlsStage> forPeers(TlsConfig tls, CipherSuiteRegistry registry)
            throws IOException {
        Map<InetSocketAddress, TlsStage> out = new HashMap<>();
        try {
            for (TlsPeerConfig p : tls.peers()) {
                InetSocketAddress peer = new InetSocketAddress(InetAddress.getByName(p.peer().host()), p.peer().port());
                out.put(peer, forPeer(p, tls, registry));
            }
        } catch (IOException | RuntimeException e) {
            out.values().forEach(TlsStage::close);
            throw e;
        }
        return out;
    }

    private static TlsStage create(TlsConfig t, CipherSuiteRegistry registry, String what) throws IOException {
        if (t.allowInsecure()) {
            // before anything here loads the JDK's TLS classes (Netty's OpenSSL probe does), which
            // read jdk.tls.disabledAlgorithms once
            JdkInsecureSuites.allow();
        }
        TlsChoices choices = TlsChoices.resolve(registry, t.ciphers(), t.allowInsecure(), t.engine(), t.crypto(),
                t.versions(), t.groups(), Map.of());
        if (choices.engine() == TlsEngine.OPENSSL) {
            // BoringSSL is loaded only by a configuration that would run on it
            Map<TlsEngine, String> unavailable = OpenSslTlsStage.unavailableEngines();
            if (!unavailable.isEmpty()) {
                if (t.engine() != null) {
                    throw new TlsEngineUnavailableException(what + ": tls.engine " + t.engine().configName()
                            + " cannot run here: " + unavailable.get(t.engine()));
                }
                unavailable.forEach((engine, why) -> log.info("{}: tls.engine auto leaves out {}: {}", what,
                        engine.configName(), why));
                choices = TlsChoices.resolve(registry, t.ciphers(), t.allowInsecure(), null, t.crypto(), t.versions(),
                        t.groups(), unavailable);
            }
        }
        if (!choices.insecure().isEmpty()) {
            log.warn("{}: insecure TLS suites enabled: {} (tls.allowInsecure, lab only)", what, choices.insecure());
        }
        if (!t.verifyPeers()) {
            log.warn("{}: peer certificates are NOT checked (tls.verifyPeers=off, lab only): any server dialled and"
                    + " any client certificate is accepted", what);
        }
        DomainPolicies policies = DomainPolicies.of(t, choices, registry);
        CurrentIdentities identities = new CurrentIdentities(ServerIdentities.read(t, Instant.now()));
        boolean staples = t.ocspStapling() && what.equals("TLS") && identities.current().fallback() != null;
        OcspClient ocsp = t.revocation().usesOcsp() || staples
                ? new OcspClient(t.ocspResponder(), t.ocspTimeout(), t.ocspCacheTime(), Clock.systemUTC()) : null;
        TlsStage made;
        try {
            PeerRevocation revocation = PeerRevocation.of(t, ocsp);
            // a reloaded trust file stays followed by these revocation checks
            PeerTrust trust = PeerTrust.read(t.trust(), revocation);
            OcspStaple staple = staples ? new OcspStaple(identities, ocsp, t.ocspCacheTime()) : null;
            made = switch (choices.engine()) {
                case JSSE -> JsseTlsStage.create(identities, trust, policies, t, choices);
                case BC -> BcTlsStage.create(identities, trust, policies, t, choices, registry, staple);
                case OPENSSL -> OpenSslTlsStage.create(identities, trust, policies, t, choices, staple);
            };
            made.revocation = revocation;
            made.trust = trust;
            made.ocsp = ocsp;
            made.staple = staple;
        } catch (IOException | RuntimeException e) {
            if (ocsp != null) {
                ocsp.close();
            }
            throw e;
        }
        if (made.staple != null) {
            made.staple.start();
            log.info("{}: OCSP response of the certificate stapled for clients that ask (tls.ocspStapling)", what);
        }
        PeerRevocation revocation = made.revocation;
        policies.domains().forEach((name, p) -> log.info("{}: tls.domain {}: suites {}, client certificates {}", what,
                name, p.suites().stream().map(CipherSuiteId::name).toList(), p.clientAuth().configName()));
        made.identities = identities;
        if (revocation.enabled()) {
            log.info("{}: peer certificates checked for revocation: {}", what, revocation);
        }
        made.what = what;
        made.config = t;
        made.insecure = choices.insecure();
        made.peersCheckedAgainstTrust = t.verifyPeers() && t.trust() != null;
        int handshakeThreads = choices.engine() == TlsEngine.BC ? t.handshakeThreads() : 0;
        log.info("{}: engine {}, versions {}, groups {}, suites {}, crypto {}, session reuse {}, handshakes on {}",
                what, choices.engine().configName(), choices.versions(),
                choices.groups().isEmpty() ? "the engine's defaults" : choices.groups(),
                choices.suites().stream().map(CipherSuiteId::name).toList(), choices.crypto(),
                t.sessionReuse() ? "on" : "off", handshakeThreads == 0 ? "the event loops"
                        : handshakeThreads + " threads, " + t.handshakeQueue() + " records queued at most");
        return made;
    }

    /**
     * The certificates this stage presents now: the listener's default and one per {@code tls.domain},
     * chosen by server_name.
     */
    public ServerIdentities identities() {
        return identities.current();
    }

    /**
     * Reads the certificate and key files of {@code tls.cert}/{@code tls.key} and every
     * {@code tls.domain}, the trust file ({@code tls.trust}) and the revocation lists
     * ({@code tls.crl}) again and, when all is good (every file parses, every key matches its
     * certificate, every certificate is valid now, this engine can present every key, the trust file
     * holds at least one certificate, every CRL file parses), makes them what new handshakes use:
     * the certificates presented, the anchors that accepted client certificates and servers dialled
     * are checked against, and the lists their certificates are then checked against for revocation.
     * Connections already up keep their session. Anything found bad changes nothing of this stage.
     * Blocks on file I/O: never call on an event loop.
     *
     * @return the set now presented
     * @throws IOException naming the setting and file at fault; what is used stays as it was
     */
    public ServerIdentities reload() throws IOException {
        synchronized (identities) {
            CertStore lists = revocation.enabled() ? PeerRevocation.read(revocation.files()) : null;
            ServerIdentities next = ServerIdentities.read(config, Instant.now());
            check(next);
            // the trust file last: its reload swaps the anchors once read, and nothing after it can fail
            try {
                trust.reload();
            } catch (IOException | RuntimeException e) {
                throw new IOException("tls.trust " + trust.file() + ": " + e.getMessage(), e);
            }
            identities.replace(next);
            revocation.install(lists);
            return next;
        }
    }

    /** The revocation checks of peers' certificates made on this stage ({@code tls.revocation}). */
    public PeerRevocation revocation() {
        return revocation;
    }

    /** The anchors this stage checks peers against now ({@code tls.trust}, or a {@code tls.peer}'s {@code trust=}). */
    public PeerTrust trust() {
        return trust;
    }

    /**
     * The files this stage reads, and {@link #reload} reads again: certificates, keys, the trust file
     * and the CRL files (with revocation checks on); those not configured are left out.
     */
    public List<Path> files() {
        List<Path> out = new ArrayList<>();
        for (Path p : new Path[] {config.cert(), config.key(), config.trust()}) {
            if (p != null) {
                out.add(p);
            }
        }
        for (TlsDomainConfig d : config.domains()) {
            out.add(d.cert());
            out.add(d.key());
        }
        out.addAll(revocation.files());
        return out;
    }

    /** Refuses a set this engine cannot present; the jsse and openssl engines present RSA and EC keys alike. */
    void check(ServerIdentities next) throws IOException {
    }

    /** The insecure providers among the suites offered (lab only), for the listener's warning. */
    public List<String> insecureProviders() {
        return insecure;
    }

    /**
     * Whether every peer certificate this stage accepts was checked against the anchors of
     * {@code tls.trust}: peer checks on ({@code tls.verifyPeers}) and a trust file configured (without
     * one, the JDK's own trust store stands in).
     */
    public boolean checksPeersAgainstTrust() {
        return peersCheckedAgainstTrust;
    }

    /**
     * The certificate chain the peer of {@code ch} presented in its handshake (a client
     * certificate on an accepted connection, the server's on a dialled one), leaf first; null when
     * it presented none, or the connection has no TLS stage (any more). Safe from any thread once
     * the handshake has completed.
     */
    public static X509Certificate[] peerChain(Channel ch) {
        ChannelHandler tls = ch.pipeline().get("tls");
        if (tls instanceof BcTlsHandler bc) {
            X509Certificate[] chain = bc.connection().peerCertificates();
            return chain == null || chain.length == 0 ? null : chain;
        }
        if (tls instanceof SslHandler ssl) {
            try {
                Certificate[] certs = ssl.engine().getSession().getPeerCertificates();
                if (certs.length == 0 || !(certs[0] instanceof X509Certificate)) {
                    return null;
                }
                X509Certificate[] chain = new X509Certificate[certs.length];
                for (int i = 0; i < certs.length; i++) {
                    if (!(certs[i] instanceof X509Certificate x)) {
                        return null;
                    }
                    chain[i] = x;
                }
                return chain;
            } catch (SSLPeerUnverifiedException e) {
                // the peer presented no certificate: the common case of a client without one
                return null;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return what;
    }

    /** Whether a listener can be served (a certificate and key were configured). */
    public abstract boolean canServe();

    /**
     * A TLS stage for a new connection.
     *
     * @param dialled the address an outgoing connection goes to, checked against the peer's
     *                certificate; null for an accepted connection
     */
    public abstract ChannelHandler newHandler(Channel ch, InetSocketAddress dialled);

    /** The OCSP client of this stage's revocation checks and staple, or null when it asks no responder. */
    public OcspClient ocsp() {
        return ocsp;
    }

    /** The OCSP response stapled for the listener's certificate, or null when nothing is stapled. */
    public OcspStaple staple() {
        return staple;
    }

    /**
     * Stops the handshake threads, if any, gives up native TLS contexts, and stops OCSP fetches and
     * the staple's refreshes; engines that own more call this too.
     */
    @Override
    public void close() {
        if (staple != null) {
            staple.close();
        }
        if (ocsp != null) {
            ocsp.close();
        }
    }
}
