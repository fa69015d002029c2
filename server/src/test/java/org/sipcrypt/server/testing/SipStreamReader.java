package org.sipcrypt.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads SIP messages off a stream transport's bytes (here the application data of a TLS
 * connection) by Content-Length framing (RFC 3261 §18.3), for the load drivers in this package.
 * CRLFs before a message (keep-alives, RFC 5626 §3.5.1) are skipped. Limits: {@value #MAX_HEADER_BYTES}
 * bytes of start line and headers, {@value #MAX_BODY_BYTES} bytes of body; a message beyond them,
 * or without Content-Length, ends the stream with an {@link IOException}.
 * Threading: one reading thread per instance; {@link Message} is immutable.
 */
final class SipStreamReader {

    static final int MAX_HEADER_BYTES = 16 * 1024;
    static final int MAX_BODY_BYTES = 64 * 1024;

    /** Compact header forms (RFC 3261 §7.3.3) and their full names, lower case. */
    private static final Map<String, String> COMPACT = Map.of("i", "call-id", "f", "from", "t", "to", "v", "via",
            "m", "contact", "l", "content-length", "c", "content-type", "k", "supported", "s", "subject");

    private final InputStream in;
    private byte[] buf = new byte[8192];
    private int start;
    private int end;

    SipStreamReader(InputStream in) {
        this.in = in;
    }

    /** The next message, or null at the end of the stream (between messages). */
    Message next() throws IOException {
        while (true) {
            while (start < end && (buf[start] == '\r' || buf[start] == '\n')) {
                start++;
            }
            int headerEnd = indexOfBlankLine();
            if (headerEnd >= 0) {
                String head = new String(buf, start, headerEnd - start, StandardCharsets.UTF_8);
                Message partial = Message.parse(head, new byte[0]);
                String cl = partial.header("content-length");
                if (cl == null) {
                    throw new IOException("message without Content-Length on a stream: " + partial.startLine());
                }
                int length;
                try {
                    length = Integer.parseInt(cl.trim());
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length \"" + cl + "\"", e);
                }
                if (length < 0 || length > MAX_BODY_BYTES) {
                    throw new IOException("Content-Length " + length + " out of range");
                }
                int bodyStart = headerEnd + 4;
                if (end - bodyStart >= length) {
                    byte[] body = Arrays.copyOfRange(buf, bodyStart, bodyStart + length);
                    start = bodyStart + length;
                    return new Message(partial.startLine(), partial.headers(), body);
                }
            } else if (end - start > MAX_HEADER_BYTES) {
                throw new IOException("no end of headers within " + MAX_HEADER_BYTES + " bytes");
            }
            if (!fill()) {
                if (start < end) {
                    throw new IOException("stream ended inside a message (" + (end - start) + " bytes)");
                }
                return null;
            }
        }
    }

    private int indexOfBlankLine() {
        for (int i = start; i + 3 < end; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private boolean fill() throws IOException {
        if (start > 0) {
            System.arraycopy(buf, start, buf, 0, end - start);
            end -= start;
            start = 0;
        }
        if (end == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        int n = in.read(buf, end, buf.length - end);
        if (n < 0) {
            return false;
        }
        end += n;
        return true;
    }

    /**
     * One SIP message: start line, header lines as received (name, value; folded lines joined),
     * body bytes.
     * Threading: immutable.
     *
     * @param startLine the request or status line
     * @param headers   {@code [name, value]} pairs in order, names as written
     * @param body      the body, possibly empty
     */
    record Message(String startLine, List<String[]> headers, byte[] body) {

        static Message parse(String head, byte[] body) {
            String[] lines = head.split("\r\n");
            List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                String line = lines[i];
                if (!headers.isEmpty() && (line.startsWith(" ") || line.startsWith("\t"))) {
                    String[] last = headers.get(headers.size() - 1);
                    last[1] = last[1] + " " + line.trim();
                    continue;
                }
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.add(new String[] {line.substring(0, colon).trim(), line.substring(colon + 1).trim()});
                }
            }
            return new Message(lines[0], List.copyOf(headers), body);
        }

        boolean isResponse() {
            return startLine.startsWith("SIP/2.0 ");
        }

        /** The status code of a response, -1 for a request. */
        int status() {
            if (!isResponse() || startLine.length() < 11) {
                return -1;
            }
            try {
                return Integer.parseInt(startLine.substring(8, 11));
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        /** The method of a request, or of the CSeq of a response. */
        String method() {
            if (!isResponse()) {
                return startLine.substring(0, Math.max(0, startLine.indexOf(' ')));
            }
            String cseq = header("cseq");
            return cseq == null ? "" : cseq.substring(cseq.trim().indexOf(' ') + 1).trim();
        }

        /** The first value of a header (full or compact name, any case), or null. */
        String header(String name) {
            List<String> all = values(name, false);
            return all.isEmpty() ? null : all.get(0);
        }

        /**
         * Every value of a header in order; with {@code split}, lines carrying several values
         * separated by commas (Via, Route, Record-Route, Contact) give one entry each.
         */
        List<String> values(String name, boolean split) {
            String wanted = canonical(name);
            List<String> out = new ArrayList<>();
            for (String[] h : headers) {
                if (canonical(h[0]).equals(wanted)) {
                    if (split) {
                        out.addAll(splitValues(h[1]));
                    } else {
                        out.add(h[1]);
                    }
                }
            }
            return out;
        }

        /** The header lines of that name as received, {@code Name: value}. */
        List<String> lines(String name) {
            String wanted = canonical(name);
            List<String> out = new ArrayList<>();
            for (String[] h : headers) {
                if (canonical(h[0]).equals(wanted)) {
                    out.add(h[0] + ": " + h[1]);
                }
            }
            return out;
        }

        private static String canonical(String name) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            return COMPACT.getOrDefault(n, n);
        }

        /** Splits at commas outside quotes and angle brackets. */
        static List<String> splitValues(String value) {
            List<String> out = new ArrayList<>();
            boolean quoted = false;
            int angle = 0;
            int from = 0;
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '"' && (i == 0 || value.charAt(i - 1) != '\\')) {
                    quoted = !quoted;
                } else if (!quoted && c == '<') {
                    angle++;
                } else if (!quoted && c == '>') {
                    angle = Math.max(0, angle - 1);
                } else if (!quoted && angle == 0 && c == ',') {
                    out.add(value.substring(from, i).trim());
                    from = i + 1;
                }
            }
            out.add(value.substring(from).trim());
            out.removeIf(String::isEmpty);
            return out;
        }
    }
}
