package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a {@link ServerConfig} from an optional configuration file and the command line: the
 * command line wins per key, and every key not given keeps its value from
 * {@link ServerConfig#defaults()}. The keys, their command-line options, descriptions and defaults
 * are one table, {@link Setting}; the file formats are those of {@link ConfigFileReader}.
 * Threading: immutable (static methods only; safe from any thread).
 */
public final class ConfigLoader {

    private static final Logger log = LoggerFactory.getLogger(ConfigLoader.class);

    private ConfigLoader() {
    }

    /** The table of settings, in help order. */
    public static List<Setting> settings() {
        return List.of(Setting.values());
    }

    /**
     * Builds the configuration.
     *
     * @param configFileOrNull a {@code .properties}, {@code .yaml} or {@code .yml} file, or
     *                         {@code null} for none
     * @param commandLine      raw command-line values by file key ({@code "tcp.idleTimeout"}); a
     *                         key present here replaces the file's value for that key
     * @throws ConfigException naming the key, the value and what was expected
     */
    public static ServerConfig load(Path configFileOrNull, Map<String, List<String>> commandLine)
            throws ConfigException {
        Objects.requireNonNull(commandLine, "commandLine");
        Map<Setting, List<String>> given = new EnumMap<>(Setting.class);
        if (configFileOrNull != null) {
            Map<String, List<String>> fromFile = ConfigFileReader.read(configFileOrNull);
            for (Map.Entry<String, List<String>> e : fromFile.entrySet()) {
                given.put(setting(e.getKey(), " in " + configFileOrNull), e.getValue());
            }
        }
        for (Map.Entry<String, List<String>> e : commandLine.entrySet()) {
            given.put(setting(e.getKey(), " on the command line"), List.copyOf(e.getValue()));
        }
        log.debug("configuration keys given: {}", given.keySet());
        // Presets go first, so that the keys of their group given too change them; routes go last:
        // their connection pattern defaults to the effective tcp.connection.
        List<Setting> order = new ArrayList<>(given.keySet());
        order.sort(Comparator.comparing(s -> s == Setting.TLS_PRESET || s == Setting.AUTH_PRESET ? 0
                : s == Setting.ROUTE || s == Setting.DEFAULT_ROUTE ? 2 : 1));
        ServerConfig.Builder builder = new ServerConfig.Builder();
        for (Setting s : order) {
            List<String> values = given.get(s);
            if (!s.repeatable() && values.size() != 1) {
                throw new ConfigException(s.key() + ": " + values.size() + " values given (expected exactly one)");
            }
            s.apply(builder, values);
        }
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    /** The effective configuration, one {@code key=value} line per setting, secrets masked. */
    public static String describe(ServerConfig c) {
        Objects.requireNonNull(c, "c");
        StringBuilder sb = new StringBuilder();
        for (Setting s : Setting.values()) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(s.key()).append('=').append(s.display(c));
        }
        return sb.toString();
    }

    private static Setting setting(String key, String where) throws ConfigException {
        for (Setting s : Setting.values()) {
            if (s.key().equals(key)) {
                return s;
            }
        }
        throw new ConfigException(key + ": unknown key" + where + ConfigFileReader.hint(key));
    }
}
