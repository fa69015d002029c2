package org.sipcrypt.server.war;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.config.Setting;

/**
 * The WAR's configuration, from the same keys as the jar's. The configuration file is named by the
 * first found of: the context parameter {@code sipcrypt.config}, the JVM system property
 * {@code sipcrypt.config}, the environment variable {@code SIPCRYPT_CONFIG}; none means the
 * defaults. Context parameters named like a setting ({@code listen}, {@code tcp.idleTimeout})
 * override the file, as options do for the jar; a repeatable setting takes its items
 * comma-separated. Other context parameters are not sipcrypt's and are left alone.
 * Threading: immutable (static methods only).
 */
public final class WebappSettings {

    /** The context parameter and system property naming the configuration file. */
    public static final String CONFIG_PARAMETER = "sipcrypt.config";
    /** The environment variable naming the configuration file. */
    public static final String CONFIG_ENVIRONMENT = "SIPCRYPT_CONFIG";

    private WebappSettings() {
    }

    /** The configuration file and where it was named, for the start-up log. Threading: immutable. */
    public record Source(Path file, String namedBy) {
    }

    /**
     * The configuration file, or null for none.
     *
     * @param contextParameter   the context's init parameters by name (null when absent)
     * @param systemProperty     system properties by name
     * @param environment        environment variables by name
     */
    public static Source configFile(Function<String, String> contextParameter, Function<String, String> systemProperty,
                                    Function<String, String> environment) {
        String[][] candidates = {
                {contextParameter.apply(CONFIG_PARAMETER), "context parameter " + CONFIG_PARAMETER},
                {systemProperty.apply(CONFIG_PARAMETER), "system property " + CONFIG_PARAMETER},
                {environment.apply(CONFIG_ENVIRONMENT), "environment variable " + CONFIG_ENVIRONMENT}};
        for (String[] c : candidates) {
            if (c[0] != null && !c[0].isBlank()) {
                return new Source(Path.of(c[0].trim()), c[1]);
            }
        }
        return null;
    }

    /**
     * The settings given as context parameters, by key; repeatable ones split at commas.
     *
     * @param names            every context parameter name
     * @param contextParameter the parameters' values by name
     */
    public static Map<String, List<String>> settings(Iterable<String> names, Function<String, String> contextParameter) {
        Map<String, Setting> byKey = new LinkedHashMap<>();
        for (Setting s : ConfigLoader.settings()) {
            byKey.put(s.key(), s);
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String name : names) {
            Setting s = byKey.get(name);
            if (s == null) {
                continue;
            }
            String value = Objects.requireNonNullElse(contextParameter.apply(name), "");
            out.put(name, s.repeatable()
                    ? Arrays.stream(value.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList()
                    : List.of(value));
        }
        return out;
    }

    /** Loads the configuration; fails naming the key as the jar does. */
    public static ServerConfig load(Source file, Map<String, List<String>> settings) throws ConfigException {
        return ConfigLoader.load(file != null ? file.file() : null, settings);
    }
}
