package org.sipcrypt.lab.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON the lab writes (RFC 8259) into plain values: objects as {@code Map<String, Object>}
 * in order, arrays as {@code List<Object>}, strings, numbers as {@code Double} (the lab's counts stay
 * below 2^53, where doubles are exact), booleans and null. Enough for reading another generator
 * process's summary back; not a general JSON library.
 * Threading: immutable (static methods only).
 */
final class JsonText {

    private final String s;
    private int pos;

    private JsonText(String s) {
        this.s = s;
    }

    /**
     * Parses one JSON value filling the whole text.
     *
     * @throws IllegalArgumentException naming the offset where the text is not JSON
     */
    static Object parse(String text) {
        JsonText p = new JsonText(text);
        Object v = p.value();
        p.space();
        if (p.pos != text.length()) {
            throw p.error("end of text expected");
        }
        return v;
    }

    private Object value() {
        space();
        if (pos >= s.length()) {
            throw error("a value expected");
        }
        char c = s.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> out = new LinkedHashMap<>();
        pos++;
        space();
        if (peek() == '}') {
            pos++;
            return out;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw error("a member name expected");
            }
            String name = string();
            space();
            expect(':');
            out.put(name, value());
            space();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return out;
            }
        }
    }

    private List<Object> array() {
        List<Object> out = new ArrayList<>();
        pos++;
        space();
        if (peek() == ']') {
            pos++;
            return out;
        }
        while (true) {
            out.add(value());
            space();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                return out;
            }
        }
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(pos++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (pos >= s.length()) {
                throw error("unterminated escape");
            }
            char e = s.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (pos + 4 > s.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException x) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, pos)) {
            throw error(word + " expected");
        }
        pos += word.length();
        return v;
    }

    private Double number() {
        int start = pos;
        while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
            pos++;
        }
        try {
            return Double.valueOf(s.substring(start, pos));
        } catch (NumberFormatException e) {
            pos = start;
            throw error("a value expected");
        }
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("'" + c + "' expected");
        }
        pos++;
    }

    private char peek() {
        return pos < s.length() ? s.charAt(pos) : 0;
    }

    private void space() {
        while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON at offset " + pos + ": " + what);
    }
}
