package org.sipcrypt.server.transport.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Frames a TCP byte stream into SIP messages by Content-Length (RFC 3261 §18.3), and recognises
 * CRLF keep-alives between messages (RFC 5626 §3.5.1: a double CRLF is a ping, a single CRLF a
 * pong). Emits {@link SipFrame}s; on broken framing emits one {@link SipFrame.Error} and discards
 * everything after it. Limit: {@code maxMessageBytes} for the header section and for headers plus
 * body (default 65,535 from the server configuration).
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class SipStreamFramer extends ByteToMessageDecoder {

    private final int maxMessageBytes;
    private boolean failed;
    private long framed;

    SipStreamFramer(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable()) {
            int start = in.readerIndex();
            if (in.getByte(start) == '\r' || in.getByte(start) == '\n') {
                if (!decodeKeepAlive(in, out)) {
                    return;
                }
                continue;
            }
            int headerEnd = findHeaderEnd(in, start);
            if (headerEnd < 0) {
                if (in.readableBytes() > maxMessageBytes) {
                    fail(in, out, FramingError.OVERSIZE, "header section beyond " + maxMessageBytes + " bytes");
                }
                return;
            }
            int headerBytes = headerEnd - start;
            long contentLength = contentLength(in, start, headerBytes);
            if (contentLength == MISSING) {
                fail(in, out, FramingError.MISSING_CONTENT_LENGTH, "no Content-Length header");
                return;
            }
            if (contentLength == BAD) {
                fail(in, out, FramingError.BAD_CONTENT_LENGTH, "unreadable Content-Length");
                return;
            }
            long total = headerBytes + contentLength;
            if (total > maxMessageBytes) {
                fail(in, out, FramingError.OVERSIZE, total + " bytes beyond " + maxMessageBytes);
                return;
            }
            if (in.readableBytes() < total) {
                return;
            }
            byte[] message = new byte[(int) total];
            in.readBytes(message);
            out.add(new SipFrame.Message(message));
            framed++;
        }
    }

    /** Complete messages framed so far on this connection (keep-alives not counted). */
    long messagesFramed() {
        return framed;
    }

    /**
     * Bytes buffered of a message begun but not complete; 0 between messages, after broken framing,
     * and while only keep-alive CR/LF bytes (at most 3) wait to be told apart.
     */
    int partialMessageBytes() {
        ByteBuf b = internalBuffer();
        int n = b.readableBytes();
        if (n == 0 || failed) {
            return 0;
        }
        byte first = b.getByte(b.readerIndex());
        return first == '\r' || first == '\n' ? 0 : n;
    }

    /** Consumes a leading CRLF or CRLFCRLF; false when more bytes are needed to tell which. */
    private static boolean decodeKeepAlive(ByteBuf in, List<Object> out) {
        int i = in.readerIndex();
        int n = in.readableBytes();
        if (n >= 4 && in.getByte(i) == '\r' && in.getByte(i + 1) == '\n'
                && in.getByte(i + 2) == '\r' && in.getByte(i + 3) == '\n') {
            in.skipBytes(4);
            out.add(new SipFrame.KeepAlive(true));
            return true;
        }
        if (n >= 2 && in.getByte(i) == '\r' && in.getByte(i + 1) == '\n') {
            if (n < 4 && (n == 2 || in.getByte(i + 2) == '\r')) {
                return false;
            }
            in.skipBytes(2);
            out.add(new SipFrame.KeepAlive(false));
            return true;
        }
        if (n == 1 && in.getByte(i) == '\r') {
            return false;
        }
        // a stray CR or LF before a message: RFC 3261 §7.5 says ignore it
        in.skipBytes(1);
        return true;
    }

    private void fail(ByteBuf in, List<Object> out, FramingError reason, String detail) {
        failed = true;
        in.skipBytes(in.readableBytes());
        out.add(new SipFrame.Error(reason, detail));
    }

    /**
     * Index just past the empty line ending the headers, or -1 when not yet received: a line end
     * (CRLF or a bare LF, RFC 3261 §7.5, as JAIN-SIP's parse reads them) followed by another, so
     * CRLFCRLF, LFLF or LFCRLF. Only one ending within {@code maxMessageBytes} counts, so a longer
     * header section is OVERSIZE however the stream was split into reads.
     */
    private int findHeaderEnd(ByteBuf in, int start) {
        int writer = in.writerIndex();
        int cap = start + maxMessageBytes;
        for (int i = start; i + 1 < writer && i + 2 <= cap; i++) {
            if (in.getByte(i) != '\n') {
                continue;
            }
            byte next = in.getByte(i + 1);
            if (next == '\n') {
                return i + 2;
            }
            if (next == '\r' && i + 2 < writer && in.getByte(i + 2) == '\n') {
                return i + 3 <= cap ? i + 3 : -1;
            }
        }
        return -1;
    }

    static final long MISSING = -1;
    static final long BAD = -2;

    /** The Content-Length of the header section ({@code Content-Length} or {@code l}), MISSING or BAD. */
    static long contentLength(ByteBuf in, int start, int length) {
        String headers = in.toString(start, length, StandardCharsets.ISO_8859_1);
        long found = MISSING;
        // lines end in LF, CR before it or not (RFC 3261 §7.5)
        int lineStart = headers.indexOf('\n') + 1;
        while (lineStart > 0 && lineStart < headers.length()) {
            int next = headers.indexOf('\n', lineStart);
            if (next < 0) {
                next = headers.length();
            }
            int lineEnd = next > lineStart && headers.charAt(next - 1) == '\r' ? next - 1 : next;
            int colon = headers.indexOf(':', lineStart);
            if (colon > lineStart && colon < lineEnd) {
                String name = headers.substring(lineStart, colon).trim();
                if (name.equalsIgnoreCase("Content-Length") || name.equalsIgnoreCase("l")) {
                    long value = parseLength(headers.substring(colon + 1, lineEnd).trim());
                    if (value < 0 || (found >= 0 && found != value)) {
                        return BAD;
                    }
                    found = value;
                }
            }
            lineStart = next + 1;
        }
        return found;
    }

    private static long parseLength(String text) {
        if (text.isEmpty() || text.length() > 9) {
            return BAD;
        }
        long v = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return BAD;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
