package org.sipcrypt.server.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.sipcrypt.server.transport.ConfigNamed;

/**
 * The named presets of one settings record, as a setting such as {@code tls.preset} names them: each
 * preset fixes a few fields (its policy); the others keep their defaults or what other keys give.
 * Threading: immutable.
 *
 * @param <C> the settings record
 */
final class Presets<C> {

    private final Map<String, C> byName;
    private final Function<C, List<Object>> policy;

    /**
     * @param byName the presets by configuration name, in help order
     * @param policy the fields a preset fixes, for telling which preset a configuration is
     */
    Presets(Map<String, C> byName, Function<C, List<Object>> policy) {
        this.byName = new LinkedHashMap<>(Objects.requireNonNull(byName, "byName"));
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** The preset of that name; IllegalArgumentException naming the text and the names expected. */
    C parse(String text) {
        C preset = byName.get(text);
        if (preset == null) {
            throw new IllegalArgumentException("\"" + text + "\" is not a preset (expected " + names() + ")");
        }
        return preset;
    }

    /** The name of the preset whose policy {@code config} has, if any. */
    Optional<String> nameOf(C config) {
        List<Object> fields = policy.apply(config);
        return byName.entrySet().stream().filter(e -> policy.apply(e.getValue()).equals(fields))
                .map(Map.Entry::getKey).findFirst();
    }

    /** The names in help order: {@code [modern, compatible, lab-insecure]}. */
    List<String> nameList() {
        return List.copyOf(byName.keySet());
    }

    /** The names, for help and messages: {@code modern, compatible or lab-insecure}. */
    String names() {
        return ConfigNamed.alternatives(new ArrayList<>(byName.keySet()));
    }
}
