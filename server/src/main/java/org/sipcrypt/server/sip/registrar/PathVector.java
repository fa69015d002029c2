package org.sipcrypt.server.sip.registrar;

import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Objects;
import javax.sip.header.Header;
import javax.sip.message.Request;
import org.sipcrypt.server.sip.StackInternals;

/**
 * The Path of a REGISTER (RFC 3327 §4) as the location service stores it: the header values in the
 * order they came, first hop first, joined by commas into one text (as Kamailio's registrar keeps
 * it), bounded at {@value #MAX_ENTRIES} entries and {@value #MAX_CHARS} characters (the width of
 * {@code bindings.path}); and split back into the values of the Route set that reaches the binding
 * (RFC 3327 §5.4).
 * Threading: stateless.
 */
public final class PathVector {

    /** The header's name. */
    public static final String HEADER = "Path";

    /** Most Path entries one REGISTER may record; more are refused with 400. */
    public static final int MAX_ENTRIES = 8;

    /** Longest Path text stored (the width of {@code bindings.path}); longer is refused with 400. */
    public static final int MAX_CHARS = 1024;

    private PathVector() {
    }

    /** The Path header values of {@code request}, first hop first, one per entry; empty when it has none. */
    static List<String> entries(Request request) {
        List<String> entries = new ArrayList<>();
        ListIterator<?> it = request.getHeaders(HEADER);
        while (it != null && it.hasNext()) {
            Header h = (Header) it.next();
            String value = StackInternals.value(h);
            // one header line may carry several comma-separated values
            entries.addAll(split(value));
        }
        return entries;
    }

    /** The stored form of {@code entries}: joined by commas. */
    static String join(List<String> entries) {
        return String.join(",", entries);
    }

    /**
     * The entries of a stored Path (or of one header line): split at the commas outside angle
     * brackets and quoted strings, each trimmed, empty ones dropped.
     */
    public static List<String> split(String text) {
        Objects.requireNonNull(text, "text");
        List<String> out = new ArrayList<>();
        boolean quoted = false;
        boolean bracketed = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (quoted) {
                if (ch == '\\') {
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                }
            } else if (ch == '"') {
                quoted = true;
            } else if (ch == '<') {
                bracketed = true;
            } else if (ch == '>') {
                bracketed = false;
            } else if (ch == ',' && !bracketed) {
                add(out, text.substring(start, i));
                start = i + 1;
            }
        }
        add(out, text.substring(start));
        return out;
    }

    private static void add(List<String> out, String entry) {
        String e = entry.trim();
        if (!e.isEmpty()) {
            out.add(e);
        }
    }
}
