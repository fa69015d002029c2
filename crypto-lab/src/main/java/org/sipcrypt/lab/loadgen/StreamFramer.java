package org.sipcrypt.lab.loadgen;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a TCP or TLS byte stream into SIP messages by Content-Length (RFC 3261 §18.3); CRLF
 * keep-alives between messages (RFC 5626 §3.5.1) are skipped. A message larger than
 * {@code maxMessageBytes} or without a usable Content-Length is a framing error. The header block is
 * read in place, byte by byte: every message of the generator and the UAS passes here, so nothing is
 * decoded, split or lower-cased to find its length.
 * Threading: one instance per connection, its event loop only.
 */
final class StreamFramer {

    private static final byte[] CONTENT_LENGTH = "content-length".getBytes(StandardCharsets.US_ASCII);

    private final int maxMessageBytes;
    private byte[] buf = new byte[4096];
    private int len;

    StreamFramer(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    /**
     * Adds bytes and returns the messages now complete (an immutable empty list when there are none).
     *
     * @throws IllegalArgumentException on a framing error (the connection must be closed)
     */
    List<SipMessage> feed(byte[] bytes, int off, int n) {
        if (len + n > buf.length) {
            byte[] b = new byte[Math.max(buf.length * 2, len + n)];
            System.arraycopy(buf, 0, b, 0, len);
            buf = b;
        }
        System.arraycopy(bytes, off, buf, len, n);
        len += n;
        List<SipMessage> out = null;
        int pos = 0;
        while (true) {
            while (pos < len && (buf[pos] == '\r' || buf[pos] == '\n')) {
                pos++;
            }
            int headEnd = SipMessage.indexOfBlankLine(buf, pos, len);
            if (headEnd < 0) {
                if (len - pos > maxMessageBytes) {
                    throw new IllegalArgumentException("headers longer than " + maxMessageBytes + " bytes");
                }
                break;
            }
            int bodyLen = contentLength(pos, headEnd);
            int total = headEnd + 4 - pos + bodyLen;
            if (total > maxMessageBytes) {
                throw new IllegalArgumentException("message of " + total + " bytes exceeds " + maxMessageBytes);
            }
            if (len - pos < total) {
                break;
            }
            if (out == null) {
                out = new ArrayList<>(2);
            }
            out.add(SipMessage.parse(buf, pos, total));
            pos += total;
        }
        System.arraycopy(buf, pos, buf, 0, len - pos);
        len -= pos;
        return out == null ? List.of() : out;
    }

    /**
     * The value of the first Content-Length header (or its compact form {@code l}, RFC 3261 §7.3.3)
     * among the lines of {@code buf[from, to)}, the header block without its blank line.
     */
    private int contentLength(int from, int to) {
        int line = from;
        while (line < to) {
            int eol = SipMessage.lineEnd(buf, line, to);
            int colon = nameColon(line, eol);
            if (colon >= 0) {
                return decimal(colon + 1, eol);
            }
            line = eol + 2;
        }
        throw new IllegalArgumentException("no Content-Length on a stream (RFC 3261 §18.3)");
    }

    /**
     * The colon after the header name when the line {@code buf[from, to)} is a Content-Length header,
     * else -1. The name is matched without regard to case and may be followed by spaces or tabs
     * before the colon (HCOLON, RFC 3261 §25.1); a folded line (leading whitespace) never matches.
     */
    private int nameColon(int from, int to) {
        int i;
        if (matchesIgnoringCase(from, to, CONTENT_LENGTH)) {
            i = from + CONTENT_LENGTH.length;
        } else if (from < to && (buf[from] | 0x20) == 'l') {
            i = from + 1;
        } else {
            return -1;
        }
        while (i < to && (buf[i] == ' ' || buf[i] == '\t')) {
            i++;
        }
        return i < to && buf[i] == ':' ? i : -1;
    }

    /** Whether {@code buf} at {@code from} holds {@code lower}, a lower-case ASCII name, in any case. */
    private boolean matchesIgnoringCase(int from, int to, byte[] lower) {
        if (to - from < lower.length) {
            return false;
        }
        for (int k = 0; k < lower.length; k++) {
            byte b = buf[from + k];
            byte c = lower[k];
            if (b != c && !(c >= 'a' && c <= 'z' && b == c - ('a' - 'A'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The Content-Length value in {@code buf[from, to)}: 1*DIGIT (RFC 3261 §20.14) between any
     * whitespace. A value that alone exceeds {@code maxMessageBytes} is refused as soon as its digits
     * say so, which also keeps the sum with the header length from overflowing.
     */
    private int decimal(int from, int to) {
        int s = from;
        int e = to;
        while (s < e && (buf[s] & 0xFF) <= ' ') {
            s++;
        }
        while (e > s && (buf[e - 1] & 0xFF) <= ' ') {
            e--;
        }
        boolean negative = s < e && buf[s] == '-';
        int digits = negative ? s + 1 : s;
        if (digits == e) {
            throw new IllegalArgumentException("bad Content-Length: \"" + text(s, e) + "\"");
        }
        for (int i = digits; i < e; i++) {
            if (buf[i] < '0' || buf[i] > '9') {
                throw new IllegalArgumentException("bad Content-Length: \"" + text(s, e) + "\"");
            }
        }
        if (negative) {
            throw new IllegalArgumentException("negative Content-Length: " + text(s, e));
        }
        long n = 0;
        for (int i = digits; i < e; i++) {
            n = n * 10 + buf[i] - '0';
            if (n > maxMessageBytes) {
                throw new IllegalArgumentException("Content-Length " + text(s, e) + " exceeds " + maxMessageBytes);
            }
        }
        return (int) n;
    }

    /** Bytes of the buffer as text, for an error message only. */
    private String text(int from, int to) {
        return new String(buf, from, to - from, StandardCharsets.US_ASCII);
    }
}
