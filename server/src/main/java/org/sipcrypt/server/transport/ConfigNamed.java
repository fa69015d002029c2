package org.sipcrypt.server.transport;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * An enum whose constants are written in configuration, URIs and reports by a lower-case name
 * ({@code udp}, {@code per-call}, {@code jain-nio}); {@link #parse} reads them back the one way every
 * such setting is read: any case, and an unknown name refused with the names expected.
 * Threading: implementations are enums (immutable).
 */
public interface ConfigNamed {

    /** The name in configuration: the constant's name in lower case, {@code _} written {@code -} ({@code per-call}). */
    default String configName() {
        return ((Enum<?>) this).name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The constant of {@code type} named {@code text}, in any case.
     *
     * @param what what the value is, for the message: {@code transport}, {@code mode}
     * @throws IllegalArgumentException {@code unknown WHAT "TEXT" (expected a, b or c)}
     */
    static <E extends Enum<E> & ConfigNamed> E parse(Class<E> type, String text, String what) {
        E[] constants = type.getEnumConstants();
        for (E e : constants) {
            if (e.configName().equalsIgnoreCase(text)) {
                return e;
            }
        }
        String expected = alternatives(Arrays.stream(constants).map(ConfigNamed::configName).toList());
        throw new IllegalArgumentException("unknown " + what + " \"" + text + "\" (expected " + expected + ")");
    }

    /** Names as a message lists what it expected: {@code a, b or c}. */
    static String alternatives(List<String> names) {
        int last = names.size() - 1;
        return last == 0 ? names.get(0) : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
    }
}
