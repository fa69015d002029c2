package org.sipcrypt.server.tls;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 */
public record TlsChoices(List<CipherSuiteId> suites, TlsEngine engine, Map<String, CipherEngine> crypto,
                         List<String> insecure, List<String> versions) {

    public TlsChoices {
        suites = List.copyOf(suites);
        crypto = Map.copyOf(crypto);
        insecure = List.copyOf(insecure);
        versions = List.copyOf(versions);
    }

    /**
     * Resolves a configuration.
     *
     * @param ciphers       {@code tls.ciphers}: provider and suite names
     * @param allowInsecure {@code tls.allowInsecure}
     * @param engine        {@code tls.engine}, or null for the first engine that runs every suite
     *                      (jsse, then bc)
     * @param crypto        {@code tls.crypto}: {@code bc} or {@code jca} for every provider that has
     *                      that crypto engine, {@code PROVIDER:ENGINE} for one; a provider named by
     *                      neither runs on the first engine it lists of jca, bc
     * @param versions      {@code tls.versions}: {@code 1.2} and/or {@code 1.3}; a version is offered
     *                      when it is listed and a configured suite belongs to it
     * @throws IllegalArgumentException starting with the key of the setting at fault
     */
    public static TlsChoices resolve(CipherSuiteRegistry registry, List<String> ciphers, boolean allowInsecure,
                                     TlsEngine engine, List<String> crypto, List<String> versions) {
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
        TlsEngine chosen = engine != null ? engine : pickEngine(providers.values());
        for (CipherSuiteProvider p : providers.values()) {
            if (!p.tlsEngines().contains(chosen)) {
                throw new IllegalArgumentException((engine == null ? "tls.ciphers: no one TLS engine runs "
                        + String.join(" and ", providers.keySet()) + ": " : "tls.engine: ")
                        + p.name() + " runs on the " + names(p.tlsEngines()) + " TLS engine, not on "
                        + chosen.configName());
            }
        }
        return new TlsChoices(suites, chosen, cryptoPerProvider(providers, crypto), registry.insecureProviders(suites),
                versions(suites, versions));
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
                    + " (TLS 1.3 suites are TLS_AES_*; the others are TLS 1.2)");
        }
        return out;
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

    private static TlsEngine pickEngine(Iterable<CipherSuiteProvider> providers) {
        for (TlsEngine candidate : new TlsEngine[] {TlsEngine.JSSE, TlsEngine.BC}) {
            boolean all = true;
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
