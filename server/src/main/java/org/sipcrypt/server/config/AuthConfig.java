package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.sipcrypt.server.transport.ConfigNamed;

/**
 * Digest authentication settings (RFC 3261 §22, RFC 7616 / RFC 8760); keys {@code auth},
 * {@code auth.*} and {@code realm}. Off by default, so the server runs without subscribers.
 * Threading: immutable.
 *
 * @param enabled           whether requests are challenged at all ({@code --auth})
 * @param methods           methods challenged, upper case, or {@link #ALL_METHODS} for every method;
 *                          ACK and CANCEL never are. Narrowing it lets the other methods reach local
 *                          users unauthenticated (requests leaving our domain are challenged anyway)
 * @param realm             the realm; {@code null} means the host of the first listener
 * @param algorithms        challenges offered, most preferred first
 * @param legacyNoQop       lab only: whether credentials without qop (the RFC 2069 form) are
 *                          accepted; they carry no nonce count, so replays within the nonce lifetime pass
 * @param nonceLifetime     a nonce older than this gets a new challenge with {@code stale=true}
 * @param nonceSecret       the HMAC key of nonces; empty means a random one per start. Servers
 *                          sharing it accept each other's nonces
 * @param nonceBindsAddress whether a nonce is valid only from the IP address it was issued to
 * @param onFailure         what a wrong password or unknown user gets: 403, or a new challenge
 * @param matchIdentity     whether the digest user must be the To user (REGISTER) or From user
 * @param inDialog          whether requests inside a dialog this proxy record-routed (proved by the
 *                          signed Record-Route they carry back) are challenged too
 * @param trustedPeers      addresses whose requests are not challenged: the next and previous proxies
 *                          of a chain; the registrar also stores the Path headers (RFC 3327) of their REGISTERs
 * @param pathPeers         addresses of edge proxies whose REGISTERs' Path headers the registrar stores,
 *                          while still challenging those REGISTERs (the phone's own credentials are checked)
 * @param labSkipUriCheck   lab only: whether the digest {@code uri} may differ from the Request-URI,
 *                          which lets credentials captured for one target be spent on another
 * @param batchSize         most user names fetched by one query
 * @param batchWait         longest a lookup waits for its batch to fill
 * @param queueCapacity     most lookups waiting at once; beyond it requests get 503
 * @param cacheSize         most subscribers cached; 0 turns the cache off
 * @param cacheTtl          how long a cached subscriber is trusted
 * @param replayNonces      most nonces whose counts are remembered for replay protection
 */
public record AuthConfig(
        boolean enabled,
        List<String> methods,
        String realm,
        List<DigestAlgorithm> algorithms,
        boolean legacyNoQop,
        Duration nonceLifetime,
        String nonceSecret,
        boolean nonceBindsAddress,
        FailureAnswer onFailure,
        boolean matchIdentity,
        boolean inDialog,
        List<AddressBlock> trustedPeers,
        List<AddressBlock> pathPeers,
        boolean labSkipUriCheck,
        int batchSize,
        Duration batchWait,
        int queueCapacity,
        int cacheSize,
        Duration cacheTtl,
        int replayNonces) {

    /** The {@link #methods} entry that stands for every method (but ACK and CANCEL). */
    public static final String ALL_METHODS = "*";

    /**
     * Digest authentication on with the secure defaults (preset {@code secure}): every method but ACK
     * and CANCEL challenged, SHA-256 then MD5 offered, only credentials with qop=auth whose uri is the
     * Request-URI accepted, the digest user matched to the To or From user, 403 on a wrong password.
     */
    public static final AuthConfig SECURE = new Builder().enabled(true).build();

    /**
     * Lab only (preset {@code lab-legacy-digest}): digest authentication on for old test clients such as
     * SIPp's: MD5 only, credentials without qop (RFC 2069) and with another uri than the Request-URI
     * accepted, so captured credentials can be replayed and spent on other targets. Logged as a warning
     * at start, as {@code auth.legacyNoQop} and {@code auth.lab.skipUriCheck} are.
     */
    public static final AuthConfig LAB_LEGACY_DIGEST = new Builder().enabled(true)
            .algorithms(List.of(DigestAlgorithm.MD5)).legacyNoQop(true).labSkipUriCheck(true).build();

    /** The presets by name; a preset fixes who is challenged and which credentials are accepted. */
    static final Presets<AuthConfig> PRESETS = new Presets<>(presetMap(), AuthConfig::presetPolicy);

    private static Map<String, AuthConfig> presetMap() {
        Map<String, AuthConfig> m = new LinkedHashMap<>();
        m.put("secure", SECURE);
        m.put("lab-legacy-digest", LAB_LEGACY_DIGEST);
        return m;
    }

    private List<Object> presetPolicy() {
        return List.of(enabled, methods, algorithms, legacyNoQop, onFailure, matchIdentity, labSkipUriCheck);
    }

    /** The name of the preset these settings follow ({@code auth.preset}), if any. */
    public Optional<String> presetName() {
        return PRESETS.nameOf(this);
    }

    /** What a request with wrong credentials gets. */
    public enum FailureAnswer implements ConfigNamed {
        /** 403 Forbidden. */
        FORBID,
        /** A new 401/407 challenge. */
        CHALLENGE;


        static FailureAnswer parse(String text) {
            return ConfigNamed.parse(FailureAnswer.class, text, "answer to wrong credentials");
        }
    }

    public AuthConfig {
        methods = List.copyOf(Objects.requireNonNull(methods, "methods"));
        algorithms = List.copyOf(Objects.requireNonNull(algorithms, "algorithms"));
        trustedPeers = List.copyOf(Objects.requireNonNull(trustedPeers, "trustedPeers"));
        pathPeers = List.copyOf(Objects.requireNonNull(pathPeers, "pathPeers"));
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("auth.methods: at least one method is needed (expected * for all)");
        }
        Objects.requireNonNull(nonceLifetime, "nonceLifetime");
        Objects.requireNonNull(nonceSecret, "nonceSecret");
        Objects.requireNonNull(onFailure, "onFailure");
        Objects.requireNonNull(batchWait, "batchWait");
        Objects.requireNonNull(cacheTtl, "cacheTtl");
        if (algorithms.isEmpty()) {
            throw new IllegalArgumentException("auth.algorithms: at least one algorithm is needed");
        }
        if (algorithms.stream().distinct().count() != algorithms.size()) {
            throw new IllegalArgumentException("auth.algorithms: an algorithm is listed twice");
        }
        if (!nonceSecret.isEmpty() && nonceSecret.length() < 16) {
            throw new IllegalArgumentException("auth.nonceSecret: too short (expected at least 16 characters)");
        }
    }

    /**
     * Off; once turned on every method but ACK and CANCEL is challenged, only credentials with
     * qop=auth whose uri is the Request-URI are accepted, and nobody is trusted; SHA-256 and MD5
     * offered; batches of 16 within 2 ms.
     */
    public static AuthConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().enabled(enabled).methods(methods).realm(realm).algorithms(algorithms)
                .legacyNoQop(legacyNoQop).nonceLifetime(nonceLifetime).nonceSecret(nonceSecret)
                .nonceBindsAddress(nonceBindsAddress).onFailure(onFailure).matchIdentity(matchIdentity)
                .inDialog(inDialog).trustedPeers(trustedPeers).pathPeers(pathPeers).labSkipUriCheck(labSkipUriCheck).batchSize(batchSize)
                .batchWait(batchWait).queueCapacity(queueCapacity).cacheSize(cacheSize).cacheTtl(cacheTtl)
                .replayNonces(replayNonces);
    }

    /** The settings, with passwords and secrets masked. */
    @Override
    public String toString() {
        return RecordText.of(this);
    }

    /**
     * Named settings for an {@link AuthConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private boolean enabled;
        private List<String> methods = List.of(ALL_METHODS);
        private String realm;
        private List<DigestAlgorithm> algorithms = List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5);
        private boolean legacyNoQop;
        private Duration nonceLifetime = Duration.ofMinutes(5);
        private String nonceSecret = "";
        private boolean nonceBindsAddress;
        private FailureAnswer onFailure = FailureAnswer.FORBID;
        private boolean matchIdentity = true;
        private boolean inDialog;
        private List<AddressBlock> trustedPeers = List.of();
        private List<AddressBlock> pathPeers = List.of();
        private boolean labSkipUriCheck;
        private int batchSize = 16;
        private Duration batchWait = Duration.ofMillis(2);
        private int queueCapacity = 10_000;
        private int cacheSize;
        private Duration cacheTtl = Duration.ofSeconds(60);
        private int replayNonces = 100_000;

        public Builder enabled(boolean v) { enabled = v; return this; }
        public Builder methods(List<String> v) { methods = v; return this; }
        public Builder realm(String v) { realm = v; return this; }
        public Builder algorithms(List<DigestAlgorithm> v) { algorithms = v; return this; }
        public Builder legacyNoQop(boolean v) { legacyNoQop = v; return this; }
        public Builder nonceLifetime(Duration v) { nonceLifetime = v; return this; }
        public Builder nonceSecret(String v) { nonceSecret = v; return this; }
        public Builder nonceBindsAddress(boolean v) { nonceBindsAddress = v; return this; }
        public Builder onFailure(FailureAnswer v) { onFailure = v; return this; }
        public Builder matchIdentity(boolean v) { matchIdentity = v; return this; }
        public Builder inDialog(boolean v) { inDialog = v; return this; }
        public Builder trustedPeers(List<AddressBlock> v) { trustedPeers = v; return this; }
        public Builder pathPeers(List<AddressBlock> v) { pathPeers = v; return this; }
        public Builder labSkipUriCheck(boolean v) { labSkipUriCheck = v; return this; }
        public Builder batchSize(int v) { batchSize = v; return this; }
        public Builder batchWait(Duration v) { batchWait = v; return this; }
        public Builder queueCapacity(int v) { queueCapacity = v; return this; }
        public Builder cacheSize(int v) { cacheSize = v; return this; }
        public Builder cacheTtl(Duration v) { cacheTtl = v; return this; }
        public Builder replayNonces(int v) { replayNonces = v; return this; }

        /** Who is challenged and which credentials pass, as in {@code preset} ({@link #SECURE}, ...); the rest stays. */
        public Builder preset(AuthConfig preset) {
            return enabled(preset.enabled).methods(preset.methods).algorithms(preset.algorithms)
                    .legacyNoQop(preset.legacyNoQop).onFailure(preset.onFailure).matchIdentity(preset.matchIdentity)
                    .labSkipUriCheck(preset.labSkipUriCheck);
        }

        public AuthConfig build() {
            return new AuthConfig(enabled, methods, realm, algorithms, legacyNoQop, nonceLifetime, nonceSecret,
                    nonceBindsAddress, onFailure, matchIdentity, inDialog, trustedPeers, pathPeers, labSkipUriCheck, batchSize,
                    batchWait, queueCapacity, cacheSize, cacheTtl, replayNonces);
        }
    }

    /** Whether {@code method} is challenged (ACK and CANCEL never are: RFC 3261 §22.1). */
    public boolean challenges(String method) {
        return enabled && !"ACK".equals(method) && !"CANCEL".equals(method)
                && (methods.contains(ALL_METHODS) || methods.contains(method));
    }

    /** Whether {@link #methods} leaves some method unchallenged. */
    public boolean methodsNarrowed() {
        return !methods.contains(ALL_METHODS);
    }

    /** Whether a request from {@code address} comes from a trusted peer. */
    public boolean trusted(java.net.InetAddress address) {
        return within(trustedPeers, address);
    }

    /**
     * Whether the registrar may store the Path headers of a REGISTER from {@code address}: it comes
     * from a trusted peer or from one of {@link #pathPeers}.
     */
    public boolean pathTrusted(java.net.InetAddress address) {
        return within(trustedPeers, address) || within(pathPeers, address);
    }

    private static boolean within(List<AddressBlock> blocks, java.net.InetAddress address) {
        if (address == null) {
            return false;
        }
        for (AddressBlock b : blocks) {
            if (b.contains(address)) {
                return true;
            }
        }
        return false;
    }
}
