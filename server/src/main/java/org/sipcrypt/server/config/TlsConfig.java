package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.sipcrypt.server.transport.ConfigNamed;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * TLS settings of the {@code tls} listener and of outgoing TLS connections (keys {@code tls.*}).
 * Threading: immutable.
 *
 * @param cert             PEM certificate (chain) the server presents, or a PKCS#12 file ({@code .p12},
 *                         {@code .pfx}) holding chain and key; needed with a tls listener
 * @param key              PEM private key of a PEM certificate; null with a PKCS#12 file
 * @param trust            PEM CA certificates that peers' certificates must chain to; null means the
 *                         JDK's default trust store (for outgoing connections) and no client certificates
 * @param ciphers          provider names and suite names, most preferred first
 * @param clientAuth       whether the listener asks clients for a certificate
 * @param allowInsecure    the lab switch that lets RC4 and 3DES suites be configured
 * @param handshakeTimeout a connection whose handshake takes longer is closed
 * @param engine           the TLS engine of the listener and of outgoing TLS; null picks one that runs
 *                         every configured suite (openssl where its native library loads, then
 *                         jsse, then bc)
 * @param crypto           on the bc engine, where bulk ciphers run: {@code bc} or {@code jca} for every
 *                         provider that has it, {@code PROVIDER:ENGINE} for one provider
 * @param sessionReuse     whether sessions are resumed (server cache and client offers)
 * @param sessionCacheSize most sessions kept for resumption, on each side
 * @param sessionLifetime  how long a session may be resumed after it was made
 * @param handshakeThreads bc engine: threads that process handshake records; 0 runs them on the
 *                         event loops
 * @param handshakeQueue   bc engine with handshake threads: most handshake records waiting for one;
 *                         a connection whose record finds the queue full fails its handshake and is closed
 * @param verifyPeers      whether peers' certificates are checked (chain and name); off is for the
 *                         lab only
 * @param versions         TLS versions offered ({@code 1.2}, {@code 1.3}), each when a suite of it is configured
 * @param peers            per-peer overrides for connections the proxy opens ({@code tls.peer})
 * @param keyPassword      password of a PKCS#12 {@code cert} file (empty for none)
 * @param groups           key-exchange groups offered, most preferred first ({@code tls.groups}); empty
 *                         leaves each engine's own defaults
 * @param domains          further domains of the tls listener, each with its own certificate, chosen by
 *                         the ClientHello's server_name ({@code tls.domain}); {@code cert} stays the default
 * @param unknownServerName what a ClientHello naming none of {@code domains} gets
 * @param watchInterval    how often the certificate and key files are checked for changes (then
 *                         reloaded); zero checks never
 * @param crl              certificate revocation lists (PEM or DER files) peers' certificates are checked
 *                         against with {@code revocation} {@code crl}; read again with the certificates
 * @param revocation       whether peers' certificates are checked for revocation ({@code off}, {@code crl},
 *                         {@code ocsp}, {@code both})
 * @param revocationFailure what a peer certificate whose status cannot be learned gets: accepted
 *                         ({@code soft}) or refused ({@code hard})
 * @param ocspResponder    the OCSP responder asked about every certificate instead of the one its
 *                         authorityInfoAccess names; null: the certificate's own
 * @param ocspTimeout      longest wait for an OCSP response, connection included
 * @param ocspCacheTime    longest an OCSP answer is kept (less when its nextUpdate comes sooner)
 * @param ocspStapling     whether the tls listener staples an OCSP response for its own certificate
 *                         (openssl engine; bc on TLS 1.2)
 */
public record TlsConfig(Path cert, Path key, Path trust, List<String> ciphers, ClientAuth clientAuth,
                        boolean allowInsecure, Duration handshakeTimeout, TlsEngine engine, List<String> crypto,
                        boolean sessionReuse, int sessionCacheSize, Duration sessionLifetime,
                        int handshakeThreads, int handshakeQueue, boolean verifyPeers, List<String> versions, List<TlsPeerConfig> peers,
                        String keyPassword, List<String> groups, List<TlsDomainConfig> domains,
                        UnknownServerName unknownServerName, Duration watchInterval, List<Path> crl,
                        Revocation revocation, RevocationFailure revocationFailure, java.net.URI ocspResponder,
                        Duration ocspTimeout, Duration ocspCacheTime, boolean ocspStapling) {

    /**
     * Forward secrecy only: the TLS 1.3 AES-GCM suites and TLS 1.2 ECDHE-ECDSA and ECDHE-RSA with
     * AES-GCM (the server offers those its key signs for), for a
     * deployment whose peers are all current (preset {@code modern}). Peers that know only RFC 3261's
     * {@code TLS_RSA_WITH_AES_128_CBC_SHA} cannot connect.
     */
    public static final TlsConfig MODERN = new Builder().ciphers(List.of("TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")).build();

    /**
     * The defaults (preset {@code compatible}): every AES suite, forward secrecy first, down to
     * {@code TLS_RSA_WITH_AES_128_CBC_SHA}, the suite RFC 3261 §26.3.1 makes mandatory; TLS 1.2 and 1.3.
     */
    public static final TlsConfig COMPATIBLE = new Builder().build();

    /**
     * Lab only (preset {@code lab-insecure}): AES, then the broken 3DES and RC4 suites, allowed, on the
     * jsse engine that runs all three; for measuring what old ciphers cost. Logged as a warning at start
     * and on the listener, as {@code tls.allowInsecure} is.
     */
    public static final TlsConfig LAB_INSECURE = new Builder().ciphers(List.of("aes", "3des", "rc4"))
            .allowInsecure(true).build();

    /** The presets by name; a preset fixes the suites, the versions and whether insecure ones may be given. */
    static final Presets<TlsConfig> PRESETS = new Presets<>(presetMap(), TlsConfig::presetPolicy);

    private static Map<String, TlsConfig> presetMap() {
        Map<String, TlsConfig> m = new LinkedHashMap<>();
        m.put("modern", MODERN);
        m.put("compatible", COMPATIBLE);
        m.put("lab-insecure", LAB_INSECURE);
        return m;
    }

    private List<Object> presetPolicy() {
        return List.of(ciphers, versions, allowInsecure);
    }

    /** The name of the preset these settings follow ({@code tls.preset}), if any. */
    public Optional<String> presetName() {
        return PRESETS.nameOf(this);
    }

    /** Client certificates: not asked for, asked for, or required. */
    public enum ClientAuth implements ConfigNamed {
        NONE, WANT, NEED;


        static ClientAuth parse(String text) {
            return ConfigNamed.parse(ClientAuth.class, text, "client-auth mode");
        }
    }

    /**
     * Whether peers' certificates are checked for revocation: not at all ({@code off}, the default:
     * most private SIP CAs publish no revocation information, and a check that cannot learn a status
     * would have to accept or refuse everyone), against the CRL files of {@code tls.crl}
     * ({@code crl}), by OCSP (RFC 6960, {@code ocsp}), or by OCSP with the CRLs deciding when OCSP
     * gives no answer ({@code both}).
     */
    public enum Revocation implements ConfigNamed {
        OFF, CRL, OCSP, BOTH;

        static Revocation parse(String text) {
            return ConfigNamed.parse(Revocation.class, text, "revocation mode");
        }

        /** Whether this mode reads CRL files. */
        public boolean usesCrls() {
            return this == CRL || this == BOTH;
        }

        /** Whether this mode asks OCSP responders. */
        public boolean usesOcsp() {
            return this == OCSP || this == BOTH;
        }
    }

    /**
     * What a peer certificate whose revocation status cannot be learned (no CRL of its issuer, or
     * one past its nextUpdate) gets: accepted and counted ({@code soft}), or refused ({@code hard}).
     */
    public enum RevocationFailure implements ConfigNamed {
        SOFT, HARD;

        static RevocationFailure parse(String text) {
            return ConfigNamed.parse(RevocationFailure.class, text, "revocation failure mode");
        }
    }

    /**
     * What a ClientHello whose server_name matches no {@code tls.domain} gets: the listener's own
     * certificate ({@code default}, as Kamailio does), or a fatal {@code unrecognized_name} alert
     * ({@code refuse}, RFC 6066 §3). A ClientHello without server_name always gets the default.
     */
    public enum UnknownServerName implements ConfigNamed {
        DEFAULT, REFUSE;

        static UnknownServerName parse(String text) {
            return ConfigNamed.parse(UnknownServerName.class, text, "unknown server-name policy");
        }
    }

    public TlsConfig {
        ciphers = List.copyOf(Objects.requireNonNull(ciphers, "ciphers"));
        Objects.requireNonNull(clientAuth, "clientAuth");
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        crypto = List.copyOf(Objects.requireNonNull(crypto, "crypto"));
        versions = List.copyOf(Objects.requireNonNull(versions, "versions"));
        peers = List.copyOf(Objects.requireNonNull(peers, "peers"));
        Objects.requireNonNull(keyPassword, "keyPassword");
        groups = List.copyOf(Objects.requireNonNull(groups, "groups"));
        domains = List.copyOf(Objects.requireNonNull(domains, "domains"));
        Objects.requireNonNull(unknownServerName, "unknownServerName");
        Objects.requireNonNull(watchInterval, "watchInterval");
        Objects.requireNonNull(ocspTimeout, "ocspTimeout");
        Objects.requireNonNull(ocspCacheTime, "ocspCacheTime");
        if (ocspTimeout.isNegative() || ocspTimeout.isZero()) {
            throw new IllegalArgumentException("tls.ocspTimeout: " + ocspTimeout + " (expected more than 0s)");
        }
        if (ocspCacheTime.isNegative() || ocspCacheTime.isZero()) {
            throw new IllegalArgumentException("tls.ocspCacheTime: " + ocspCacheTime + " (expected more than 0s)");
        }
        if (watchInterval.isNegative()) {
            throw new IllegalArgumentException("watchInterval is negative: " + watchInterval);
        }
        Objects.requireNonNull(sessionLifetime, "sessionLifetime");
        if (sessionCacheSize < 1) {
            throw new IllegalArgumentException("sessionCacheSize below 1: " + sessionCacheSize);
        }
        if (handshakeThreads < 0) {
            throw new IllegalArgumentException("handshakeThreads is negative: " + handshakeThreads);
        }
        if (handshakeQueue < 1) {
            throw new IllegalArgumentException("tls.handshakeQueue: " + handshakeQueue + " (expected at least 1)");
        }
    }

    /**
     * No certificate; AES suites; no client certificates; insecure suites refused; 10 s handshakes;
     * the engine picked from the suites; JCA crypto where a provider has it; sessions resumed, 10,000
     * kept for an hour; handshakes on the event loops.
     */
    public static TlsConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().cert(cert).key(key).trust(trust).ciphers(ciphers).clientAuth(clientAuth)
                .allowInsecure(allowInsecure).handshakeTimeout(handshakeTimeout).engine(engine).crypto(crypto)
                .sessionReuse(sessionReuse).sessionCacheSize(sessionCacheSize).sessionLifetime(sessionLifetime)
                .handshakeThreads(handshakeThreads).handshakeQueue(handshakeQueue).verifyPeers(verifyPeers).versions(versions).peers(peers)
                .keyPassword(keyPassword).groups(groups).domains(domains).unknownServerName(unknownServerName)
                .watchInterval(watchInterval).crl(crl).revocation(revocation).revocationFailure(revocationFailure)
                .ocspResponder(ocspResponder).ocspTimeout(ocspTimeout).ocspCacheTime(ocspCacheTime)
                .ocspStapling(ocspStapling);
    }

    /** The settings, with passwords and secrets masked. */
    @Override
    public String toString() {
        return RecordText.of(this);
    }

    /**
     * Named settings for a {@link TlsConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private Path cert;
        private Path key;
        private Path trust;
        private List<String> ciphers = List.of("aes");
        private ClientAuth clientAuth = ClientAuth.NONE;
        private boolean allowInsecure;
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private TlsEngine engine;
        private List<String> crypto = List.of("jca");
        private boolean sessionReuse = true;
        private int sessionCacheSize = 10_000;
        private Duration sessionLifetime = Duration.ofHours(1);
        private int handshakeThreads;
        private int handshakeQueue = 1_000;
        private boolean verifyPeers = true;
        private List<String> versions = List.of("1.2", "1.3");
        private List<TlsPeerConfig> peers = List.of();
        private String keyPassword = "";
        private List<String> groups = List.of();
        private List<TlsDomainConfig> domains = List.of();
        private UnknownServerName unknownServerName = UnknownServerName.DEFAULT;
        private Duration watchInterval = Duration.ZERO;
        private List<Path> crl = List.of();
        private Revocation revocation = Revocation.OFF;
        private RevocationFailure revocationFailure = RevocationFailure.SOFT;
        private java.net.URI ocspResponder;
        private Duration ocspTimeout = Duration.ofSeconds(2);
        private Duration ocspCacheTime = Duration.ofHours(1);
        private boolean ocspStapling;

        public Builder cert(Path v) { cert = v; return this; }
        public Builder key(Path v) { key = v; return this; }
        public Builder trust(Path v) { trust = v; return this; }
        public Builder ciphers(List<String> v) { ciphers = v; return this; }
        public Builder clientAuth(ClientAuth v) { clientAuth = v; return this; }
        public Builder allowInsecure(boolean v) { allowInsecure = v; return this; }
        public Builder handshakeTimeout(Duration v) { handshakeTimeout = v; return this; }
        /** The engine; null picks one that runs every configured suite. */
        public Builder engine(TlsEngine v) { engine = v; return this; }
        public Builder crypto(List<String> v) { crypto = v; return this; }
        public Builder sessionReuse(boolean v) { sessionReuse = v; return this; }
        public Builder sessionCacheSize(int v) { sessionCacheSize = v; return this; }
        public Builder sessionLifetime(Duration v) { sessionLifetime = v; return this; }
        public Builder handshakeThreads(int v) { handshakeThreads = v; return this; }
        public Builder handshakeQueue(int v) { handshakeQueue = v; return this; }
        public Builder verifyPeers(boolean v) { verifyPeers = v; return this; }
        public Builder versions(List<String> v) { versions = v; return this; }
        public Builder peers(List<TlsPeerConfig> v) { peers = v; return this; }
        public Builder keyPassword(String v) { keyPassword = v; return this; }
        /** The key-exchange groups, most preferred first; empty for the engine's defaults. */
        public Builder groups(List<String> v) { groups = v; return this; }
        public Builder domains(List<TlsDomainConfig> v) { domains = v; return this; }
        public Builder unknownServerName(UnknownServerName v) { unknownServerName = v; return this; }
        /** How often the certificate files are checked for changes; zero never. */
        public Builder watchInterval(Duration v) { watchInterval = v; return this; }
        public Builder crl(List<Path> v) { crl = v; return this; }
        public Builder revocation(Revocation v) { revocation = v; return this; }
        public Builder revocationFailure(RevocationFailure v) { revocationFailure = v; return this; }
        /** The OCSP responder asked about every certificate; null: the one each certificate names. */
        public Builder ocspResponder(java.net.URI v) { ocspResponder = v; return this; }
        public Builder ocspTimeout(Duration v) { ocspTimeout = v; return this; }
        public Builder ocspCacheTime(Duration v) { ocspCacheTime = v; return this; }
        public Builder ocspStapling(boolean v) { ocspStapling = v; return this; }

        /** The suites, versions and insecure switch of {@code preset} ({@link #MODERN}, ...); the rest stays. */
        public Builder preset(TlsConfig preset) {
            return ciphers(preset.ciphers).versions(preset.versions).allowInsecure(preset.allowInsecure);
        }

        public TlsConfig build() {
            return new TlsConfig(cert, key, trust, ciphers, clientAuth, allowInsecure, handshakeTimeout, engine, crypto,
                    sessionReuse, sessionCacheSize, sessionLifetime, handshakeThreads, handshakeQueue, verifyPeers, versions, peers,
                    keyPassword, groups, domains, unknownServerName, watchInterval, List.copyOf(crl), revocation,
                    revocationFailure, ocspResponder, ocspTimeout, ocspCacheTime, ocspStapling);
        }
    }

    /** The engine as configured: {@code auto}, {@code bc}, {@code jsse} or {@code openssl}. */
    public String engineName() {
        return engine == null ? "auto" : engine.configName();
    }
}
