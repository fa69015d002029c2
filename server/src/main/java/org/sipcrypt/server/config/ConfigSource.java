package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a server's settings came from: the configuration file (or none) and the values given beside it
 * (the command line, or the WAR's context parameters), which replace the file's. What can be reloaded
 * at run time (the routes) is read again from here, the later values still winning over the file.
 * Threading: immutable.
 *
 * @param file        the configuration file, or null when the server was started without one
 * @param commandLine raw values by file key, as {@link ConfigLoader#load} takes them
 */
public record ConfigSource(Path file, Map<String, List<String>> commandLine) {

    /** Settings given only in code (tests, embedding): nothing to read again. */
    public static final ConfigSource NONE = new ConfigSource(null, Map.of());

    public ConfigSource {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        Objects.requireNonNull(commandLine, "commandLine").forEach((k, v) -> copy.put(k, List.copyOf(v)));
        commandLine = java.util.Collections.unmodifiableMap(copy);
    }

    /** Reads the file again with the same values beside it, and checks it all as at start. */
    public ServerConfig load() throws ConfigException {
        return ConfigLoader.load(file, commandLine);
    }
}
