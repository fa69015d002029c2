package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One SIP domain served on the tls listener with its own certificate ({@code tls.domain}), chosen by
 * the server_name a client sends in its ClientHello (RFC 6066 §3):
 * {@code NAME;cert=FILE;key=FILE;ciphers=aes+chacha20;clientAuth=need}. {@code NAME} is a host name,
 * or a wildcard {@code *.example.com} that matches exactly one label in its place (RFC 6125 §6.4.3);
 * names compare without regard to case. {@code ciphers} (providers or suite names joined with
 * {@code +}, as in {@code tls.peer}; commas separate entries) narrows the listener's {@code tls.ciphers}
 * for this domain, {@code clientAuth} replaces the listener's {@code tls.clientAuth}; either left out
 * means the listener's.
 * Threading: immutable.
 *
 * @param name       a lower-case host name or {@code *.}-wildcard
 * @param cert       PEM certificate chain of the domain, end entity first
 * @param key        PEM private key of {@code cert}
 * @param ciphers    providers or suite names, most preferred first; empty for the listener's
 * @param clientAuth the domain's client-certificate policy; null for the listener's
 */
public record TlsDomainConfig(String name, Path cert, Path key, List<String> ciphers, TlsConfig.ClientAuth clientAuth) {

    /** Host-name labels: letters, digits and inner hyphens, 1 to 63 characters each (RFC 1123 §2.1). */
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public TlsDomainConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cert, "cert");
        Objects.requireNonNull(key, "key");
        name = name.toLowerCase(Locale.ROOT);
        checkName(name);
        ciphers = List.copyOf(Objects.requireNonNull(ciphers, "ciphers"));
        for (String c : ciphers) {
            if (c.isBlank() || c.indexOf('+') >= 0 || c.indexOf(';') >= 0 || c.indexOf(',') >= 0
                    || !c.equals(c.trim())) {
                throw new IllegalArgumentException("\"" + name + "\": \"" + c + "\" is not a cipher provider or suite name");
            }
        }
    }

    /** An entry with the listener's suites and client-certificate policy. */
    public TlsDomainConfig(String name, Path cert, Path key) {
        this(name, cert, key, List.of(), null);
    }

    /** Whether this domain has suites or a client-certificate policy of its own. */
    public boolean ownsHandshakeSettings() {
        return !ciphers.isEmpty() || clientAuth != null;
    }

    /** Whether the name is a wildcard ({@code *.example.com}). */
    public boolean wildcard() {
        return name.startsWith("*.");
    }

    /** Parses one entry; a bad one names the part at fault. */
    public static TlsDomainConfig parse(String text) {
        String[] parts = text.trim().split(";", -1);
        String name = parts[0].trim();
        Path cert = null;
        Path key = null;
        List<String> ciphers = List.of();
        TlsConfig.ClientAuth clientAuth = null;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("\"" + p + "\" is not NAME=VALUE");
            }
            String param = p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = p.substring(eq + 1).trim();
            if (value.isEmpty()) {
                throw new IllegalArgumentException(param + " is empty");
            }
            switch (param) {
                case "cert" -> cert = Path.of(value);
                case "key" -> key = Path.of(value);
                case "ciphers" -> ciphers = list(value);
                case "clientauth" -> clientAuth = TlsConfig.ClientAuth.parse(value);
                default -> throw new IllegalArgumentException("unknown parameter \"" + param
                        + "\" (expected cert, key, ciphers or clientAuth)");
            }
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException("\"" + name + "\" needs cert=FILE and key=FILE (PEM)");
        }
        return new TlsDomainConfig(name, cert, key, ciphers, clientAuth);
    }

    /** A {@code +}-joined list, as inside a {@code tls.peer} entry. */
    private static List<String> list(String value) {
        List<String> out = new ArrayList<>(Arrays.asList(value.split("\\+", -1)));
        out.replaceAll(String::trim);
        for (String s : out) {
            if (s.isEmpty()) {
                throw new IllegalArgumentException("ciphers \"" + value + "\" has an empty name (expected e.g. aes+chacha20)");
            }
        }
        return List.copyOf(out);
    }

    private static void checkName(String name) {
        String host = name.startsWith("*.") ? name.substring(2) : name;
        if (host.isEmpty() || host.length() > 253 || host.endsWith(".")) {
            throw new IllegalArgumentException("\"" + name + "\" is not a host name (expected e.g. sip.example.com"
                    + " or *.example.com)");
        }
        String[] labels = host.split("\\.", -1);
        for (String l : labels) {
            if (!LABEL.matcher(l).matches()) {
                throw new IllegalArgumentException("\"" + name + "\" is not a host name (label \"" + l
                        + "\"; expected e.g. sip.example.com or *.example.com)");
            }
        }
        if (name.startsWith("*.") && labels.length < 2) {
            throw new IllegalArgumentException("\"" + name + "\": a wildcard needs at least two labels after it"
                    + " (expected e.g. *.example.com)");
        }
    }

    @Override
    public String toString() {
        return name + ";cert=" + cert + ";key=" + key + (ciphers.isEmpty() ? "" : ";ciphers=" + String.join("+", ciphers))
                + (clientAuth == null ? "" : ";clientAuth=" + clientAuth.configName());
    }
}
