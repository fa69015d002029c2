package org.sipcrypt.lab.report;

/**
 * Text and attribute values made safe for HTML and inline SVG written as well-formed XML: the five
 * markup characters become entities every XML and HTML parser knows, and control characters XML
 * forbids become spaces.
 * Threading: immutable (static functions only).
 */
final class XmlText {

    private XmlText() {
    }

    static String escape(String text) {
        StringBuilder b = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? ' ' : c);
            }
        }
        return b.toString();
    }
}
