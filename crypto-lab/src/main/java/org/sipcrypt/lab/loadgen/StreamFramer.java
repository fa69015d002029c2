package org.sipcrypt.lab.loadgen;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Cuts a TCP or TLS byte stream into SIP messages by Content-Length (RFC 3261 §18.3); CRLF
 * keep-alives between messages (RFC 5626 §3.5.1) are skipped. A message larger than
 * {@code maxMessageBytes} or without a usable Content-Length is a framing error.
 * Threading: one instance per connection, its event loop only.
 */
final class StreamFramer {

    private final int maxMessageBytes;
    private byte[] buf = new byte[4096];
    private int len;

    StreamFramer(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    /**
     * Adds bytes and returns the messages now complete.
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
        List<SipMessage> out = new ArrayList<>();
        int pos = 0;
        while (true) {
            while (pos < len && (buf[pos] == '\r' || buf[pos] == '\n')) {
                pos++;
            }
            int headEnd = indexOfBlankLine(pos);
            if (headEnd < 0) {
                if (len - pos > maxMessageBytes) {
                    throw new IllegalArgumentException("headers longer than " + maxMessageBytes + " bytes");
                }
                break;
            }
            int bodyLen = contentLength(new String(buf, pos, headEnd - pos, StandardCharsets.US_ASCII));
            int total = headEnd + 4 - pos + bodyLen;
            if (total > maxMessageBytes) {
                throw new IllegalArgumentException("message of " + total + " bytes exceeds " + maxMessageBytes);
            }
            if (len - pos < total) {
                break;
            }
            out.add(SipMessage.parse(buf, pos, total));
            pos += total;
        }
        System.arraycopy(buf, pos, buf, 0, len - pos);
        len -= pos;
        return out;
    }

    private int indexOfBlankLine(int from) {
        for (int i = from; i + 3 < len; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:") || lower.startsWith("l:")) {
                try {
                    int n = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
                    if (n < 0) {
                        throw new IllegalArgumentException("negative Content-Length");
                    }
                    return n;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad Content-Length: " + line, e);
                }
            }
        }
        throw new IllegalArgumentException("no Content-Length on a stream (RFC 3261 §18.3)");
    }
}
