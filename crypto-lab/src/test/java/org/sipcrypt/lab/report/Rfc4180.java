package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads CSV text back by RFC 4180 §2 (quoted fields, doubled quotes, CRLF records), so tests check
 * what a spreadsheet would see rather than the exporter's own idea of it.
 * Threading: stateless.
 */
final class Rfc4180 {

    private Rfc4180() {
    }

    /** The records of {@code text}; every record must end with CRLF. */
    static List<List<String>> parse(String text) {
        List<List<String>> records = new ArrayList<>();
        List<String> record = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"' && field.length() == 0) {
                i++;
                while (true) {
                    if (i >= text.length()) {
                        throw new IllegalArgumentException("unterminated quoted field at " + i);
                    }
                    char q = text.charAt(i++);
                    if (q == '"') {
                        if (i < text.length() && text.charAt(i) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        field.append(q);
                    }
                }
                char next = i < text.length() ? text.charAt(i) : '\0';
                if (next != ',' && next != '\r') {
                    throw new IllegalArgumentException("text after a closing quote at " + i);
                }
            } else if (c == ',') {
                record.add(field.toString());
                field.setLength(0);
                i++;
            } else if (c == '\r') {
                if (i + 1 >= text.length() || text.charAt(i + 1) != '\n') {
                    throw new IllegalArgumentException("CR without LF at " + i);
                }
                record.add(field.toString());
                field.setLength(0);
                records.add(record);
                record = new ArrayList<>();
                i += 2;
            } else if (c == '"' || c == '\n') {
                throw new IllegalArgumentException("unquoted " + (c == '"' ? "quote" : "LF") + " at " + i);
            } else {
                field.append(c);
                i++;
            }
        }
        if (!record.isEmpty() || field.length() > 0) {
            throw new IllegalArgumentException("last record does not end with CRLF");
        }
        return records;
    }
}
