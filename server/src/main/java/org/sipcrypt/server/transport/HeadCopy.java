package org.sipcrypt.server.transport;

import java.util.Arrays;

/**
 * A copy of a received message with some header lines replaced, removed or put first, written
 * from the message's bytes: every line not touched, the blank line and the body are copied as
 * they came, in runs, without a string per line. The relays write their copies with it (RFC 3261
 * §16.6: a proxy changes a few lines and leaves the others alone). Only for a message whose lines
 * all end in CRLF ({@link SipHead#crlfOnly()}); new and replaced lines are text of one char per
 * byte (ISO-8859-1, as {@link SipHead#lineText} gives them), without their CRLF.
 * Threading: one per copy, used by one thread.
 */
public final class HeadCopy {

    private final SipHead head;
    /** Per header line: its replacement, or null to copy it as it came. */
    private final String[] lines;
    /** Per header line: whether it is left out. */
    private final boolean[] removed;
    private final StringBuilder first = new StringBuilder();

    /** A copy of the message {@code head} indexes, unchanged so far. */
    public HeadCopy(SipHead head) {
        if (!head.crlfOnly()) {
            throw new IllegalArgumentException("a copy is written only of a message whose lines end in CRLF");
        }
        this.head = head;
        this.lines = new String[head.lineCount()];
        this.removed = new boolean[head.lineCount()];
    }

    /** Puts {@code line} before every header line (after lines put first before it). */
    public HeadCopy putFirst(String line) {
        first.append(line).append("\r\n");
        return this;
    }

    /** Replaces header line {@code l} with {@code line}. */
    public HeadCopy replace(int l, String line) {
        lines[l] = line;
        return this;
    }

    /** Leaves header line {@code l} out. */
    public HeadCopy remove(int l) {
        removed[l] = true;
        return this;
    }

    /** The copy's bytes. */
    public byte[] bytes() {
        byte[] msg = head.bytes();
        int startNext = head.startLineNext();
        int size = startNext + first.length() + msg.length - head.headerEnd();
        for (int l = 0; l < lines.length; l++) {
            String line = lines[l];
            size += removed[l] ? 0 : line == null ? head.lineNext(l) - head.lineStart(l) : line.length() + 2;
        }
        byte[] out = new byte[size];
        System.arraycopy(msg, 0, out, 0, startNext);
        int at = text(first, out, startNext);
        int l = 0;
        while (l < lines.length) {
            if (lines[l] == null && !removed[l]) {
                // a run of lines as they came
                int from = head.lineStart(l);
                while (l < lines.length && lines[l] == null && !removed[l]) {
                    l++;
                }
                int to = l < lines.length ? head.lineStart(l) : head.headerEnd();
                System.arraycopy(msg, from, out, at, to - from);
                at += to - from;
            } else {
                if (!removed[l]) {
                    at = text(lines[l], out, at);
                    out[at++] = '\r';
                    out[at++] = '\n';
                }
                l++;
            }
        }
        System.arraycopy(msg, head.headerEnd(), out, at, msg.length - head.headerEnd());
        at += msg.length - head.headerEnd();
        return at == out.length ? out : Arrays.copyOf(out, at);
    }

    private static int text(CharSequence s, byte[] out, int at) {
        for (int i = 0; i < s.length(); i++) {
            out[at++] = (byte) s.charAt(i);
        }
        return at;
    }
}
