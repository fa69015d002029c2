package org.sipcrypt.server.tls;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * What a TLS configuration comes to: the suites in preference order, the TLS engine that runs all
 * of them, and on the {@code bc} engine the crypto engine of each provider's bulk cipher. Settings
 * that cannot run together are refused here, with the setting's key in the message, so the server
 * never starts with a suite it cannot negotiate.
 * Threading: immutable.
 *
 * @param suites   the suites, most preferred first
 * @param engine   the TLS engine
 * @param crypto   per provider name (of those offering a suite), the crypto engine of its bulk cipher on
 *                 the bc engine
 * @param insecure names of the insecure providers among them (the lab warning)
 * @param versions the TLS versions offered, newest first: {@code TLSv1.3}, {@code TLSv1.2}
 * @param groups   the key-exchange groups offered, most preferred first; empty for the engine's own
 *                 defaults
 */
public record TlsChoices(List<CipherSuiteId> suites, TlsEngine engine, Map<String, CipherEngine> crypto,
                         List<String> insecure, List<String> versions, List<KeyExchangeGroup> groups) {

    /** The TLS 1.3 suites BoringSSL offers whenever TLS 1.3 is on; the openssl engine cannot narrow them. */
    public static final List<String> BORINGSSL_TLS13 = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");

    public TlsChoices {
        suites = List.copyOf(suites);
        crypto = Map.copyOf(crypto);
        insecure = List.copyOf(insecure);
        versions = List.copyOf(versions);
        groups = List.copyOf(groups);
    }

    /**
     * Resolves a configuration as if every TLS engine could run in this JVM: what a configuration
     * allows, checked before the server starts.
     *
     * @see #resolve(CipherSuiteRegistry, List, boolean, TlsEngine, List, List, Map)
     */
    public static TlsChoices resolve(CipherSuiteRegistry registry, List<String> ciphers, boolean allowInsecure,
                                     TlsEngine engine, List<String> crypto, List<String> versions) {
        return resolve(registry, ciphers, allowInsecure, engine, crypto, versions, Map.of());
    }

    /**
     * Resolves a configuration.
     *
     * @param ciphers       {@code tls.ciphers}: provider and suite names
     * @param allowInsecure {@code tls.allowInsecure}
     * @param engine        {@code tls.engine}, or null for the first engine that runs every suite
     *                      (openssl, then jsse, then bc) and can run here
     * @param crypto        {@code tls.crypto}: {@code bc} or {@code jca} for every provider that has
     *                      that crypto engine, {@code PROVIDER:ENGINE} for one; a provider named by
     *                      neither runs on the first engine it lists of jca, bc
     * @param versions      {@code tls.versions}: {@code 1.2} and/or {@code 1.3}; a version is offered
     *                      when it is listed and a configured suite belongs to it
     * @param unavailable   the engines that cannot run in this JVM, each with the reason (a native
     *                      library that did not load): never picked for {@code auto}, and refused
     *                      when named
     * @throws IllegalArgumentException starting with the key of the setting at fault
     */
    public static TlsChoices resolve(CipherSuiteRegistry registry, List<String> ciphers, boolean allowInsecure,
                                     TlsEngine engine, List<String> crypto, List<String> versions,
                                     Map<TlsEngine, String> unavailable) {
        return resolve(registry, ciphers, allowInsecure, engine, crypto, versions, List.of(), unavailable);
    }

    /**
     * Resolves a configuration with key-exchange groups ({@code tls.groups}): as
     * {@link #resolve(CipherSuiteRegistry, List, boolean, TlsEngine, List, List, Map)}, and an engine
     * is picked, or accepted when named, only when it runs every group listed.
     *
     * @param groups {@code tls.groups}: group names, most preferred first; empty for the engine's defaults
     * @throws IllegalArgumentException starting with the key of the setting at fault
     */
    public static TlsChoices resolve(CipherSuiteRegistry registry, List<String> ciphers, boolean allowInsecure,
                                     TlsEngine engine, List<String> crypto, List<String> versions,
                                     List<String> groups, Map<TlsEngine, String> unavailable) {
        List<KeyExchangeGroup> kx = KeyExchangeGroup.parse(groups);
        if (engine != null && unavailable.containsKey(engine)) {
            throw new IllegalArgumentException("tls.engine: " + engine.configName() + " cannot run here: "
                    + unavailable.get(engine));
        }
        List<CipherSuiteId> suites;
        try {
            suites = registry.resolve(ciphers, allowInsecure);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("tls.ciphers: " + e.getMessage(), e);
        }
        Map<String, CipherSuiteProvider> providers = new LinkedHashMap<>();
        for (CipherSuiteId s : suites) {
            CipherSuiteProvider p = registry.providerOf(s).orElseThrow();
            providers.putIfAbsent(p.name(), p);
        }
        List<String> offered = versions(suites, versions);
        TlsEngine chosen = engine != null ? engine : pickEngine(providers.values(), unavailable.keySet(),
                narrowsTls13(suites, offered), kx);
        for (KeyExchangeGroup g : kx) {
            if (!g.runsOn(chosen)) {
                throw new IllegalArgumentException("tls.groups: " + g.configName() + " runs on the "
                        + names(g.tlsEngines()) + " TLS engine, not on " + chosen.configName()
                        + (engine == null ? ", and no one engine runs it and every suite of tls.ciphers" : " (tls.engine)")
                        + (g.hybrid() ? "; neither SunJSSE nor BoringSSL has ML-KEM here" : ""));
            }
        }
        if (chosen == TlsEngine.OPENSSL && narrowsTls13(suites, offered)) {
            throw new IllegalArgumentException("tls.engine: openssl cannot offer TLS 1.3 with only "
                    + suites.stream().filter(s -> isTls13(s.name())).map(CipherSuiteId::name).toList()
                    + ": BoringSSL always offers " + String.join(", ", BORINGSSL_TLS13)
                    + " (list both TLS_AES_* suites, leave out TLS 1.3 with tls.versions 1.2, or use jsse or bc)");
        }
        for (CipherSuiteProvider p : providers.values()) {
            if (!p.tlsEngines().contains(chosen)) {
                throw new IllegalArgumentException((engine == null ? "tls.ciphers: no one TLS engine runs "
                        + String.join(" and ", providers.keySet()) + ": " : "tls.engine: ")
                        + p.name() + " runs on the " + names(p.tlsEngines()) + " TLS engine, not on "
                        + chosen.configName() + (engine == null ? whyNot(p, unavailable) : ""));
            }
        }
        return new TlsChoices(suites, chosen, cryptoPerProvider(providers, crypto), registry.insecureProviders(suites),
                offered, kx);
    }

    /**
     * Whether TLS 1.3 is offered with fewer of its AES-GCM suites than BoringSSL offers: the openssl
     * engine cannot narrow its TLS 1.3 suites (BoringSSL has no switch for them), so it cannot run
     * such a list as given.
     */
    private static boolean narrowsTls13(List<CipherSuiteId> suites, List<String> offered) {
        if (!offered.contains("TLSv1.3")) {
            return false;
        }
        List<String> listed = suites.stream().map(CipherSuiteId::name).toList();
        return !listed.contains("TLS_AES_128_GCM_SHA256") || !listed.contains("TLS_AES_256_GCM_SHA384");
    }

    /** Why the engines of {@code p} that cannot run here were not picked; empty when none of them. */
    private static String whyNot(CipherSuiteProvider p, Map<TlsEngine, String> unavailable) {
        String why = p.tlsEngines().stream().filter(unavailable::containsKey).sorted()
                .map(e -> e.configName() + " cannot run here: " + unavailable.get(e)).collect(Collectors.joining("; "));
        return why.isEmpty() ? "" : " (" + why + ")";
    }

    private static List<String> versions(List<CipherSuiteId> suites, List<String> wanted) {
        List<String> out = new ArrayList<>();
        for (String v : List.of("1.3", "1.2")) {
            boolean listed = wanted.stream().anyMatch(w -> w.trim().equals(v) || w.trim().equalsIgnoreCase("TLSv" + v));
            boolean hasSuite = suites.stream().anyMatch(s -> isTls13(s.name()) == v.equals("1.3"));
            if (listed && hasSuite) {
                out.add("TLSv" + v);
            }
        }
        for (String w : wanted) {
            String t = w.trim();
            if (!t.equals("1.2") && !t.equals("1.3") && !t.equalsIgnoreCase("TLSv1.2") && !t.equalsIgnoreCase("TLSv1.3")) {
                throw new IllegalArgumentException("tls.versions: \"" + t + "\" is not a TLS version offered (expected 1.2 or 1.3)");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("tls.versions: none of " + wanted + " has a suite in tls.ciphers"
                    + " (TLS 1.3 suites are TLS_AES_* and TLS_CHACHA20_*; the others are TLS 1.2)");
        }
        return out;
    }

    /**
     * The suites of a {@code tls.domain}'s {@code ciphers}: those of {@link #suites} (in their order, the
     * server's preference) that the names given offer. A domain narrows the listener's suites and
     * never widens them, and it offers a suite of every TLS version the listener offers, because the
     * version is agreed before the server_name chooses the domain on some engines.
     *
     * @throws IllegalArgumentException naming the entry at fault
     */
    public List<CipherSuiteId> narrowedTo(CipherSuiteRegistry registry, List<String> names, boolean allowInsecure) {
        List<CipherSuiteId> out = new java.util.ArrayList<>();
        for (String n : names) {
            List<CipherSuiteId> named = registry.resolve(List.of(n), allowInsecure);
            if (named.stream().noneMatch(suites::contains)) {
                throw new IllegalArgumentException("\"" + n + "\" offers no suite of tls.ciphers on the "
                        + engine.configName() + " engine (a domain narrows the listener's suites: "
                        + suites.stream().map(CipherSuiteId::name).toList() + ")");
            }
        }
        List<CipherSuiteId> wanted = registry.resolve(names, allowInsecure);
        for (CipherSuiteId s : suites) {
            if (wanted.contains(s)) {
                out.add(s);
            }
        }
        if (offersTls13() && out.stream().noneMatch(s -> isTls13(s.name()))) {
            throw new IllegalArgumentException(names + " offers no TLS 1.3 suite, and the listener offers TLS 1.3"
                    + " (expected e.g. aes or chacha20, which include TLS 1.3 suites)");
        }
        if (offersTls12() && out.stream().allMatch(s -> isTls13(s.name()))) {
            throw new IllegalArgumentException(names + " offers no TLS 1.2 suite, and the listener offers TLS 1.2"
                    + " (expected a provider or a TLS_..._WITH_... suite)");
        }
        return List.copyOf(out);
    }

    /** The crypto engine of a suite's bulk cipher on the bc engine. */
    public CipherEngine cryptoOf(CipherSuiteProvider provider) {
        return crypto.get(provider.name());
    }

    /** Whether TLS 1.3 is offered. */
    public boolean offersTls13() {
        return versions.contains("TLSv1.3");
    }

    /** Whether TLS 1.2 is offered. */
    public boolean offersTls12() {
        return versions.contains("TLSv1.2");
    }

    /** TLS 1.3 suites are named without a key exchange: {@code TLS_AES_128_GCM_SHA256}. */
    public static boolean isTls13(String suiteName) {
        return !suiteName.contains("_WITH_");
    }

    /**
     * The first of openssl (native speed), jsse, bc that runs every provider's suites and can run
     * here and every key-exchange group listed; openssl not when it would offer TLS 1.3 suites the
     * list leaves out.
     */
    private static TlsEngine pickEngine(Iterable<CipherSuiteProvider> providers, Set<TlsEngine> unavailable,
                                        boolean narrowsTls13, List<KeyExchangeGroup> groups) {
        for (TlsEngine candidate : new TlsEngine[] {TlsEngine.OPENSSL, TlsEngine.JSSE, TlsEngine.BC}) {
            if (unavailable.contains(candidate) || candidate == TlsEngine.OPENSSL && narrowsTls13) {
                continue;
            }
            boolean all = groups.stream().allMatch(g -> g.runsOn(candidate));
            for (CipherSuiteProvider p : providers) {
                all &= p.tlsEngines().contains(candidate);
            }
            if (all) {
                return candidate;
            }
        }
        return TlsEngine.JSSE;
    }

    private static Map<String, CipherEngine> cryptoPerProvider(Map<String, CipherSuiteProvider> providers,
                                                                 List<String> entries) {
        CipherEngine everywhere = null;
        Map<String, CipherEngine> named = new LinkedHashMap<>();
        for (String raw : entries) {
            String e = raw.trim().toLowerCase(Locale.ROOT);
            int colon = e.indexOf(':');
            if (colon < 0) {
                everywhere = cipherEngine(e, raw);
            } else {
                String provider = e.substring(0, colon);
                if (!providers.containsKey(provider)) {
                    throw new IllegalArgumentException("tls.crypto: \"" + raw.trim() + "\" names " + provider
                            + ", which offers none of the suites in tls.ciphers (" + String.join(", ", providers.keySet()) + ")");
                }
                named.put(provider, cipherEngine(e.substring(colon + 1), raw));
            }
        }
        Map<String, CipherEngine> out = new LinkedHashMap<>();
        for (CipherSuiteProvider p : providers.values()) {
            CipherEngine c = named.get(p.name());
            if (c != null && !p.cipherEngines().contains(c)) {
                throw new IllegalArgumentException("tls.crypto: " + p.name() + " runs on " + names(p.cipherEngines())
                        + " crypto, not " + c.configName());
            }
            if (c == null) {
                c = everywhere != null && p.cipherEngines().contains(everywhere) ? everywhere
                        : p.cipherEngines().contains(CipherEngine.JCA) ? CipherEngine.JCA : CipherEngine.BC;
            }
            out.put(p.name(), c);
        }
        return out;
    }

    private static CipherEngine cipherEngine(String name, String raw) {
        for (CipherEngine c : CipherEngine.values()) {
            if (c.configName().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("tls.crypto: \"" + raw.trim()
                + "\" is not a crypto engine (expected bc, jca, or PROVIDER:bc|jca)");
    }

    private static String names(Iterable<? extends Enum<?>> values) {
        List<String> out = new ArrayList<>();
        for (Enum<?> v : values) {
            out.add(v.name().toLowerCase(Locale.ROOT));
        }
        out.sort(null);
        return String.join("/", out);
    }
}
