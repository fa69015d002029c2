package org.sipcrypt.jmh;

import java.util.ArrayList;
import java.util.List;

/**
 * A Markdown table: a header row, the first column left-aligned and the others right-aligned, then the
 * rows in the order they were added.
 * Threading: confined to the calling thread.
 */
final class MarkdownTable {
    private final String[] head;
    private final List<String[]> rows = new ArrayList<>();

    MarkdownTable(String... head) {
        this.head = head;
    }

    void row(String... cells) {
        rows.add(cells);
    }

    void appendTo(StringBuilder out) {
        out.append("| ").append(String.join(" | ", head)).append(" |\n|");
        for (int i = 0; i < head.length; i++) {
            out.append(i == 0 ? " --- |" : " ---: |");
        }
        out.append('\n');
        for (String[] r : rows) {
            out.append("| ").append(String.join(" | ", r)).append(" |\n");
        }
        out.append('\n');
    }
}
