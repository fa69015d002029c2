package org.sipcrypt.lab.runner;

import static java.util.Map.entry;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.sipcrypt.lab.scenario.Leg;

/**
 * Kamailio's TLS for one compared cipher under the comparison's {@link Handshake}, as Debian's
 * Kamailio 5.6 runs it on OpenSSL 3.0: its tls module's {@code tls.cfg} (the method, the TLS 1.2
 * suite, the certificate), the OpenSSL configuration the process reads through {@code OPENSSL_CONF}
 * for what that module has no setting for, and its session cache.
 * <ul>
 * <li>TLS 1.2: {@code method = TLSv1.2} and the suite's OpenSSL name in {@code cipher_list}.</li>
 * <li>TLS 1.3: the module's methods stop at {@code TLSv1.2+} (no {@code TLSv1.3}) and it never sets
 * TLS 1.3 suites, which OpenSSL keeps apart from {@code cipher_list}; so {@code TLSv1.2+}, and the
 * OpenSSL configuration's {@code Protocol = -ALL, TLSv1.3} (version-disabling options, which the
 * module's own minimum version does not lift) and {@code Ciphersuites} with the one suite. OpenSSL's
 * servers send two TLS 1.3 session tickets after every handshake by default; {@code NumTickets = 0}
 * stops them unless the generator resumes by them ({@code --resumption psk}; RFC 8446 §4.6.1
 * makes tickets optional).</li>
 * <li>An ECDHE group: {@code Groups} with that one group, for the server and for its client
 * connections to the UAS (which also send their TLS 1.3 key share for it).</li>
 * <li>{@code --resumption session-id}: the module's {@code session_cache} on and
 * {@code send_close_notify} on (OpenSSL drops a session from its cache when the connection ends
 * without its close_notify sent). Kamailio keeps an OpenSSL context per process, so a session
 * resumes on the TCP worker process that made it only: with one worker always, with several as
 * Kamailio happens to hand the connections to them (the report's resumption % says). Without it,
 * Kamailio grants no session by ID.</li>
 * <li>{@code --resumption ticket} and {@code psk}: OpenSSL's servers issue TLS 1.2 tickets (RFC 5077)
 * and TLS 1.3 tickets by default, under keys of their own context: so again a ticket resumes on
 * the worker process that issued it only. {@code send_close_notify} on, as for session IDs.</li>
 * <li>{@code seed}: OpenSSL 3's legacy provider and {@code @SECLEVEL=0}.</li>
 * </ul>
 * Not run: the ML-KEM hybrids (OpenSSL 3.0 has no ML-KEM), 3DES and RC4 (Debian's OpenSSL 3 has
 * no such TLS suites).
 * Threading: immutable.
 *
 * @param cipher    the compared cipher ({@code aes}) or suite name
 * @param suite     the suite it runs under the handshake, by its RFC name
 * @param handshake the comparison's handshake
 */
record KamailioTls(String cipher, String suite, Handshake handshake) {

    /**
     * OpenSSL's names of the suites the lab's providers run that Debian's OpenSSL 3 has, by RFC name;
     * TLS 1.3 suites keep their RFC names.
     */
    static final Map<String, String> OPENSSL_SUITES = Map.ofEntries(
            entry("TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"),
            entry("TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"),
            entry("TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"),
            entry("TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"),
            entry("TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", "CAMELLIA128-SHA"),
            entry("TLS_RSA_WITH_CAMELLIA_256_CBC_SHA", "CAMELLIA256-SHA"),
            entry("TLS_RSA_WITH_SEED_CBC_SHA", "SEED-SHA"),
            entry("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"),
            entry("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"),
            entry("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"),
            entry("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"),
            entry("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"),
            entry("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"),
            entry("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"),
            entry("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"),
            entry("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"),
            entry("TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256", "ECDHE-ECDSA-CAMELLIA128-SHA256"),
            entry("TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384", "ECDHE-ECDSA-CAMELLIA256-SHA384"),
            entry("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"),
            entry("TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),
            entry("TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"),
            entry("TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256"));

    private static final Set<String> NO_SUCH_SUITE = Set.of("3des", "rc4");

    KamailioTls {
        if (!OPENSSL_SUITES.containsKey(suite)) {
            throw new IllegalArgumentException("suite: no OpenSSL name is known for " + suite);
        }
    }

    /**
     * Kamailio's TLS for a cipher under a handshake.
     *
     * @throws IllegalArgumentException when Kamailio cannot run it ({@link #unsupported})
     */
    static KamailioTls of(String cipher, Handshake handshake) {
        String why = refusal(handshake);
        if (why == null) {
            why = unsupported(cipher, handshake);
        }
        if (why != null) {
            throw new IllegalArgumentException(cipher + " on kamailio: " + why);
        }
        return new KamailioTls(cipher, handshake.suite(cipher), handshake);
    }

    /** Why Kamailio here cannot run this handshake at all, or null when it can. */
    static String refusal(Handshake handshake) {
        if (handshake.group() != null && handshake.group().hybrid()) {
            return "--kx " + handshake.keyExchange().configName() + ": Debian's Kamailio 5.6 runs on OpenSSL 3.0,"
                    + " which has no ML-KEM key exchange (the hybrids came with OpenSSL 3.5)";
        }
        return null;
    }

    /** Why Kamailio here cannot run this cipher under the handshake, or null when it can. */
    static String unsupported(String cipher, Handshake handshake) {
        String c = Leg.cipherOf(cipher);
        if (NO_SUCH_SUITE.contains(c)) {
            return "Debian's Kamailio uses OpenSSL 3, which has no " + c.toUpperCase(Locale.ROOT) + " TLS suites";
        }
        String suite;
        try {
            suite = handshake.suite(c);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (!OPENSSL_SUITES.containsKey(suite)) {
            return "no OpenSSL suite is known for " + suite + " (cipher " + c + ")";
        }
        return null;
    }

    /** Whether the handshake is TLS 1.3. */
    boolean tls13() {
        return "1.3".equals(handshake.version());
    }

    /** The suite's OpenSSL name. */
    String opensslSuite() {
        return OPENSSL_SUITES.get(suite);
    }

    /** Whether the suite needs OpenSSL 3's legacy provider (SEED). */
    boolean legacy() {
        return suite.contains("_SEED_");
    }

    /**
     * The tls module's configuration file: a server and a client profile (its connections to the
     * UAS) with the same method and suite, the server's certificate from {@code certs} (by absolute path).
     */
    String tlsCfg(Path certs) {
        // Kamailio reads a relative path from its configuration file's directory
        certs = certs.toAbsolutePath();
        StringBuilder b = new StringBuilder();
        b.append("# written by the sipcrypt lab: ").append(cipher).append(" under ").append(handshake.describe())
                .append('\n');
        if (tls13()) {
            b.append("# TLS 1.3 only: this tls module has no TLSv1.3 method, OPENSSL_CONF holds it to TLS 1.3\n");
        }
        for (String profile : List.of("server", "client")) {
            b.append('[').append(profile).append(":default]\n");
            b.append("method = ").append(tls13() ? "TLSv1.2+" : "TLSv1.2").append('\n');
            b.append("verify_certificate = no\nrequire_certificate = no\n");
            if (profile.equals("server")) {
                b.append("private_key = ").append(certs.resolve("server-key.pem")).append('\n');
                b.append("certificate = ").append(certs.resolve("server.pem")).append('\n');
                b.append("ca_list = ").append(certs.resolve("ca.pem")).append('\n');
            }
            if (!tls13()) {
                // SEED is allowed by OpenSSL only at security level 0
                b.append("cipher_list = ").append(opensslSuite()).append(legacy() ? ":@SECLEVEL=0" : "").append('\n');
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** The OpenSSL configuration Kamailio's process reads ({@code OPENSSL_CONF}), in place of the machine's. */
    String opensslCnf() {
        List<String> ssl = new ArrayList<>();
        if (handshake.group() != null) {
            ssl.add("Groups = " + handshake.group().openSslName());
        }
        if (tls13()) {
            ssl.add("Protocol = -ALL, TLSv1.3");
            ssl.add("Ciphersuites = " + opensslSuite());
            if (handshake.resumption() != Handshake.Resumption.PSK) {
                ssl.add("NumTickets = 0");
            }
        }
        StringBuilder b = new StringBuilder();
        b.append("# written by the sipcrypt lab for Kamailio: ").append(cipher).append(" under ")
                .append(handshake.describe()).append('\n');
        b.append("openssl_conf = openssl_init\n\n[openssl_init]\n");
        if (!ssl.isEmpty()) {
            b.append("ssl_conf = ssl_sect\n");
        }
        if (legacy()) {
            b.append("providers = provider_sect\n");
        }
        if (!ssl.isEmpty()) {
            b.append("\n[ssl_sect]\nsystem_default = system_default_sect\n\n[system_default_sect]\n");
            ssl.forEach(line -> b.append(line).append('\n'));
        }
        if (legacy()) {
            b.append("""

                    [provider_sect]
                    default = default_sect
                    legacy = legacy_sect

                    [default_sect]
                    activate = 1

                    [legacy_sect]
                    activate = 1
                    """);
        }
        return b.toString();
    }

    /**
     * The tls module's parameters beside its configuration file: the session cache for
     * {@code session-id}; close_notify sent for every resumption (OpenSSL forgets a session whose
     * connection ended without one).
     */
    List<String> moduleParameters() {
        if (handshake.resumption() == Handshake.Resumption.SESSION_ID) {
            return List.of("modparam(\"tls\", \"session_cache\", 1)", "modparam(\"tls\", \"send_close_notify\", 1)");
        }
        if (handshake.resumesByTicket()) {
            return List.of("modparam(\"tls\", \"send_close_notify\", 1)");
        }
        return List.of();
    }
}
