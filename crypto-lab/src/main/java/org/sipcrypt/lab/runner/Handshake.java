package org.sipcrypt.lab.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.sipcrypt.lab.scenario.Leg;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.LabCertificates;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * The handshake a comparison measures every cipher under: the TLS version ({@code compare
 * --tls-version}), the key exchange ({@code --kx}), the server's certificate ({@code --cert}) and
 * the generator's resumption ({@code --resumption}), and from them the one suite each compared
 * cipher provider runs and the one key-exchange group offered.
 * <ul>
 * <li>TLS 1.2 with {@code rsa} (the default): the provider's RSA key-exchange suite
 * ({@code aes}: TLS_RSA_WITH_AES_128_CBC_SHA), no group; {@code chacha20} has none. RSA key
 * exchange needs an RSA certificate (RFC 5246 §7.4.2).</li>
 * <li>TLS 1.2 with an ECDHE group: the provider's ECDHE suite signed as the certificate is
 * (ECDHE_RSA or, with {@code ecdsa-p256}, ECDHE_ECDSA, RFC 8422 §2) of the same bulk cipher as its
 * RSA suite (TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA), else its first such suite
 * (TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256). An ECDSA P-256 certificate runs with
 * {@code ecdhe-p256} only: the client's supported groups also name the curves of the ECDSA
 * certificates it accepts (RFC 8422 §5.1).</li>
 * <li>TLS 1.3: the provider's first TLS 1.3 suite ({@code aes}: TLS_AES_128_GCM_SHA256,
 * {@code chacha20}: TLS_CHACHA20_POLY1305_SHA256), with an ECDHE or hybrid group: TLS 1.3 has no
 * RSA key exchange, and the ML-KEM hybrids are TLS 1.3's only.</li>
 * </ul>
 * A cipher with no such suite is refused before anything starts ({@link #check}); a suite name is
 * run as it is. Hybrid groups run on the bc TLS engine only. TLS 1.3 takes any certificate: its
 * suites do not name the signature (RFC 8446 §4.4.2).
 * <p>Resumption is the generator's, on the left leg; the server under test grants sessions for it.
 * {@code none} offers none, {@code session-id} resumes TLS 1.2 sessions by their ID (RFC 5246
 * §7.4.1.2) on the bc engine, which offers no tickets. {@code ticket} resumes TLS 1.2 sessions by
 * RFC 5077 session tickets and {@code psk} TLS 1.3 sessions by the PSK of a NewSessionTicket
 * (RFC 8446 §2.2, psk_dhe_ke: a fresh key exchange on the chosen group each time, §4.2.9), both
 * on the openssl engine (Netty's OpenSslEngine on BoringSSL) as the generator's client: its
 * context takes the chosen group ({@code OpenSslContextOption.GROUPS}) and its TLS 1.2 tickets for
 * itself, where SunJSSE on Java 17 takes groups and client tickets only JVM-wide
 * ({@code jdk.tls.namedGroups}, {@code jdk.tls.client.enableSessionTicketExtension}). BoringSSL's
 * client offers its three TLS 1.3 suites whatever it is told, so under {@code psk} the server
 * chooses the one suite ({@link #check}). The server under test issues TLS 1.2 tickets on all three
 * engines and TLS 1.3 ones on jsse and openssl; Bouncy Castle 1.82's server sends no TLS 1.3
 * NewSessionTicket, so {@code psk} is refused with {@code tls.engine bc}; both modes refuse the
 * ML-KEM hybrids (bc's alone) and ciphers that run on bc alone.
 * Threading: immutable.
 *
 * @param version     {@code 1.2} or {@code 1.3}
 * @param keyExchange the key exchange
 * @param certificate the server's (and the lab's) certificate and key type
 * @param resumption  the generator's resumption, or null for what the scenario's left leg says
 *                    ({@code sessionReuse})
 */
public record Handshake(String version, KeyExchange keyExchange, Certificate certificate, Resumption resumption) {

    /** Today's comparison: TLS 1.2 with RSA key exchange, RSA-2048 certificates, resumption as the scenario says. */
    public static final Handshake DEFAULT = new Handshake("1.2", KeyExchange.RSA);

    private static final CipherSuiteRegistry SUITES = CipherSuiteRegistry.load();
    /** The TLS 1.3 suite a BoringSSL server picks from a BoringSSL client's offer (on a CPU with AES instructions). */
    static final String BORINGSSL_FIRST_TLS13 = "TLS_AES_128_GCM_SHA256";

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

    /**
     * A certificate of {@code --cert}: the key type and size of the lab's CA, server and client
     * certificates ({@code certs --key-type --rsa-bits}).
     * Threading: immutable.
     */
    public enum Certificate {
        RSA2048("rsa2048", LabCertificates.KeyType.RSA, 2048),
        RSA3072("rsa3072", LabCertificates.KeyType.RSA, 3072),
        ECDSA_P256("ecdsa-p256", LabCertificates.KeyType.ECDSA, 0);

        private final String configName;
        private final LabCertificates.KeyType keyType;
        private final int rsaBits;

        Certificate(String configName, LabCertificates.KeyType keyType, int rsaBits) {
            this.configName = configName;
            this.keyType = keyType;
            this.rsaBits = rsaBits;
        }

        /** The name of {@code --cert}: {@code ecdsa-p256}. */
        public String configName() {
            return configName;
        }

        /** The key type of every certificate the lab makes for it. */
        public LabCertificates.KeyType keyType() {
            return keyType;
        }

        /** The RSA key size in bits, 0 for ECDSA. */
        public int rsaBits() {
            return rsaBits;
        }

        /** The arguments of the {@code certs} command that makes this certificate's files. */
        public List<String> certsArguments() {
            return keyType == LabCertificates.KeyType.RSA
                    ? List.of("--key-type", "rsa", "--rsa-bits", Integer.toString(rsaBits))
                    : List.of("--key-type", "ecdsa");
        }
    }

    /**
     * A resumption of {@code --resumption}: how the generator's per-call connections resume.
     * Threading: immutable.
     */
    public enum Resumption {
        NONE("none"),
        SESSION_ID("session-id"),
        TICKET("ticket"),
        PSK("psk");

        private final String configName;

        Resumption(String configName) {
            this.configName = configName;
        }

        /** The name of {@code --resumption}: {@code session-id}. */
        public String configName() {
            return configName;
        }
    }

    /** A handshake with RSA-2048 certificates and resumption as the scenario says. */
    public Handshake(String version, KeyExchange keyExchange) {
        this(version, keyExchange, Certificate.RSA2048, null);
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
        if (certificate == null) {
            throw new IllegalArgumentException("--cert: missing");
        }
        if (keyExchange == KeyExchange.RSA && certificate.keyType() != LabCertificates.KeyType.RSA) {
            throw new IllegalArgumentException("--cert: " + certificate.configName() + " with --kx rsa: RSA key exchange"
                    + " encrypts to the certificate's RSA key (expected --cert rsa2048 or rsa3072, or an ECDHE --kx)");
        }
        if ("1.2".equals(version) && certificate == Certificate.ECDSA_P256 && keyExchange != KeyExchange.ECDHE_P256) {
            // RFC 8422 §5.1: in TLS 1.2 the client's supported groups also name the curves of the ECDSA
            // certificates it accepts, and the lab's client lists the one group of --kx (SunJSSE holds to it)
            throw new IllegalArgumentException("--cert: ecdsa-p256 with --tls-version 1.2 and --kx "
                    + keyExchange.configName() + ": a TLS 1.2 client accepts an ECDSA certificate only on a curve it"
                    + " lists in its supported groups (RFC 8422 §5.1), and the lab's lists only the --kx group"
                    + " (expected --kx ecdhe-p256, or --tls-version 1.3)");
        }
        if (resumption == Resumption.SESSION_ID && "1.3".equals(version)) {
            throw new IllegalArgumentException("--resumption: session-id with --tls-version 1.3: TLS 1.3 resumes by PSK"
                    + " only (RFC 8446 §2.2; expected --resumption psk)");
        }
        if (resumption == Resumption.TICKET && "1.3".equals(version)) {
            throw new IllegalArgumentException("--resumption: ticket with --tls-version 1.3: RFC 5077 tickets are TLS"
                    + " 1.2's; TLS 1.3 resumes by the PSK of a NewSessionTicket (expected --resumption psk)");
        }
        if (resumption == Resumption.PSK && "1.2".equals(version)) {
            throw new IllegalArgumentException("--resumption: psk with --tls-version 1.2: NewSessionTicket PSKs are TLS"
                    + " 1.3's (RFC 8446 §2.2; expected --resumption session-id or ticket)");
        }
        // the fields are not set yet in a compact constructor: the parameters are asked
        if ((resumption == Resumption.TICKET || resumption == Resumption.PSK) && keyExchange.group() != null && keyExchange.group().hybrid()) {
            throw new IllegalArgumentException("--resumption: " + resumption.configName() + " with --kx "
                    + keyExchange.configName() + ": the generator resumes by ticket on BoringSSL, which has no ML-KEM"
                    + " (the hybrids run on the bc engine only; expected --kx ecdhe-p256 or ecdhe-x25519)");
        }
    }

    /**
     * The handshake of the two options.
     *
     * @throws IllegalArgumentException naming the option at fault
     */
    public static Handshake parse(String version, String kx) {
        return parse(version, kx, Certificate.RSA2048.configName(), null);
    }

    /**
     * The handshake of the four options; a null {@code resumption} leaves it to the scenario.
     *
     * @throws IllegalArgumentException naming the option at fault
     */
    public static Handshake parse(String version, String kx, String cert, String resumption) {
        KeyExchange k = named("--kx", kx, KeyExchange.values(), KeyExchange::configName);
        Certificate c = named("--cert", cert, Certificate.values(), Certificate::configName);
        Resumption r = resumption == null ? null
                : named("--resumption", resumption, Resumption.values(), Resumption::configName);
        return new Handshake(version.trim(), k, c, r);
    }

    private static <T> T named(String option, String text, T[] values, java.util.function.Function<T, String> name) {
        String n = text.trim().toLowerCase(Locale.ROOT);
        return Stream.of(values).filter(v -> name.apply(v).equals(n)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(option + ": \"" + text + "\" (expected "
                        + Stream.of(values).map(name).collect(Collectors.joining(", ")) + ")"));
    }

    /** The group offered, or null for RSA key exchange. */
    public KeyExchangeGroup group() {
        return keyExchange.group();
    }

    /** Whether this is today's TLS 1.2 comparison with RSA key exchange and RSA-2048 certificates. */
    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /**
     * Whether the generator's left-leg connections offer sessions to resume: as {@code --resumption}
     * says, else as the scenario's left leg does.
     */
    public boolean generatorResumes(boolean scenarioSays) {
        return resumption == null ? scenarioSays : resumption != Resumption.NONE;
    }

    /**
     * The generator's TLS engine for its resumption: bc for {@code session-id}, openssl for
     * {@code ticket} and {@code psk}, else null (by suite and group).
     */
    public String generatorEngine() {
        if (resumption == Resumption.SESSION_ID) {
            return "bc";
        }
        return resumesByTicket() ? "openssl" : null;
    }

    /** Whether the generator resumes by a ticket the server issued: {@code ticket} or {@code psk}. */
    public boolean resumesByTicket() {
        return resumption == Resumption.TICKET || resumption == Resumption.PSK;
    }

    /** Whether the generator is asked to resume ({@code session-id}, {@code ticket}, {@code psk}). */
    public boolean asksResumption() {
        return resumption != null && resumption != Resumption.NONE;
    }

    /**
     * As the reports say it: {@code TLS 1.3, ecdhe-x25519}, then the certificate when it is not
     * RSA-2048 and the resumption when one is chosen: {@code TLS 1.2, ecdhe-p256, ecdsa-p256,
     * resumption session-id}.
     */
    public String describe() {
        return "TLS " + version + ", " + keyExchange.configName()
                + (certificate == Certificate.RSA2048 ? "" : ", " + certificate.configName())
                + (resumption == null ? "" : ", resumption " + resumption.configName());
    }

    /**
     * The suite a compared cipher runs under this handshake: a provider's, by the rules above; any
     * other name (a suite's) as it is.
     *
     * @throws IllegalArgumentException when the provider has no suite for this handshake
     */
    public String suite(String cipher) {
        cipher = Leg.cipherOf(cipher);
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
     * group with the server's {@code tls.engine} set to another engine than bc, a resumption with
     * the server's {@code tls.sessionReuse} off, and {@code ticket} or {@code psk} where they
     * cannot run ({@link #checkTickets}).
     *
     * @param ciphers  compared providers, suite names and the udp/tcp baselines
     * @param server   the scenario's server settings (key to value)
     * @throws IllegalArgumentException saying which ciphers cannot run and what can
     */
    public void check(List<String> ciphers, Map<String, String> server) {
        List<String> refused = new ArrayList<>();
        for (String c : ciphers) {
            SUITES.provider(Leg.cipherOf(c)).filter(p -> refusal(p) != null).ifPresent(p -> refused.add(c));
        }
        if (!refused.isEmpty()) {
            List<String> runnable = ciphers.stream().filter(c -> !refused.contains(c)).toList();
            throw new IllegalArgumentException(String.join(", ", refused) + ": no suite for " + describe()
                    + " (" + what() + ")" + (runnable.isEmpty() ? "" : "; these can run: --ciphers "
                    + String.join(",", runnable)));
        }
        String reuse = server.get("tls.sessionReuse");
        if (resumption != null && resumption != Resumption.NONE && "off".equals(reuse)) {
            throw new IllegalArgumentException("--resumption " + resumption.configName() + ": the scenario sets the"
                    + " server's tls.sessionReuse off, so it grants no session to resume");
        }
        String engine = server.get("tls.engine");
        if (group() != null && group().hybrid() && engine != null && !engine.equals("bc")) {
            throw new IllegalArgumentException("--kx " + keyExchange.configName() + ": hybrid key exchange runs on the"
                    + " bc TLS engine only, and the scenario sets tls.engine " + engine);
        }
        if (resumesByTicket()) {
            checkTickets(ciphers, engine);
        }
    }

    /**
     * Refuses {@code ticket} and {@code psk} where they cannot run: {@code psk} on the server's bc
     * engine (no TLS 1.3 tickets), a cipher whose suites do not run on both the generator's openssl engine and a
     * server engine that issues tickets, and under {@code psk} with {@code tls.engine openssl} a
     * suite other than BoringSSL's first TLS 1.3 choice: both ends then offer BoringSSL's three TLS
     * 1.3 suites, and the server picks TLS_AES_128_GCM_SHA256.
     */
    private void checkTickets(List<String> ciphers, String engine) {
        String mode = "--resumption " + resumption.configName();
        if ("bc".equals(engine) && resumption == Resumption.PSK) {
            throw new IllegalArgumentException(mode + ": the scenario sets tls.engine bc, whose server (Bouncy Castle"
                    + " 1.82) issues no TLS 1.3 tickets (expected tls.engine jsse or openssl, or --resumption none)");
        }
        List<String> refused = new ArrayList<>();
        for (String c : ciphers) {
            Optional<CipherSuiteProvider> p = SUITES.provider(Leg.cipherOf(c));
            if (p.isPresent() && (!p.get().tlsEngines().contains(TlsEngine.OPENSSL)
                    || "1.3".equals(version) && "openssl".equals(engine)
                    && !pick(p.get()).map(s -> s.name().equals(BORINGSSL_FIRST_TLS13)).orElse(false))) {
                refused.add(c);
            }
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException(mode + ": " + String.join(", ", refused) + " cannot resume by ticket: the"
                    + " generator resumes on the openssl engine (BoringSSL), which runs the aes and chacha20 suites only"
                    + ("openssl".equals(engine) && "1.3".equals(version) ? ", and with tls.engine openssl both ends"
                    + " offer BoringSSL's TLS 1.3 suites, of which the server picks " + BORINGSSL_FIRST_TLS13 : ""));
        }
    }

    /** What a provider needs to have for this handshake. */
    private String what() {
        if ("1.3".equals(version)) {
            return "a TLS 1.3 suite";
        }
        return keyExchange == KeyExchange.RSA ? "a TLS_RSA_WITH_ suite"
                : "a " + ecdhePrefix() + " suite for " + certificate.configName() + " certificates";
    }

    /** Why a provider cannot run under this handshake, or null. */
    private String refusal(CipherSuiteProvider p) {
        return pick(p).isPresent() ? null
                : p.name() + " has no suite for " + describe() + " (" + what() + ")";
    }

    private String ecdhePrefix() {
        return certificate.keyType() == LabCertificates.KeyType.ECDSA ? "TLS_ECDHE_ECDSA_WITH_" : "TLS_ECDHE_RSA_WITH_";
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
        // RFC 8422 §2: the ECDHE suite's signature is the certificate's key type
        String prefix = ecdhePrefix();
        List<CipherSuiteId> ecdhe = suites.stream().filter(s -> s.name().startsWith(prefix)).toList();
        if (rsa.isPresent()) {
            String same = rsa.get().name().replace("TLS_RSA_WITH_", prefix);
            Optional<CipherSuiteId> match = ecdhe.stream().filter(s -> s.name().equals(same)).findFirst();
            if (match.isPresent()) {
                return match;
            }
        }
        return ecdhe.stream().findFirst();
    }
}
