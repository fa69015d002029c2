package org.sipcrypt.server.tls;

import java.security.Security;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.sipcrypt.server.tls.spi.CipherSuiteId;

/**
 * The JDK's own refusal of suites the lab or an operator asks for: RC4 and 3DES, and on newer JDKs
 * (Debian's OpenJDK 17.0.21, for one) the TLS 1.2 suites with static RSA key exchange
 * ({@code TLS_RSA_*}), all listed in the security property {@code jdk.tls.disabledAlgorithms},
 * which SunJSSE reads once per JVM, when its TLS classes first load. Lifting RC4 and 3DES is for
 * the lab only (the server's {@code tls.allowInsecure}, the benchmarks and the test peers);
 * static RSA is lifted only for the suites a configuration names, and only the entries that
 * refuse those. Either works only before the JVM's first TLS use.
 * Threading: thread-safe (static, synchronized).
 */
public final class JdkInsecureSuites {

    private static final String DISABLED = "jdk.tls.disabledAlgorithms";

    private JdkInsecureSuites() {
    }

    /** Takes RC4 and 3DES out of {@code jdk.tls.disabledAlgorithms} for this JVM; idempotent. */
    public static synchronized void allow() {
        String before = Security.getProperty(DISABLED);
        if (before == null) {
            return;
        }
        Security.setProperty(DISABLED, without(before, e -> e.equals("RC4") || e.equals("3DES_EDE_CBC"), new ArrayList<>()));
    }

    /**
     * As {@link #allowStaticRsa(Collection)} for suites by id: each static-RSA suite among them under
     * its IANA name and, where it has one, its JSSE name.
     */
    public static List<String> allowStaticRsaSuites(Collection<CipherSuiteId> suites) {
        List<String> names = new ArrayList<>();
        for (CipherSuiteId s : suites) {
            if (staticRsa(s.name())) {
                names.add(s.name());
                if (s.jsseName() != null) {
                    names.add(s.jsseName());
                }
            }
        }
        return allowStaticRsa(names);
    }

    /** The IANA names of the static-RSA suites among {@code suites}, for the warning that names them. */
    public static List<String> staticRsaNames(Collection<CipherSuiteId> suites) {
        return suites.stream().map(CipherSuiteId::name).filter(JdkInsecureSuites::staticRsa).toList();
    }

    /**
     * Takes out of {@code jdk.tls.disabledAlgorithms}, for this JVM, the entries that refuse any of
     * {@code suites} with static RSA key exchange: the suite's own name, or a pattern such as
     * {@code TLS_RSA_*} that covers static-RSA suites only. Other suites and broader entries stay
     * refused. Idempotent: a second call finds nothing left to lift.
     *
     * @param suites suite names (IANA or JSSE spelling); those without static RSA key exchange are ignored
     * @return the entries taken out, empty when none refused these suites (nothing changed then)
     */
    public static synchronized List<String> allowStaticRsa(Collection<String> suites) {
        String before = Security.getProperty(DISABLED);
        if (before == null) {
            return List.of();
        }
        List<String> lifted = new ArrayList<>();
        String after = withoutStaticRsaRefusals(before, suites, lifted);
        if (!lifted.isEmpty()) {
            Security.setProperty(DISABLED, after);
        }
        return List.copyOf(lifted);
    }

    /**
     * {@code property} without its entries that refuse one of {@code suites} with static RSA key
     * exchange; those entries are added to {@code lifted}. Entries compare without case, as the JDK's.
     */
    static String withoutStaticRsaRefusals(String property, Collection<String> suites, List<String> lifted) {
        List<String> rsa = suites.stream().map(s -> s.toUpperCase(Locale.ROOT)).filter(JdkInsecureSuites::staticRsa).toList();
        return without(property, e -> refusesOneOf(e.toUpperCase(Locale.ROOT), rsa), lifted);
    }

    /** {@code property}'s entries, trimmed, without those {@code lift} takes, which go to {@code lifted}. */
    private static String without(String property, Predicate<String> lift, List<String> lifted) {
        List<String> kept = new ArrayList<>();
        for (String entry : property.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            (lift.test(e) ? lifted : kept).add(e);
        }
        return String.join(", ", kept);
    }

    /** Whether a suite has static RSA key exchange: {@code TLS_RSA_WITH_*}, in JSSE's spelling {@code SSL_RSA_WITH_*}. */
    public static boolean staticRsa(String suite) {
        String s = suite.toUpperCase(Locale.ROOT);
        return s.startsWith("TLS_RSA_WITH_") || s.startsWith("SSL_RSA_WITH_");
    }

    /**
     * Whether an entry (upper case) names one of the suites, or is a pattern ending in {@code *}
     * whose prefix covers static-RSA suites only ({@code TLS_RSA_*}, {@code TLS_RSA_WITH_AES_*})
     * and matches one of them; {@code TLS_*} and entries with constraints are never lifted.
     */
    private static boolean refusesOneOf(String entry, List<String> rsaSuites) {
        if (entry.contains(" ")) {
            return false;
        }
        if (entry.endsWith("*")) {
            String prefix = entry.substring(0, entry.length() - 1);
            boolean rsaOnly = prefix.startsWith("TLS_RSA_") || prefix.startsWith("SSL_RSA_");
            return rsaOnly && rsaSuites.stream().anyMatch(s -> s.startsWith(prefix));
        }
        return rsaSuites.contains(entry);
    }
}
