package org.sipcrypt.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads a {@code .properties} or YAML configuration file into raw text values by dotted key;
 * values are checked later, by the settings table of {@link ConfigLoader}.
 *
 * <p>File formats, chosen by extension:
 * <ul>
 *   <li>{@code .yaml} / {@code .yml}: nested maps are flattened to dotted keys, so
 *       {@code tcp: {idleTimeout: 5m}} and {@code tcp.idleTimeout: 5m} are the same; repeatable
 *       keys take a YAML sequence (or one plain value). As {@code db} is itself a value, its
 *       siblings are written dotted beside it: {@code db: jdbc:...} and {@code db.user: sip}.
 *       All values are read as text, so {@code recordRoute: off} means off and {@code 0x10} is
 *       not a number.</li>
 *   <li>{@code .properties}: one {@code key=value} per line with the keys as they are; a
 *       repeatable key takes its items comma-separated on one line, e.g.
 *       {@code listen=udp:192.0.2.10:5060,tcp:192.0.2.10:5060}; an empty value is an empty list. The
 *       {@code listen.0}, {@code listen.1} form is not supported.</li>
 * </ul>
 * Durations are {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h} or a bare number of seconds;
 * booleans are {@code true/false/on/off/yes/no}. List items are named by their zero-based index in
 * messages ({@code listen[1]}). Giving a repeatable key replaces its default list.
 * Threading: immutable (static methods only).
 */
final class ConfigFileReader {

    private static final Logger log = LoggerFactory.getLogger(ConfigFileReader.class);

    private ConfigFileReader() {
    }

    static Map<String, List<String>> read(Path file) throws ConfigException {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean yaml = name.endsWith(".yaml") || name.endsWith(".yml");
        if (!yaml && !name.endsWith(".properties")) {
            throw new ConfigException("config file " + file
                    + ": unknown format (expected a name ending in .properties, .yaml or .yml)");
        }
        if (!Files.exists(file)) {
            throw new ConfigException("config file " + file + ": not found (expected a readable file)");
        }
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("config file " + file + ": not a regular file (expected a readable file)");
        }
        log.debug("reading configuration from {}", file);
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return yaml ? readYaml(file, reader) : readProperties(reader);
        } catch (IOException e) {
            throw new ConfigException("config file " + file + ": cannot be read (" + e + ")", e);
        } catch (YAMLException e) {
            throw new ConfigException("config file " + file + ": not valid YAML (" + e.getMessage() + ")", e);
        }
    }

    private static Map<String, List<String>> readProperties(Reader reader) throws IOException {
        Properties p = new Properties();
        p.load(reader);
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String key : p.stringPropertyNames()) {
            String value = p.getProperty(key);
            boolean repeatable = ConfigLoader.settings().stream().anyMatch(s -> s.repeatable() && s.key().equals(key));
            if (!repeatable) {
                out.put(key, List.of(value));
            } else if (value.isBlank()) {
                out.put(key, List.of());
            } else {
                out.put(key, List.of(value.split(",", -1)));
            }
        }
        return out;
    }

    private static Map<String, List<String>> readYaml(Path file, Reader reader) throws ConfigException {
        // compose, not load: every scalar stays text, so "off", "0x10" or "1:30" are not reinterpreted
        Node root = new Yaml(new LoaderOptions()).compose(reader);
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (root == null) {
            return out;
        }
        if (!(root instanceof MappingNode)) {
            throw new ConfigException("config file " + file + ": expected a map of keys at the top");
        }
        flatten("", root, out, file);
        return out;
    }

    private static void flatten(String prefix, Node node, Map<String, List<String>> out, Path file)
            throws ConfigException {
        if (node instanceof MappingNode map) {
            for (NodeTuple t : map.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode k)) {
                    throw new ConfigException(prefix + ": keys in " + file + " must be plain text");
                }
                flatten(prefix.isEmpty() ? k.getValue() : prefix + "." + k.getValue(), t.getValueNode(), out, file);
            }
            return;
        }
        List<String> values = new ArrayList<>();
        if (node instanceof SequenceNode seq) {
            for (int i = 0; i < seq.getValue().size(); i++) {
                if (!(seq.getValue().get(i) instanceof ScalarNode item)) {
                    throw new ConfigException(prefix + "[" + i + "]: expected a plain value in " + file);
                }
                values.add(item.getValue());
            }
        } else if (node instanceof ScalarNode scalar) {
            values.add(scalar.getValue());
        } else {
            throw new ConfigException(prefix + ": expected a value or a list in " + file);
        }
        if (out.put(prefix, values) != null) {
            throw new ConfigException(prefix + ": given twice in " + file + " (expected once)");
        }
    }

    /** A parenthesised hint for an unknown key: the closest known key, or where the keys are listed. */
    static String hint(String unknown) {
        int dot = unknown.lastIndexOf('.');
        if (dot > 0 && unknown.substring(dot + 1).chars().allMatch(Character::isDigit)) {
            String base = unknown.substring(0, dot);
            if (ConfigLoader.settings().stream().anyMatch(s -> s.repeatable() && s.key().equals(base))) {
                return " (list items are comma-separated: " + base + "=a,b)";
            }
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Setting s : Setting.values()) {
            int d = normalized(s.key()).equals(normalized(unknown)) ? 0
                    : distance(s.key().toLowerCase(Locale.ROOT), unknown.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = s.key();
                bestDistance = d;
            }
        }
        return bestDistance <= 3 ? " (did you mean " + best + "?)" : " (see --help for the keys)";
    }

    private static String normalized(String key) {
        return key.replaceAll("[-._]", "").toLowerCase(Locale.ROOT);
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
