package org.sipcrypt.lab.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * The handshake a comparison measures every cipher under: the TLS version ({@code compare
 * --tls-version}) and the key exchange ({@code --kx}), and from them the one suite each compared
 * cipher provider runs and the one key-exchange group offered.
 * <ul>
 * <li>TLS 1.2 with {@code rsa} (the default): the provider's RSA key-exchange suite
 * ({@code aes}: TLS_RSA_WITH_AES_128_CBC_SHA), no group; {@code chacha20} has none.</li>
 * <li>TLS 1.2 with an ECDHE group: the provider's ECDHE_RSA suite of the same bulk cipher
 * as its RSA suite (TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA), else its first ECDHE_RSA suite
 * (TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256); the lab's certificates are RSA.</li>
 * <li>TLS 1.3: the provider's first TLS 1.3 suite ({@code aes}: TLS_AES_128_GCM_SHA256,
 * {@code chacha20}: TLS_CHACHA20_POLY1305_SHA256), with an ECDHE or hybrid group: TLS 1.3 has no
 * RSA key exchange, and the ML-KEM hybrids are TLS 1.3's only.</li>
 * </ul>
 * A cipher with no such suite is refused before anything starts ({@link #check}); a suite name is
 * run as it is. Hybrid groups run on the bc TLS engine only.
 * Threading: immutable.
 *
 * @param version     {@code 1.2} or {@code 1.3}
 * @param keyExchange the key exchange
 */
public record Handshake(String version, KeyExchange keyExchange) {

    /** Today's comparison: TLS 1.2 with RSA key exchange. */
    public static final Handshake DEFAULT = new Handshake("1.2", KeyExchange.RSA);

    private static final CipherSuiteRegistry SUITES = CipherSuiteRegistry.load();

    /**
     * A key exchange of {@code --kx}: RSA, or ECDHE or an ML-KEM hybrid on one named group.
     * Threading: immutable.
     */
    public enum KeyExchange {
        RSA("rsa", null),
        ECDHE_P256("ecdhe-p256", KeyExchangeGroup.SECP256R1),
        ECDHE_X25519("ecdhe-x25519", KeyExchangeGroup.X25519),
        X25519MLKEM768("x25519mlkem768", KeyExchangeGroup.X25519MLKEM768);

        private final String configName;
        private final KeyExchangeGroup group;

        KeyExchange(String configName, KeyExchangeGroup group) {
            this.configName = configName;
            this.group = group;
        }

        /** The name of {@code --kx}: {@code ecdhe-x25519}. */
        public String configName() {
            return configName;
        }

        /** The one group offered, null for RSA key exchange. */
        public KeyExchangeGroup group() {
            return group;
        }
    }

    public Handshake {
        if (!"1.2".equals(version) && !"1.3".equals(version)) {
            throw new IllegalArgumentException("--tls-version: \"" + version + "\" (expected 1.2 or 1.3)");
        }
        if (keyExchange == null) {
            throw new IllegalArgumentException("--kx: missing");
        }
        if ("1.3".equals(version) && keyExchange == KeyExchange.RSA) {
            throw new IllegalArgumentException("--kx: rsa with --tls-version 1.3: TLS 1.3 has no RSA key exchange"
                    + " (expected ecdhe-p256, ecdhe-x25519 or x25519mlkem768)");
        }
        if ("1.2".equals(version) && keyExchange.group() != null && keyExchange.group().hybrid()) {
            throw new IllegalArgumentException("--kx: " + keyExchange.configName() + " with --tls-version 1.2: the ML-KEM"
                    + " hybrids are TLS 1.3 key exchanges (draft-ietf-tls-ecdhe-mlkem)");
        }
    }

    /**
     * The handshake of the two options.
     *
     * @throws IllegalArgumentException naming the option at fault
     */
    public static Handshake parse(String version, String kx) {
        String name = kx.trim().toLowerCase(Locale.ROOT);
        KeyExchange found = Stream.of(KeyExchange.values()).filter(k -> k.configName.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--kx: \"" + kx + "\" (expected "
                        + Stream.of(KeyExchange.values()).map(KeyExchange::configName).collect(Collectors.joining(", "))
                        + ")"));
        return new Handshake(version.trim(), found);
    }

    /** The group offered, or null for RSA key exchange. */
    public KeyExchangeGroup group() {
        return keyExchange.group();
    }

    /** Whether this is today's TLS 1.2 comparison with RSA key exchange. */
    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /** As the reports say it: {@code TLS 1.3, ecdhe-x25519}. */
    public String describe() {
        return "TLS " + version + ", " + keyExchange.configName();
    }

    /**
     * The suite a compared cipher runs under this handshake: a provider's, by the rules above; any
     * other name (a suite's) as it is.
     *
     * @throws IllegalArgumentException when the provider has no suite for this handshake
     */
    public String suite(String cipher) {
        Optional<CipherSuiteProvider> p = SUITES.provider(cipher);
        if (p.isEmpty()) {
            return cipher;
        }
        String why = refusal(p.get());
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        return pick(p.get()).orElseThrow().name();
    }

    /**
     * Refuses a comparison this handshake cannot run: a provider without a suite for it, a hybrid
     * group with the server's {@code tls.engine} set to another engine than bc.
     *
     * @param ciphers  compared providers, suite names and the udp/tcp baselines
     * @param server   the scenario's server settings (key to value)
     * @throws IllegalArgumentException saying which ciphers cannot run and what can
     */
    public void check(List<String> ciphers, Map<String, String> server) {
        List<String> refused = new ArrayList<>();
        for (String c : ciphers) {
            SUITES.provider(c).filter(p -> refusal(p) != null).ifPresent(p -> refused.add(c));
        }
        if (!refused.isEmpty()) {
            List<String> runnable = ciphers.stream().filter(c -> !refused.contains(c)).toList();
            throw new IllegalArgumentException(String.join(", ", refused) + ": no suite for " + describe()
                    + " (" + what() + ")" + (runnable.isEmpty() ? "" : "; these can run: --ciphers "
                    + String.join(",", runnable)));
        }
        String engine = server.get("tls.engine");
        if (group() != null && group().hybrid() && engine != null && !engine.equals("bc")) {
            throw new IllegalArgumentException("--kx " + keyExchange.configName() + ": hybrid key exchange runs on the"
                    + " bc TLS engine only, and the scenario sets tls.engine " + engine);
        }
    }

    /** What a provider needs to have for this handshake. */
    private String what() {
        if ("1.3".equals(version)) {
            return "a TLS 1.3 suite";
        }
        return keyExchange == KeyExchange.RSA ? "a TLS_RSA_WITH_ suite"
                : "a TLS_ECDHE_RSA_WITH_ suite; the lab's certificates are RSA";
    }

    /** Why a provider cannot run under this handshake, or null. */
    private String refusal(CipherSuiteProvider p) {
        return pick(p).isPresent() ? null
                : p.name() + " has no suite for " + describe() + " (" + what() + ")";
    }

    private Optional<CipherSuiteId> pick(CipherSuiteProvider p) {
        List<CipherSuiteId> suites = p.suites();
        if ("1.3".equals(version)) {
            return suites.stream().filter(s -> !s.name().contains("_WITH_")).findFirst();
        }
        Optional<CipherSuiteId> rsa = suites.stream().filter(s -> s.name().startsWith("TLS_RSA_WITH_")).findFirst();
        if (keyExchange == KeyExchange.RSA) {
            return rsa;
        }
        List<CipherSuiteId> ecdhe = suites.stream().filter(s -> s.name().startsWith("TLS_ECDHE_RSA_WITH_")).toList();
        if (rsa.isPresent()) {
            String same = rsa.get().name().replace("TLS_RSA_WITH_", "TLS_ECDHE_RSA_WITH_");
            Optional<CipherSuiteId> match = ecdhe.stream().filter(s -> s.name().equals(same)).findFirst();
            if (match.isPresent()) {
                return match;
            }
        }
        return ecdhe.stream().findFirst();
    }
}
