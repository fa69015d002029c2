package org.sipcrypt.server.config;

import java.lang.reflect.RecordComponent;
import java.util.Locale;

/**
 * The text of a settings record as Java writes records ({@code Name[a=1, b=2]}), with every
 * component whose name says password or secret masked: a record's own {@code toString()} would put
 * them into logs and into the messages of failed checks.
 * Threading: stateless.
 */
final class RecordText {

    /** What a non-empty secret is written as. */
    static final String MASK = "***";

    private RecordText() {
    }

    static String of(Record r) {
        StringBuilder sb = new StringBuilder(r.getClass().getSimpleName()).append('[');
        RecordComponent[] components = r.getClass().getRecordComponents();
        for (int i = 0; i < components.length; i++) {
            RecordComponent c = components[i];
            Object value;
            try {
                value = c.getAccessor().invoke(r);
            } catch (ReflectiveOperationException e) {
                value = "?";
            }
            String name = c.getName().toLowerCase(Locale.ROOT);
            if ((name.contains("password") || name.contains("secret")) && value instanceof String s && !s.isEmpty()) {
                value = MASK;
            }
            sb.append(i == 0 ? "" : ", ").append(c.getName()).append('=').append(value);
        }
        return sb.append(']').toString();
    }
}
