package org.sipcrypt.server.tls;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.bouncycastle.tls.NamedGroup;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * A key-exchange group of {@code tls.groups} (RFC 8446 §4.2.7, RFC 8422 §5.1.1): its name in
 * configuration and metrics, its IANA code, and its name on each TLS engine that has it. The
 * hybrids of X25519 or a NIST curve with ML-KEM (draft-ietf-tls-ecdhe-mlkem) run on the bc engine
 * only: neither SunJSSE (Java 17 to 25) nor the BoringSSL Netty's tcnative wraps is asked for them here.
 * Threading: immutable.
 */
public enum KeyExchangeGroup {
    X25519("x25519", NamedGroup.x25519, "x25519", "X25519"),
    SECP256R1("secp256r1", NamedGroup.secp256r1, "secp256r1", "P-256"),
    SECP384R1("secp384r1", NamedGroup.secp384r1, "secp384r1", "P-384"),
    X25519MLKEM768("x25519mlkem768", NamedGroup.X25519MLKEM768, null, null),
    SECP256R1MLKEM768("secp256r1mlkem768", NamedGroup.SecP256r1MLKEM768, null, null),
    SECP384R1MLKEM1024("secp384r1mlkem1024", NamedGroup.SecP384r1MLKEM1024, null, null),
    FFDHE2048("ffdhe2048", NamedGroup.ffdhe2048, "ffdhe2048", null);

    private final String configName;
    private final int code;
    private final String jsseName;
    private final String openSslName;

    KeyExchangeGroup(String configName, int code, String jsseName, String openSslName) {
        this.configName = configName;
        this.code = code;
        this.jsseName = jsseName;
        this.openSslName = openSslName;
    }

    /** The name in {@code tls.groups} and in the metric tag: {@code x25519mlkem768}. */
    public String configName() {
        return configName;
    }

    /** The IANA code (TLS Supported Groups registry), as Bouncy Castle's {@link NamedGroup} has it. */
    public int code() {
        return code;
    }

    /** SunJSSE's name ({@code jdk.tls.namedGroups}, {@code SSLParameters.setNamedGroups}); null where it has none. */
    public String jsseName() {
        return jsseName;
    }

    /** BoringSSL's name ({@code SSL_CTX_set1_groups_list}); null where the openssl engine is not given it. */
    public String openSslName() {
        return openSslName;
    }

    /** Whether the group is a hybrid with ML-KEM (post-quantum). */
    public boolean hybrid() {
        return configName.contains("mlkem");
    }

    /** The engines that run the group. */
    public Set<TlsEngine> tlsEngines() {
        return Stream.of(TlsEngine.BC, TlsEngine.JSSE, TlsEngine.OPENSSL).filter(this::runsOn)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Whether {@code engine} runs the group. */
    public boolean runsOn(TlsEngine engine) {
        return switch (engine) {
            case BC -> true;
            case JSSE -> jsseName != null;
            case OPENSSL -> openSslName != null;
        };
    }

    /** The group of an IANA code, or null for a code not listed here. */
    public static KeyExchangeGroup ofCode(int code) {
        for (KeyExchangeGroup g : values()) {
            if (g.code == code) {
                return g;
            }
        }
        return null;
    }

    /**
     * The groups of {@code tls.groups}, in the order given; empty for none (the engine's defaults).
     *
     * @throws IllegalArgumentException starting with {@code tls.groups:} for an unknown name or one given twice
     */
    public static List<KeyExchangeGroup> parse(List<String> names) {
        List<KeyExchangeGroup> out = new ArrayList<>();
        for (String raw : names) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            KeyExchangeGroup found = null;
            for (KeyExchangeGroup g : values()) {
                if (g.configName.equals(name)) {
                    found = g;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("tls.groups: \"" + raw.trim() + "\" is not a key-exchange group"
                        + " (expected " + Stream.of(values()).map(KeyExchangeGroup::configName)
                        .collect(Collectors.joining(", ")) + ")");
            }
            if (out.contains(found)) {
                throw new IllegalArgumentException("tls.groups: " + found.configName + " is listed twice");
            }
            out.add(found);
        }
        return List.copyOf(out);
    }

    @Override
    public String toString() {
        return configName;
    }
}
