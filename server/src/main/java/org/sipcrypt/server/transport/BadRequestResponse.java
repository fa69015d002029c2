package org.sipcrypt.server.transport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the answer to a request that did not parse: a 400 (or another status) whose reason phrase
 * names the problem, carrying the request's Via, From, To, Call-ID and CSeq lines copied verbatim
 * so the client can match it (RFC 3261 §8.2.6.2, §21.4.1). Built from the raw text because the
 * request never became a message object.
 * Threading: stateless; safe from any thread.
 */
public final class BadRequestResponse {

    private static final int MAX_REASON_CHARS = 120;

    private BadRequestResponse() {
    }

    /**
     * The response bytes, or {@code null} when the request cannot be answered: it is an ACK or a
     * response, or it lacks a Via, From, To, Call-ID or CSeq line.
     */
    public static byte[] build(byte[] request, int status, String reason) {
        return build(request, status, reason, "sc400", "");
    }

    /**
     * As {@link #build(byte[], int, String)}, with the To tag added when the request has none, and
     * {@code extraHeaders} (whole header lines, each ending in CRLF) before Content-Length.
     */
    public static byte[] build(byte[] request, int status, String reason, String toTag, String extraHeaders) {
        return build(request, status, reason, toTag, extraHeaders, null, null);
    }

    /**
     * As {@link #build(byte[], int, String, String, String)}, with the top Via as the server tags it
     * on receipt ({@link TopVia#tagged}) when {@code via}, the request's top Via, is given: the answer
     * of a request that reached the server intact, sent to {@code source}.
     */
    public static byte[] build(byte[] request, int status, String reason, String toTag, String extraHeaders,
                               TopVia via, java.net.InetSocketAddress source) {
        String text = new String(request, 0, SipBytes.headerSectionEnd(request), StandardCharsets.UTF_8);
        if (text.startsWith("SIP/") || text.startsWith("ACK ")) {
            return null;
        }
        List<String> vias = new ArrayList<>(2);
        String from = null;
        String to = null;
        String callId = null;
        String cseq = null;
        // any line end, as JAIN-SIP's parser reads them: a bare CR or LF copied inside a line would
        // leave the answer with a line end that is not CRLF (RFC 3261 §7)
        int lineStart = 0;
        while (lineStart < text.length()) {
            int lineEnd = lineStart;
            while (lineEnd < text.length() && text.charAt(lineEnd) != '\r' && text.charAt(lineEnd) != '\n') {
                lineEnd++;
            }
            String line = text.substring(lineStart, lineEnd);
            lineStart = lineEnd + (text.startsWith("\r\n", lineEnd) ? 2 : 1);
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
            switch (name) {
                case "via", "v" -> vias.add(line);
                case "from", "f" -> from = from == null ? line : from;
                case "to", "t" -> to = to == null ? line : to;
                case "call-id", "i" -> callId = callId == null ? line : callId;
                case "cseq" -> cseq = cseq == null ? line : cseq;
                default -> { }
            }
        }
        if (vias.isEmpty() || from == null || to == null || callId == null || cseq == null) {
            return null;
        }
        if (via != null) {
            String top = vias.get(0);
            int at = top.indexOf(via.entry());
            if (at < 0) {
                return null;
            }
            vias.set(0, top.substring(0, at) + via.tagged(source) + top.substring(at + via.entry().length()));
        }
        if (!to.toLowerCase(java.util.Locale.ROOT).contains(";tag=")) {
            to = to + ";tag=" + toTag;
        }
        StringBuilder sb = new StringBuilder(256 + text.length() / 2 + extraHeaders.length());
        sb.append("SIP/2.0 ").append(status).append(' ').append(phrase(reason)).append("\r\n");
        for (String v : vias) {
            sb.append(v).append("\r\n");
        }
        sb.append(from).append("\r\n").append(to).append("\r\n")
                .append(callId).append("\r\n").append(cseq).append("\r\n")
                .append(extraHeaders)
                .append("Content-Length: 0\r\n\r\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A reason phrase safe to put on a status line: printable, one line, bounded. */
    static String phrase(String reason) {
        StringBuilder sb = new StringBuilder(Math.min(reason.length(), MAX_REASON_CHARS));
        for (int i = 0; i < reason.length() && sb.length() < MAX_REASON_CHARS; i++) {
            char c = reason.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return sb.toString().trim();
    }
}
