package org.sipcrypt.server.transport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads single header values out of raw SIP message bytes without parsing the message: enough to
 * pick a worker lane by Call-ID on the event loop, and to answer a message that does not parse.
 * Header names match case-insensitively, compact forms included (RFC 3261 §7.3.3).
 * Threading: stateless; safe from any thread.
 */
public final class SipBytes {

    private SipBytes() {
    }

    /** The Call-ID value ({@code Call-ID} or {@code i}), or {@code null}. */
    public static String callId(byte[] msg) {
        return headerValue(msg, "call-id", "i");
    }

    /**
     * The method of a request, read from its request line ({@code METHOD SP Request-URI SP
     * SIP/2.0}), or {@code null} for a response or anything else: only upper-case letters before the
     * first space count as a method here.
     */
    public static String requestMethod(byte[] msg) {
        int i = 0;
        while (i < msg.length && i <= 16 && msg[i] >= 'A' && msg[i] <= 'Z') {
            i++;
        }
        return i > 0 && i < msg.length && msg[i] == ' ' ? new String(msg, 0, i, StandardCharsets.US_ASCII) : null;
    }

    /** Whether the message starts with a status line's {@code SIP/2.0 }. */
    public static boolean isResponse(byte[] msg) {
        return msg.length > 8 && msg[0] == 'S' && msg[1] == 'I' && msg[2] == 'P' && msg[3] == '/' && msg[4] == '2'
                && msg[5] == '.' && msg[6] == '0' && msg[7] == ' ';
    }

    /**
     * The first value of a header within the header section, or {@code null}.
     *
     * @param longName  lower-case header name
     * @param shortName lower-case compact form, or {@code null}
     */
    public static String headerValue(byte[] msg, String longName, String shortName) {
        return scan(msg, longName, shortName, null);
    }

    /**
     * Every value of a header within the header section, in order (one per header line; values
     * a line joins with commas stay together).
     *
     * @param longName  lower-case header name
     * @param shortName lower-case compact form, or {@code null}
     */
    public static List<String> headerValues(byte[] msg, String longName, String shortName) {
        List<String> values = new ArrayList<>(2);
        scan(msg, longName, shortName, values);
        return values;
    }

    /**
     * How many header lines of each name the header section holds, counted in one pass.
     *
     * @param names for each header, its lower-case name and its lower-case compact form (or null)
     * @return the counts, in the order of {@code names}
     */
    public static int[] headerCounts(byte[] msg, String[][] names) {
        int[] counts = new int[names.length];
        int end = msg.length;
        int lineStart = nextLine(msg, 0, end);
        while (lineStart >= 0 && lineStart < end && msg[lineStart] != '\r' && msg[lineStart] != '\n') {
            for (int i = 0; i < names.length; i++) {
                if (matchName(msg, lineStart, end, names[i][0]) >= 0
                        || names[i][1] != null && matchName(msg, lineStart, end, names[i][1]) >= 0) {
                    counts[i]++;
                    break;
                }
            }
            lineStart = nextLine(msg, lineStart, end);
        }
        return counts;
    }

    /**
     * Scans the header section for a header: returns its first value when {@code all} is null
     * (nothing allocated but that value), else adds every value to {@code all} and returns null.
     */
    private static String scan(byte[] msg, String longName, String shortName, List<String> all) {
        int end = msg.length;
        int lineStart = nextLine(msg, 0, end);
        // stop at the blank line that ends the headers: the body is not searched
        while (lineStart >= 0 && lineStart < end && msg[lineStart] != '\r' && msg[lineStart] != '\n') {
            int valueStart = matchName(msg, lineStart, end, longName);
            if (valueStart < 0 && shortName != null) {
                valueStart = matchName(msg, lineStart, end, shortName);
            }
            if (valueStart >= 0) {
                int lineEnd = lineEnd(msg, valueStart, end);
                String value = new String(msg, valueStart, lineEnd - valueStart, StandardCharsets.UTF_8).trim();
                if (all == null) {
                    return value;
                }
                all.add(value);
            }
            lineStart = nextLine(msg, lineStart, end);
        }
        return null;
    }

    /** Offset of the blank line ending the headers, or the message length when there is none. */
    public static int headerSectionEnd(byte[] msg) {
        for (int i = 0; i + 3 < msg.length; i++) {
            if (msg[i] == '\r' && msg[i + 1] == '\n' && msg[i + 2] == '\r' && msg[i + 3] == '\n') {
                return i + 2;
            }
        }
        return msg.length;
    }

    private static int nextLine(byte[] msg, int from, int end) {
        for (int i = from; i < end; i++) {
            if (msg[i] == '\n') {
                return i + 1;
            }
        }
        return -1;
    }

    private static int lineEnd(byte[] msg, int from, int end) {
        for (int i = from; i < end; i++) {
            if (msg[i] == '\r' || msg[i] == '\n') {
                return i;
            }
        }
        return end;
    }

    /** Offset after "name *:" at {@code start}, or -1. */
    private static int matchName(byte[] msg, int start, int end, String name) {
        int n = name.length();
        if (start + n >= end) {
            return -1;
        }
        for (int k = 0; k < n; k++) {
            int c = msg[start + k];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != name.charAt(k)) {
                return -1;
            }
        }
        int i = start + n;
        while (i < end && (msg[i] == ' ' || msg[i] == '\t')) {
            i++;
        }
        return i < end && msg[i] == ':' ? i + 1 : -1;
    }
}
