package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One SIP domain served on the tls listener with its own certificate ({@code tls.domain}), chosen by
 * the server_name a client sends in its ClientHello (RFC 6066 §3):
 * {@code NAME;cert=FILE;key=FILE}. {@code NAME} is a host name, or a wildcard {@code *.example.com}
 * that matches exactly one label in its place (RFC 6125 §6.4.3); names compare without regard to case.
 * Threading: immutable.
 *
 * @param name a lower-case host name or {@code *.}-wildcard
 * @param cert PEM certificate chain of the domain, end entity first
 * @param key  PEM private key of {@code cert}
 */
public record TlsDomainConfig(String name, Path cert, Path key) {

    /** Host-name labels: letters, digits and inner hyphens, 1 to 63 characters each (RFC 1123 §2.1). */
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public TlsDomainConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cert, "cert");
        Objects.requireNonNull(key, "key");
        name = name.toLowerCase(Locale.ROOT);
        checkName(name);
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
                default -> throw new IllegalArgumentException("unknown parameter \"" + param
                        + "\" (expected cert and key; per-domain ciphers and clientAuth are not built)");
            }
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException("\"" + name + "\" needs cert=FILE and key=FILE (PEM)");
        }
        return new TlsDomainConfig(name, cert, key);
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
        return name + ";cert=" + cert + ";key=" + key;
    }
}
