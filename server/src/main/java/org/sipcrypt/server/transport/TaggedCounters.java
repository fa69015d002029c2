package org.sipcrypt.server.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Micrometer counters registered once per name and tags and then kept, so that counting at packet
 * rate neither builds a meter nor searches the registry; what {@link TransportCounters} and the SIP
 * layer's counters both count through.
 * Threading: thread-safe; never blocks.
 */
public final class TaggedCounters {

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

    public TaggedCounters(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** Adds one to the untagged counter {@code name}. */
    public void increment(String name) {
        counters.computeIfAbsent(name, k -> Counter.builder(name).register(registry)).increment();
    }

    /** Adds one to {@code name{tagKey=tagValue}}, the value lower-cased ({@code INVITE} counts as {@code invite}). */
    public void increment(String name, String tagKey, String tagValue) {
        // by name and key, then by the value as given: no key string is built per count
        ConcurrentMap<String, Counter> byValue = oneTag.get(name, tagKey);
        Counter c = byValue.get(tagValue);
        if (c == null) {
            String tag = tagValue.toLowerCase(Locale.ROOT);
            c = counters.computeIfAbsent(name + '\u0000' + tagKey + '\u0000' + tag,
                    k -> Counter.builder(name).tag(tagKey, tag).register(registry));
            if (byValue.size() < MAX_SPELLINGS) {
                byValue.putIfAbsent(tagValue, c);
            }
        }
        c.increment();
    }

    /** Spellings of tag values kept per name and key (a value from input may take many). */
    private static final int MAX_SPELLINGS = 256;

    /** The counters of one-tag names, by name and key, then by the tag value as given. */
    private final OneTag oneTag = new OneTag();

    /**
     * Maps of tag value to counter by name and tag key; names and keys are the code's constants,
     * so there are as many as the code has counters.
     * Threading: thread-safe.
     */
    private static final class OneTag {
        private final ConcurrentMap<String, ConcurrentMap<String, ConcurrentMap<String, Counter>>> byName =
                new ConcurrentHashMap<>();

        ConcurrentMap<String, Counter> get(String name, String tagKey) {
            ConcurrentMap<String, ConcurrentMap<String, Counter>> byKey = byName.get(name);
            if (byKey == null) {
                byKey = byName.computeIfAbsent(name, k -> new ConcurrentHashMap<>());
            }
            ConcurrentMap<String, Counter> byValue = byKey.get(tagKey);
            return byValue != null ? byValue : byKey.computeIfAbsent(tagKey, k -> new ConcurrentHashMap<>());
        }
    }

    /** Adds one to {@code name{key1=value1,key2=value2}}, the values as given. */
    public void increment(String name, String key1, String value1, String key2, String value2) {
        counters.computeIfAbsent(name + '\u0000' + key1 + '\u0000' + value1 + '\u0000' + key2 + '\u0000' + value2,
                k -> Counter.builder(name).tag(key1, value1).tag(key2, value2).register(registry)).increment();
    }

    /**
     * Adds one to {@code name{key1=value1,...}} with three or more tags, given as key, value, key, value...
     * (the values as given); one or two tags take the overloads above, which build no array.
     */
    public void increment(String name, String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException(name + ": a value for every tag key");
        }
        counters.computeIfAbsent(name + '\u0000' + String.join("\u0000", keysAndValues), k -> {
            Counter.Builder b = Counter.builder(name);
            for (int i = 0; i < keysAndValues.length; i += 2) {
                b.tag(keysAndValues[i], keysAndValues[i + 1]);
            }
            return b.register(registry);
        }).increment();
    }
}
