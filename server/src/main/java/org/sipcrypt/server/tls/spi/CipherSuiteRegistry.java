package org.sipcrypt.server.tls.spi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The cipher-suite providers this JVM has, by name, and the resolution of a configured cipher list
 * ({@code tls.ciphers}: provider names such as {@code aes,camellia} and IANA or JSSE suite names,
 * in preference order) into suites. Insecure providers' suites are refused unless insecure suites
 * are explicitly allowed (the lab switch).
 * Threading: immutable once loaded.
 */
public final class CipherSuiteRegistry {

    private final Map<String, CipherSuiteProvider> providers;

    private CipherSuiteRegistry(Map<String, CipherSuiteProvider> providers) {
        this.providers = providers;
    }

    /** Every provider on the class path of {@code loader} (ServiceLoader). */
    public static CipherSuiteRegistry load(ClassLoader loader) {
        List<CipherSuiteProvider> found = new ArrayList<>();
        ServiceLoader.load(CipherSuiteProvider.class, loader).forEach(found::add);
        return of(found);
    }

    /** Every provider on the class path of this class. */
    public static CipherSuiteRegistry load() {
        return load(CipherSuiteRegistry.class.getClassLoader());
    }

    /** A registry of exactly these providers; names must be unique lower-case words and suites non-empty. */
    public static CipherSuiteRegistry of(List<CipherSuiteProvider> list) {
        Map<String, CipherSuiteProvider> byName = new LinkedHashMap<>();
        for (CipherSuiteProvider p : list) {
            String name = Objects.requireNonNull(p.name(), "provider name");
            if (!name.matches("[a-z0-9][a-z0-9-]{0,31}")) {
                throw new IllegalArgumentException("cipher-suite provider " + p.getClass().getName()
                        + ": bad name \"" + name + "\" (expected lower-case letters, digits, '-')");
            }
            if (p.suites().isEmpty() || p.tlsEngines().isEmpty()) {
                throw new IllegalArgumentException("cipher-suite provider " + name + " offers no suite or no engine");
            }
            CipherSuiteProvider before = byName.putIfAbsent(name, p);
            if (before != null) {
                throw new IllegalArgumentException("two cipher-suite providers are named \"" + name + "\": "
                        + before.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return new CipherSuiteRegistry(byName);
    }

    /** The providers, in discovery order. */
    public List<CipherSuiteProvider> providers() {
        return List.copyOf(providers.values());
    }

    /** The provider of that name. */
    public Optional<CipherSuiteProvider> provider(String name) {
        return Optional.ofNullable(providers.get(name.toLowerCase(Locale.ROOT)));
    }

    /** The provider offering {@code suite}, if any. */
    public Optional<CipherSuiteProvider> providerOf(CipherSuiteId suite) {
        return providers.values().stream().filter(p -> p.suites().contains(suite)).findFirst();
    }

    /**
     * The suites a cipher list names, in its order, each once.
     *
     * @param names         provider names (all their suites) and suite names (IANA or JSSE)
     * @param allowInsecure whether insecure providers' suites may be used (lab only)
     * @throws IllegalArgumentException naming an unknown entry, or an insecure one when not allowed
     */
    public List<CipherSuiteId> resolve(List<String> names, boolean allowInsecure) {
        Set<CipherSuiteId> out = new LinkedHashSet<>();
        for (String raw : names) {
            String n = raw.trim();
            CipherSuiteProvider p = providers.get(n.toLowerCase(Locale.ROOT));
            List<CipherSuiteId> suites;
            if (p != null) {
                suites = p.suites();
            } else {
                CipherSuiteId suite = null;
                for (CipherSuiteProvider candidate : providers.values()) {
                    for (CipherSuiteId s : candidate.suites()) {
                        if (suite == null && s.isNamed(n)) {
                            suite = s;
                            p = candidate;
                        }
                    }
                }
                if (suite == null) {
                    throw new IllegalArgumentException("unknown cipher suite or provider \"" + n
                            + "\" (expected a provider: " + String.join(", ", providers.keySet())
                            + ", or a suite name such as TLS_RSA_WITH_AES_128_CBC_SHA)");
                }
                suites = List.of(suite);
            }
            if (p.insecure() && !allowInsecure) {
                throw new IllegalArgumentException("\"" + n + "\" is insecure (" + p.name()
                        + "): allowed only with the lab switch tls.allowInsecure (--tls-allow-insecure)");
            }
            out.addAll(suites);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no cipher suite named");
        }
        return List.copyOf(out);
    }

    /** The names of the insecure providers among those offering {@code suites}, for the lab warning. */
    public List<String> insecureProviders(List<CipherSuiteId> suites) {
        Set<String> out = new LinkedHashSet<>();
        for (CipherSuiteId s : suites) {
            providerOf(s).filter(CipherSuiteProvider::insecure).ifPresent(p -> out.add(p.name()));
        }
        return List.copyOf(out);
    }
}
