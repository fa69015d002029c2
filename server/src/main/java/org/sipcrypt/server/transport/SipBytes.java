package org.sipcrypt.server.transport;

import java.util.List;

/**
 * Single reads of raw SIP message bytes for callers that hold no {@link SipHead}: each builds the
 * index of the message and asks it, so every byte reader keeps one line rule, one charset and one
 * irregularity rule. A caller that reads more than one field of a message builds the
 * {@link SipHead} once and asks it instead.
 * Threading: stateless; safe from any thread.
 */
public final class SipBytes {

    private SipBytes() {
    }

    /** The Call-ID value ({@code Call-ID} or {@code i}), or {@code null}. */
    public static String callId(byte[] msg) {
        return SipHead.of(msg).callId();
    }

    /** As {@link SipHead#method()}. */
    public static String requestMethod(byte[] msg) {
        return SipHead.of(msg).method();
    }

    /** As {@link SipHead#isResponse()}. */
    public static boolean isResponse(byte[] msg) {
        return SipHead.of(msg).isResponse();
    }

    /**
     * The first value of a header within the header section, or {@code null}.
     *
     * @param longName  lower-case header name
     * @param shortName lower-case compact form, or {@code null}; the index folds the compact forms it knows
     */
    public static String headerValue(byte[] msg, String longName, String shortName) {
        return SipHead.of(msg).value(longName);
    }

    /** Every value of a header within the header section, in order (as {@link SipHead#values}). */
    public static List<String> headerValues(byte[] msg, String longName, String shortName) {
        return SipHead.of(msg).values(longName);
    }

    /**
     * How many header lines of each name the header section holds.
     *
     * @param names for each header, its lower-case name and its lower-case compact form (or null)
     * @return the counts, in the order of {@code names}
     */
    public static int[] headerCounts(byte[] msg, String[][] names) {
        return headerCounts(SipHead.of(msg), names);
    }

    /** As {@link #headerCounts(byte[], String[][])}, from an index already built. */
    public static int[] headerCounts(SipHead head, String[][] names) {
        int[] counts = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            counts[i] = head.count(names[i][0]);
        }
        return counts;
    }

    /** As {@link SipHead#irregularity()}: the one rule every reader that acts on bytes asks first. */
    public static String irregularity(byte[] msg) {
        return SipHead.of(msg).irregularity();
    }

    /** As {@link SipHead#tag}. */
    public static String tag(String value) {
        return SipHead.tag(value);
    }

    /** As {@link SipHead#bodyStart()}. */
    public static int bodyStart(byte[] msg) {
        return SipHead.of(msg).bodyStart();
    }

    /**
     * Offset of the first CRLF CRLF's blank line, or the message length when there is none: the
     * end of a header section whose every line ends in CRLF, which the copies written from bytes
     * (a relayed message, an answer built from a request) need; a message with a bare LF has none.
     */
    public static int headerSectionEnd(byte[] msg) {
        for (int i = 0; i + 3 < msg.length; i++) {
            if (msg[i] == '\r' && msg[i + 1] == '\n' && msg[i + 2] == '\r' && msg[i + 3] == '\n') {
                return i + 2;
            }
        }
        return msg.length;
    }
}
