package org.sipcrypt.server.tls;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsDomainConfig;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * The handshake settings of each {@code tls.domain} that has its own ({@code ciphers=},
 * {@code clientAuth=}), worked out once at start from the listener's choices: the suites a domain's
 * ClientHello is offered and whether its client is asked for a certificate. Names without an entry
 * here (the default, and domains with neither setting) get the listener's.
 * Threading: immutable.
 */
public final class DomainPolicies {

    /**
     * The settings of one domain.
     * Threading: immutable.
     *
     * @param suites     the suites offered, most preferred first (the listener's when the domain names none)
     * @param clientAuth whether a client certificate is asked for
     */
    public record Policy(List<CipherSuiteId> suites, TlsConfig.ClientAuth clientAuth) {

        public Policy {
            suites = List.copyOf(suites);
            Objects.requireNonNull(clientAuth, "clientAuth");
        }
    }

    private final Policy listener;
    private final Map<String, Policy> byDomain;

    private DomainPolicies(Policy listener, Map<String, Policy> byDomain) {
        this.listener = listener;
        this.byDomain = Map.copyOf(byDomain);
    }

    /**
     * Works out each domain's settings.
     *
     * @throws IllegalArgumentException naming the {@code tls.domain} entry at fault: a provider or suite
     *                                  that offers none of the listener's suites, a domain without a suite
     *                                  of a version the listener offers, a list the openssl engine cannot
     *                                  honour (one that leaves out a TLS 1.3 suite of the listener's), or a
     *                                  client certificate asked for without {@code tls.trust}
     */
    public static DomainPolicies of(TlsConfig t, TlsChoices choices, CipherSuiteRegistry registry) {
        Policy listener = new Policy(choices.suites(), t.clientAuth());
        Map<String, Policy> out = new HashMap<>();
        for (TlsDomainConfig d : t.domains()) {
            if (!d.ownsHandshakeSettings()) {
                continue;
            }
            List<CipherSuiteId> suites;
            try {
                suites = d.ciphers().isEmpty() ? choices.suites()
                        : choices.narrowedTo(registry, d.ciphers(), t.allowInsecure());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tls.domain " + d.name() + ": ciphers " + e.getMessage(), e);
            }
            if (choices.engine() == org.sipcrypt.server.tls.spi.TlsEngine.OPENSSL && !d.ciphers().isEmpty()) {
                // BoringSSL offers its own TLS 1.3 suites whatever the list: a domain cannot narrow them
                List<CipherSuiteId> tls13 = choices.suites().stream().filter(x -> TlsChoices.isTls13(x.name())).toList();
                if (!suites.containsAll(tls13)) {
                    throw new IllegalArgumentException("tls.domain " + d.name() + ": ciphers " + String.join("+",
                            d.ciphers()) + " narrows the TLS 1.3 suites, which the openssl engine cannot do (BoringSSL"
                            + " offers its own whatever the list; expected a list including "
                            + tls13.stream().map(CipherSuiteId::name).toList() + ", or tls.engine bc or jsse)");
                }
            }
            TlsConfig.ClientAuth auth = d.clientAuth() == null ? t.clientAuth() : d.clientAuth();
            if (auth != TlsConfig.ClientAuth.NONE && t.trust() == null) {
                throw new IllegalArgumentException("tls.domain " + d.name() + ": clientAuth=" + auth.configName()
                        + " needs tls.trust to check client certificates");
            }
            out.put(d.name(), new Policy(suites, auth));
        }
        return new DomainPolicies(listener, out);
    }

    /** The settings of the identity named {@code name} (a {@code tls.domain} or {@link ServerIdentities#DEFAULT_NAME}). */
    public Policy of(String name) {
        return byDomain.getOrDefault(name, listener);
    }

    /** The listener's own settings. */
    public Policy listener() {
        return listener;
    }

    /** The domains with settings of their own, by name. */
    public Map<String, Policy> domains() {
        return byDomain;
    }

    /** Whether some domain has settings of its own. */
    public boolean any() {
        return !byDomain.isEmpty();
    }
}
