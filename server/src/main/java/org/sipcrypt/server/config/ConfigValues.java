package org.sipcrypt.server.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and formats the values of configuration settings for {@link ConfigLoader}. Every failure is
 * a {@link ConfigException} whose message names the key, the value and what was expected.
 * Threading: immutable (static methods only).
 */
final class ConfigValues {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");
    private static final Pattern DOMAIN_NAME = Pattern.compile("[a-z0-9]([a-z0-9.-]*[a-z0-9])?");

    /** Parses one text; throws IllegalArgumentException naming the text and what was expected. */
    @FunctionalInterface
    interface Parser<T> {
        T parse(String text);
    }

    private ConfigValues() {
    }

    static String one(String key, List<String> values) {
        assert values.size() == 1 : key;
        return values.get(0);
    }

    /** {@code auto} (null), {@code bc} or {@code jsse}. */
    static org.sipcrypt.server.tls.spi.TlsEngine tlsEngine(String key, String text) throws ConfigException {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("auto")) {
            return null;
        }
        for (org.sipcrypt.server.tls.spi.TlsEngine e : org.sipcrypt.server.tls.spi.TlsEngine.values()) {
            if (e.configName().equals(t)) {
                return e;
            }
        }
        throw new ConfigException(key + ": \"" + text.trim() + "\" is not a TLS engine (expected auto, bc, jsse or openssl)");
    }

    static <T> T parsed(String key, String text, Parser<T> parser) throws ConfigException {
        try {
            return parser.parse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage(), e);
        }
    }

    static <T> List<T> items(String key, List<String> texts, Parser<T> parser) throws ConfigException {
        List<T> out = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            out.add(parsed(key + "[" + i + "]", texts.get(i), parser));
        }
        return out;
    }

    static String domainName(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (!DOMAIN_NAME.matcher(lower).matches()) {
            throw new IllegalArgumentException("\"" + text + "\" is not a domain name (expected e.g. example.com)");
        }
        return lower;
    }

    /** A SIP method name to challenge; ACK and CANCEL cannot be (RFC 3261 §22.1). */
    static String challengedMethod(String text) {
        String m = text.toUpperCase(Locale.ROOT);
        if (m.equals(AuthConfig.ALL_METHODS)) {
            return m;
        }
        if (!m.matches("[A-Z]{1,32}")) {
            throw new IllegalArgumentException("\"" + text + "\" is not a SIP method (expected e.g. REGISTER, INVITE, or * for all)");
        }
        if (m.equals("ACK") || m.equals("CANCEL")) {
            throw new IllegalArgumentException("\"" + text + "\" cannot be challenged (RFC 3261 22.1: ACK and CANCEL"
                    + " are never challenged)");
        }
        return m;
    }

    /** A digest algorithm by its configuration name: {@code sha-256} or {@code md5}. */
    static DigestAlgorithm digestAlgorithm(String text) {
        for (var a : DigestAlgorithm.values()) {
            if (a.configName().equalsIgnoreCase(text)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown digest algorithm \"" + text + "\" (expected sha-256 or md5)");
    }

    static String nonBlank(String key, String text, String expected) throws ConfigException {
        if (text.isBlank()) {
            throw new ConfigException(key + ": \"" + text + "\" is empty (expected " + expected + ")");
        }
        return text.trim();
    }

    static Path path(String key, String text) throws ConfigException {
        try {
            return Path.of(nonBlank(key, text, "a directory"));
        } catch (InvalidPathException e) {
            throw new ConfigException(key + ": \"" + text + "\" is not a path (" + e.getReason() + ")", e);
        }
    }

    static String jdbcUrl(String key, String text) throws ConfigException {
        String url = text.trim();
        if (!url.startsWith("jdbc:")) {
            throw new ConfigException(key + ": \"" + url + "\" is not a JDBC URL (expected e.g. "
                    + "jdbc:postgresql://localhost/sipcrypt, or leave " + key + " unset for embedded H2)");
        }
        return url;
    }

    static int integer(String key, String text, int min, int max) throws ConfigException {
        String t = text.trim();
        String range = "(expected a whole number from " + min + " to " + max + ")";
        long value;
        try {
            value = Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new ConfigException(key + ": \"" + t + "\" is not a whole number " + range, e);
        }
        if (value < min || value > max) {
            throw new ConfigException(key + ": \"" + t + "\" is out of range " + range);
        }
        return (int) value;
    }

    static boolean bool(String key, String text) throws ConfigException {
        switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes":
                return true;
            case "false", "off", "no":
                return false;
            default:
                throw new ConfigException(key + ": \"" + text.trim()
                        + "\" is not a boolean (expected true, false, on, off, yes or no)");
        }
    }

    static Duration duration(String key, String text, boolean zeroAllowed) throws ConfigException {
        String t = text.trim();
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new ConfigException(key + ": \"" + t
                    + "\" is not a duration (expected e.g. 300s, 5m, 1h, 250ms; a bare number means seconds)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        Duration d = switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
        if (d.isZero() && !zeroAllowed) {
            throw new ConfigException(key + ": \"" + t + "\" is out of range (expected a duration above zero)");
        }
        return d;
    }

    /** SIP Expires values count whole seconds (RFC 3261 §20.19). */
    static Duration expires(String key, String text) throws ConfigException {
        Duration d = duration(key, text, false);
        if (d.toMillisPart() != 0) {
            throw new ConfigException(key + ": \"" + text.trim()
                    + "\" is not whole seconds (expected e.g. 60s, 5m, 1h: SIP Expires counts seconds)");
        }
        return d;
    }

    /** {@code HOST:PORT} of the HTTP listener, or {@code off} for none. */
    static HostPort httpListen(String key, String text) throws ConfigException {
        String t = text.trim();
        if (t.equalsIgnoreCase("off")) {
            return null;
        }
        HostPort hp;
        try {
            hp = HostPort.parse(t, -1);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage() + " (expected HOST:PORT, e.g. 127.0.0.1:9090, or off)", e);
        }
        if (hp.port() < 0) {
            throw new ConfigException(key + ": \"" + t + "\" has no port (expected HOST:PORT, e.g. 127.0.0.1:9090, or off)");
        }
        return hp;
    }

    /** The shortest exact form: {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        } else if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        } else if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
