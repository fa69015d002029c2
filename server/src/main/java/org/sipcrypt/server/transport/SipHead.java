package org.sipcrypt.server.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The index of one received SIP message's start line and header lines, built in one pass over its
 * bytes (RFC 3261 §7): every reader that acts on a message without JAIN-SIP's parse asks this
 * index instead of scanning the bytes again. It keeps each header line's name and value offsets
 * into the bytes (no copy), folds compact names to their long form (§7.3.3), counts each name,
 * and answers typed fields lazily, each read at most once.
 * <p><b>One line rule.</b> A line ends at LF; a CR just before it belongs to the line end (CRLF,
 * §7.5). A bare LF ends a line as CRLF does, as JAIN-SIP's parse takes it. A value ends at the
 * first CR or LF of its line. The header section ends at the first line that starts with CR or LF.
 * Anything else a bare CR does (inside a line, or a line of CR alone) is named by
 * {@link #irregularity()}, and a message it names is left to the parse.
 * <p><b>One charset.</b> Values are decoded as UTF-8, as the parse decodes them; the start line's
 * method and status are ASCII.
 * <p><b>Exact or declined.</b> For a message {@link #irregularity()} passes, a typed accessor
 * ({@link #method()}, {@link #status()}, {@link #requestUri()}, {@link #callId()}, {@link #topVia()},
 * {@link #fromTag()}, {@link #toTag()}, {@link #cseqNumber()}, {@link #cseqMethod()},
 * {@link #maxForwards()}, {@link #contentLength()}) answers what JAIN-SIP's parse of the same
 * bytes holds, or declines (null or -1) where its form is not the plain one read here. On other
 * messages they answer as the scanning readers always did (first line of a name, value up to its
 * line end): good enough for choosing a lane or building a 400, never for acting on the message.
 * <p>Work and memory are linear in the message's length, which the framer bounds
 * ({@code transport.maxMessageBytes}): four ints per header line and a fixed table of counts.
 * Threading: one per message, not thread-safe; read by one thread at a time (built and first read on
 * the event loop, then handed with the message to its worker lane, whose queue publishes it).
 */
public final class SipHead {

    /** Long names of the headers the index knows by number, lower case; compact forms fold to them. */
    private static final String[] KNOWN = {
        "via", "call-id", "from", "to", "cseq", "max-forwards", "content-length", "route", "record-route",
        "contact", "proxy-authorization", "proxy-require", "content-type", "subject", "supported",
        "content-encoding", "event", "refer-to", "allow-events", "referred-by", "session-expires",
        "accept-contact", "reject-contact", "request-disposition", "identity", "identity-info",
    };
    private static final int VIA = 0;
    private static final int CALL_ID = 1;
    private static final int FROM = 2;
    private static final int TO = 3;
    private static final int CSEQ = 4;
    private static final int MAX_FORWARDS = 5;
    private static final int CONTENT_LENGTH = 6;
    private static final int ROUTE = 7;
    /** Headers the byte readers read and a message may carry once (RFC 3261 §7.3.1, §20). */
    private static final int[] READ_ONCE = {CALL_ID, FROM, TO, CSEQ, MAX_FORWARDS, CONTENT_LENGTH};

    /** Compact forms (RFC 3261 §7.3.3, RFC 3265, 3515, 3892, 4028, 3841, 4474), indexed by letter. */
    private static final int[] COMPACT = new int[26];

    static {
        Arrays.fill(COMPACT, -1);
        compact('v', "via");
        compact('i', "call-id");
        compact('f', "from");
        compact('t', "to");
        compact('l', "content-length");
        compact('m', "contact");
        compact('c', "content-type");
        compact('s', "subject");
        compact('k', "supported");
        compact('e', "content-encoding");
        compact('o', "event");
        compact('r', "refer-to");
        compact('u', "allow-events");
        compact('b', "referred-by");
        compact('x', "session-expires");
        compact('a', "accept-contact");
        compact('j', "reject-contact");
        compact('d', "request-disposition");
        compact('y', "identity");
        compact('n', "identity-info");
    }

    private static void compact(char letter, String longName) {
        COMPACT[letter - 'a'] = Arrays.asList(KNOWN).indexOf(longName);
    }

    /** The {@link #KNOWN} names as bytes, and their indexes by name length: a name is looked up among its length's. */
    private static final byte[][] KNOWN_BYTES = new byte[KNOWN.length][];
    private static final int[][] BY_LENGTH;
    /** Every name the index knows (long and compact, lower case) to its {@link #KNOWN} index. */
    private static final Map<String, Integer> BY_NAME = new HashMap<>();

    static {
        int longest = 0;
        for (int k = 0; k < KNOWN.length; k++) {
            KNOWN_BYTES[k] = KNOWN[k].getBytes(StandardCharsets.US_ASCII);
            longest = Math.max(longest, KNOWN[k].length());
            BY_NAME.put(KNOWN[k], k);
        }
        BY_LENGTH = new int[longest + 1][];
        for (int n = 0; n <= longest; n++) {
            int length = n;
            BY_LENGTH[n] = java.util.stream.IntStream.range(0, KNOWN.length)
                    .filter(k -> KNOWN[k].length() == length).toArray();
        }
        for (int c = 0; c < COMPACT.length; c++) {
            if (COMPACT[c] >= 0) {
                BY_NAME.put(String.valueOf((char) ('a' + c)), COMPACT[c]);
            }
        }
    }

    /** Eight bytes of a message as one long, for the walk over header values. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final int UNKNOWN = -1;
    /** A line with no colon before its end: no header to a reader. */
    private static final int NO_NAME = -2;

    private final byte[] msg;
    /** Per header line: start, end of the name (blanks before the colon trimmed), value start, value end. */
    private int[] offsets;
    /** Per header line: the index in {@link #KNOWN}, {@link #UNKNOWN} or {@link #NO_NAME}. */
    private int[] ids;
    private int lines;
    private final int[] counts = new int[KNOWN.length];
    /** Per {@link #KNOWN} index: its first header line, or -1. */
    private final int[] firsts = new int[KNOWN.length];
    /** Where the line that ends the header section starts, or the message length when none does. */
    private final int headerEnd;
    /** The first irregularity found in the pass (tags aside), and the header line it is on. */
    private final String structural;
    private final int structuralLine;
    /** Whether a line up to and including the blank one ends in a bare LF. */
    private final boolean bareLf;

    private String irregularity;
    private boolean irregularityRead;
    private String method;
    private boolean methodRead;
    private TopVia topVia;
    private boolean topViaRead;
    private String callId;
    private boolean callIdRead;
    /** Per From and To: the tag ({@link #tag}) and tag count ({@link #tagCount}) of its first line, once read. */
    private String fromTag;
    private int fromTagCount = -1;
    private String toTag;
    private int toTagCount = -1;
    private String cseq;
    private boolean cseqRead;

    private SipHead(byte[] msg) {
        this.msg = msg;
        int end = msg.length;
        // room for the header lines of a usual request (an INVITE has 12 to 20) before any growth
        this.offsets = new int[4 * 24];
        this.ids = new int[24];
        Arrays.fill(firsts, -1);
        String found = end == 0 || !tokenChar(msg[0]) ? "start_line" : null;
        int foundLine = found != null ? -1 : Integer.MAX_VALUE;
        int i = 0;
        while (i < end && msg[i] != '\n') {
            if (found == null && control(msg[i]) && !(msg[i] == '\r' && i + 1 < end && msg[i + 1] == '\n')) {
                found = "control_character";
                foundLine = -1;
            }
            i++;
        }
        boolean lf = i < end && (i == 0 || msg[i - 1] != '\r');
        int lineStart = i + 1;
        int sectionEnd = end;
        while (true) {
            if (lineStart >= end) {
                if (found == null) {
                    found = "no_blank_line";
                    foundLine = lines;
                }
                break;
            }
            byte first = msg[lineStart];
            if (first == '\r' || first == '\n') {
                sectionEnd = lineStart;
                lf |= first == '\n';
                if (found == null && first == '\r' && !(lineStart + 1 < end && msg[lineStart + 1] == '\n')) {
                    // a line of CR alone: a header line with no name to the parse
                    found = "header_name";
                    foundLine = lines;
                }
                break;
            }
            // the name as a strict reader takes it: a token, optional blanks, a colon
            int tokenEnd = lineStart;
            while (tokenEnd < end && tokenChar(msg[tokenEnd])) {
                tokenEnd++;
            }
            int colon = tokenEnd;
            while (colon < end && (msg[colon] == ' ' || msg[colon] == '\t')) {
                colon++;
            }
            int eol;
            int valueEnd = -1;
            boolean lineControl = false;
            if (tokenEnd > lineStart && colon < end && msg[colon] == ':') {
                // the plain form (nearly every line): one walk over the value that stops only at the
                // bytes below U+0020 and at DEL, with the same outcome as the general walk below
                eol = colon + 1;
                // eight bytes at a time while none is below U+0020 or DEL (bytes of UTF-8 sequences pass)
                while (eol + 8 <= end) {
                    long w = (long) LONGS.get(msg, eol);
                    long del = w ^ 0x7f7f7f7f7f7f7f7fL;
                    long below = (w - 0x2020202020202020L) & ~w;
                    long isDel = (del - 0x0101010101010101L) & ~del;
                    if (((below | isDel) & 0x8080808080808080L) != 0) {
                        break;
                    }
                    eol += 8;
                }
                while (eol < end) {
                    byte b = msg[eol];
                    if (b >= 0 && b < 0x20 || b == 0x7f) {
                        if (b == '\n') {
                            break;
                        }
                        if (b == '\r') {
                            if (valueEnd < 0) {
                                valueEnd = eol;
                            }
                            lineControl |= !(eol + 1 < end && msg[eol + 1] == '\n');
                        } else if (b != '\t') {
                            lineControl = true;
                        }
                    }
                    eol++;
                }
            } else {
                // any other line: the first colon, wherever it is, ends the name as the scanning readers took it
                colon = -1;
                eol = lineStart;
                while (eol < end && msg[eol] != '\n') {
                    byte b = msg[eol];
                    if (b == ':' && colon < 0) {
                        colon = eol;
                    } else if (colon >= 0 && control(b) && b != '\t' && !(b == '\r' && eol + 1 < end && msg[eol + 1] == '\n')) {
                        lineControl = true;
                    }
                    if (b == '\r' && valueEnd < 0 && colon >= 0) {
                        valueEnd = eol;
                    }
                    eol++;
                }
            }
            if (valueEnd < 0) {
                valueEnd = eol;
            }
            lf |= eol < end && msg[eol - 1] != '\r';
            int id = NO_NAME;
            int nameEnd = lineStart;
            if (colon >= 0) {
                nameEnd = colon;
                while (nameEnd > lineStart && (msg[nameEnd - 1] == ' ' || msg[nameEnd - 1] == '\t')) {
                    nameEnd--;
                }
                id = known(msg, lineStart, nameEnd);
            }
            if (found == null) {
                if (first == ' ' || first == '\t') {
                    found = "folded_line";
                } else if (tokenEnd == lineStart || colon < 0 || !blanks(msg, tokenEnd, colon)) {
                    found = "header_name";
                } else if (lineControl) {
                    found = "control_character";
                } else if (eol >= end) {
                    found = "no_blank_line";
                }
                if (found != null) {
                    foundLine = lines;
                }
            }
            add(lineStart, nameEnd, colon < 0 ? eol : colon + 1, valueEnd, id);
            if (id >= 0 && firsts[id] < 0) {
                firsts[id] = lines - 1;
            }
            if (id >= 0 && ++counts[id] > 1 && found == null && readOnce(id)) {
                found = "duplicate_header";
                foundLine = lines - 1;
            }
            lineStart = eol + 1;
        }
        this.bareLf = lf;
        this.headerEnd = sectionEnd;
        this.structural = found;
        this.structuralLine = foundLine;
    }

    /** The index of {@code msg}, built in one pass. The array is kept, not copied: it must not change. */
    public static SipHead of(byte[] msg) {
        return new SipHead(msg);
    }

    /** The bytes indexed. */
    public byte[] bytes() {
        return msg;
    }

    private void add(int start, int nameEnd, int valueStart, int valueEnd, int id) {
        if (lines == ids.length) {
            ids = Arrays.copyOf(ids, lines * 2);
            offsets = Arrays.copyOf(offsets, lines * 8);
        }
        offsets[4 * lines] = start;
        offsets[4 * lines + 1] = nameEnd;
        offsets[4 * lines + 2] = valueStart;
        offsets[4 * lines + 3] = valueEnd;
        ids[lines++] = id;
    }

    private static boolean readOnce(int id) {
        for (int h : READ_ONCE) {
            if (h == id) {
                return true;
            }
        }
        return false;
    }

    /** The {@link #KNOWN} index of the name {@code msg[start, end)}, compact forms folded, or {@link #UNKNOWN}. */
    private static int known(byte[] msg, int start, int end) {
        int n = end - start;
        if (n == 1) {
            int c = lower(msg[start]);
            return c >= 'a' && c <= 'z' ? COMPACT[c - 'a'] : UNKNOWN;
        }
        if (n >= BY_LENGTH.length) {
            return UNKNOWN;
        }
        for (int k : BY_LENGTH[n]) {
            byte[] name = KNOWN_BYTES[k];
            int i = 0;
            while (i < n && lower(msg[start + i]) == name[i]) {
                i++;
            }
            if (i == n) {
                return k;
            }
        }
        return UNKNOWN;
    }

    /** The {@link #KNOWN} index of a lower-case name (long or compact), or {@link #UNKNOWN}. */
    private static int known(String name) {
        Integer id = BY_NAME.get(name);
        return id == null ? UNKNOWN : id;
    }

    // ---- the structure

    /**
     * Why a reader of this index could read the message otherwise than JAIN-SIP's parse does, or
     * null when it is in the plain form read exactly: a start line at the first byte, every header
     * line a name that is an RFC 3261 token (§25.1) followed only by optional SP or HTAB and a
     * colon, no line folded (§7.3.1), no control character but HTAB before the line end (CRLF or
     * LF, §7.5), a blank line after the headers, none of Call-ID, From, To, CSeq, Max-Forwards and
     * Content-Length twice (long and compact forms counted together: the rule of exact names and
     * single headers every byte reader keeps), a From or To with at most one {@code tag}
     * parameter, a token, after an address free of quotes in its parameters, and a Content-Length,
     * if any, that is a number of at most 9 digits equal to the length of the body in these bytes.
     *
     * @return null, or the reason: {@code start_line}, {@code header_name}, {@code folded_line},
     *     {@code control_character}, {@code no_blank_line}, {@code duplicate_header}, {@code header_params}
     *     or {@code content_length}
     */
    public String irregularity() {
        if (!irregularityRead) {
            irregularityRead = true;
            irregularity = structural;
            // a From or To line before the first structural irregularity is read for its tags, in line order
            // (their tags read from the value as the typed accessors read it: every delimiter is ASCII,
            // so a byte outside it reads alike in either charset)
            int first = Math.min(firstOf(FROM) < 0 ? Integer.MAX_VALUE : firstOf(FROM),
                    firstOf(TO) < 0 ? Integer.MAX_VALUE : firstOf(TO));
            int second = Math.max(firstOf(FROM), firstOf(TO));
            if (first < structuralLine && tagCountOf(ids[first]) > 1
                    || second >= 0 && second != first && second < structuralLine && tagCountOf(ids[second]) > 1) {
                irregularity = "header_params";
            }
            // §18.3, §20.14: a Content-Length the parse refuses, or one that is not the length of the
            // body in these bytes (a datagram's bytes past it are dropped by the parse, too few refused):
            // a copy or an answer made from the bytes would carry or key on the message otherwise
            if (irregularity == null && counts[CONTENT_LENGTH] > 0 && contentLength() != msg.length - bodyStart()) {
                irregularity = "content_length";
            }
        }
        return irregularity;
    }

    /** Whether {@link #irregularity()} passes the message: the typed accessors are then exact. */
    public boolean regular() {
        return irregularity() == null;
    }

    /** The offset of the LF that ends header line {@code l}, or the message length. */
    private int lineEndAt(int l) {
        int i = offsets[4 * l + 3];
        while (i < msg.length && msg[i] != '\n') {
            i++;
        }
        return i;
    }

    /**
     * Whether the start line, every header line and the blank line end in CRLF (none in a bare LF):
     * what a copy written from the lines as they came needs (RFC 3261 §7).
     */
    public boolean crlfOnly() {
        return !bareLf && headerEnd < msg.length;
    }

    /** The start line as it came, one char per byte (ISO-8859-1), without its line end: for a copy, not a read. */
    public String startLineText() {
        int e = 0;
        while (e < msg.length && msg[e] != '\n') {
            e++;
        }
        if (e > 0 && e < msg.length && msg[e - 1] == '\r') {
            e--;
        }
        return new String(msg, 0, e, StandardCharsets.ISO_8859_1);
    }

    /**
     * Header line {@code l} as it came, one char per byte (ISO-8859-1, so a copy written back is
     * byte for byte what came, UTF-8 included), up to its first CR or LF: for a copy, not a read.
     */
    public String lineText(int l) {
        return new String(msg, offsets[4 * l], offsets[4 * l + 3] - offsets[4 * l], StandardCharsets.ISO_8859_1);
    }

    /**
     * The name of header line {@code l}, lower case, a compact form folded to its long form
     * ({@code v} reads {@code via}); "" for a line with no colon.
     */
    public String lineName(int l) {
        int id = ids[l];
        if (id >= 0) {
            return KNOWN[id];
        }
        return id == NO_NAME ? "" : new String(msg, offsets[4 * l], offsets[4 * l + 1] - offsets[4 * l],
                StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
    }

    /** Where header line {@code l} starts in the bytes. */
    int lineStart(int l) {
        return offsets[4 * l];
    }

    /** Where the line after header line {@code l} starts: just past its LF (the message length when it has none). */
    int lineNext(int l) {
        return Math.min(lineEndAt(l) + 1, msg.length);
    }

    /** Where the first header line starts: just past the start line's LF (the message length when it has none). */
    int startLineNext() {
        int e = 0;
        while (e < msg.length && msg[e] != '\n') {
            e++;
        }
        return Math.min(e + 1, msg.length);
    }

    /**
     * Header line {@code l} as written up to and including its colon, one char per byte: what a
     * copy that rewrites the line's value starts it with (the whole line when it has no colon).
     */
    public String lineNameText(int l) {
        return new String(msg, offsets[4 * l], offsets[4 * l + 2] - offsets[4 * l], StandardCharsets.ISO_8859_1);
    }

    /** Whether header line {@code l} is named {@code name} (lower case, long or compact; both forms alike). */
    public boolean lineIs(int l, String name) {
        int id = known(name);
        return id >= 0 ? ids[l] == id : ids[l] == UNKNOWN && nameIs(msg, offsets[4 * l], offsets[4 * l + 1], name);
    }

    /** The value of header line {@code l} as it came, one char per byte (ISO-8859-1), trimmed: for a copy, not a read. */
    public String lineValueText(int l) {
        int start = offsets[4 * l + 2];
        int end = offsets[4 * l + 3];
        while (start < end && blank(msg[start])) {
            start++;
        }
        while (end > start && blank(msg[end - 1])) {
            end--;
        }
        return new String(msg, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** The first header line named {@code name} (lower case, long or compact) at or after line {@code from}, or -1. */
    public int lineOf(String name, int from) {
        int id = known(name);
        for (int l = Math.max(from, 0); l < lines; l++) {
            if (id >= 0 ? ids[l] == id : ids[l] == UNKNOWN && nameIs(msg, offsets[4 * l], offsets[4 * l + 1], name)) {
                return l;
            }
        }
        return -1;
    }

    /** How many header lines the index holds (up to the end of the header section). */
    public int lineCount() {
        return lines;
    }

    /** Where the line that ends the header section starts (the blank line), or the message length. */
    public int headerEnd() {
        return headerEnd;
    }

    /**
     * Offset of the body: just past the blank line ending the headers (CRLF or a bare LF, §7.5), or
     * the message length when there is none.
     */
    public int bodyStart() {
        int i = headerEnd;
        while (i < msg.length) {
            if (msg[i] == '\n') {
                return i + 1;
            }
            if (msg[i] == '\r' && i + 1 < msg.length && msg[i + 1] == '\n') {
                return i + 2;
            }
            // a line of CR alone, not the blank line: on to the next line start
            while (i < msg.length && msg[i] != '\n') {
                i++;
            }
            i++;
        }
        return msg.length;
    }

    // ---- values by name

    /** How many header lines named {@code name} (lower case, long or compact; both forms count together). */
    public int count(String name) {
        int id = known(name);
        if (id >= 0) {
            return counts[id];
        }
        int n = 0;
        for (int l = 0; l < lines; l++) {
            if (ids[l] == UNKNOWN && nameIs(msg, offsets[4 * l], offsets[4 * l + 1], name)) {
                n++;
            }
        }
        return n;
    }

    /** The first value of a header ({@code name} lower case, long or compact), trimmed, or null. */
    public String value(String name) {
        int l = first(name);
        return l < 0 ? null : valueAt(l);
    }

    /** Every value of a header, in order, one per line (values a line joins with commas stay together). */
    public List<String> values(String name) {
        List<String> out = new ArrayList<>(2);
        int id = known(name);
        for (int l = 0; l < lines; l++) {
            if (id >= 0 ? ids[l] == id : ids[l] == UNKNOWN && nameIs(msg, offsets[4 * l], offsets[4 * l + 1], name)) {
                out.add(valueAt(l));
            }
        }
        return out;
    }

    private int first(String name) {
        int id = known(name);
        if (id >= 0) {
            return firstOf(id);
        }
        for (int l = 0; l < lines; l++) {
            if (ids[l] == UNKNOWN && nameIs(msg, offsets[4 * l], offsets[4 * l + 1], name)) {
                return l;
            }
        }
        return -1;
    }

    private int firstOf(int id) {
        return firsts[id];
    }

    /** The first value of the header with {@link #KNOWN} index {@code id}, trimmed, or null. */
    private String valueOf(int id) {
        int l = firsts[id];
        return l < 0 ? null : valueAt(l);
    }

    private String valueAt(int l) {
        int start = offsets[4 * l + 2];
        int end = offsets[4 * l + 3];
        while (start < end && blank(msg[start])) {
            start++;
        }
        while (end > start && blank(msg[end - 1])) {
            end--;
        }
        return new String(msg, start, end - start, StandardCharsets.UTF_8);
    }

    /** String.trim's blank: every byte up to U+0020 (the value ends before CR and LF anyway). */
    private static boolean blank(byte b) {
        return b >= 0 && b <= ' ';
    }

    // ---- the start line

    /** Whether the message starts with a status line's {@code SIP/2.0 }. */
    public boolean isResponse() {
        return msg.length > 8 && msg[0] == 'S' && msg[1] == 'I' && msg[2] == 'P' && msg[3] == '/' && msg[4] == '2'
                && msg[5] == '.' && msg[6] == '0' && msg[7] == ' ';
    }

    /**
     * The method of a request, read from its request line ({@code METHOD SP Request-URI SP
     * SIP/2.0}), or null for a response or anything else: only upper-case letters (at most 16)
     * before the first space count as a method here.
     */
    public String method() {
        if (!methodRead) {
            methodRead = true;
            int i = 0;
            while (i < msg.length && i <= 16 && msg[i] >= 'A' && msg[i] <= 'Z') {
                i++;
            }
            method = i > 0 && i < msg.length && msg[i] == ' ' ? knownMethod(i) : null;
        }
        return method;
    }

    /** The method's name without a new string for the methods a call brings. */
    private String knownMethod(int length) {
        for (String m : METHODS) {
            if (m.length() == length && startsWith(m)) {
                return m;
            }
        }
        return new String(msg, 0, length, StandardCharsets.US_ASCII);
    }

    private static final String[] METHODS = {"INVITE", "ACK", "BYE", "CANCEL", "OPTIONS", "REGISTER"};

    private boolean startsWith(String s) {
        if (msg.length < s.length()) {
            return false;
        }
        for (int k = 0; k < s.length(); k++) {
            if (msg[k] != s.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the start line, trimmed, ends in {@code SIP/2.0} in any case: the version of a
     * request as its parse reads it (the parser writes any version it takes as SIP/2.0, so the raw
     * line is read).
     */
    public boolean requestLineIsSip20() {
        int end = 0;
        while (end < msg.length && msg[end] != '\r' && msg[end] != '\n') {
            end++;
        }
        int start = 0;
        while (start < end && blank(msg[start])) {
            start++;
        }
        while (end > start && blank(msg[end - 1])) {
            end--;
        }
        if (end - start < 7) {
            return false;
        }
        for (int k = 0; k < 7; k++) {
            if (Character.toUpperCase((char) (msg[end - 7 + k] & 0xff)) != "SIP/2.0".charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first word of a request line as written, up to {@code maxChars} bytes above U+0020
     * before a space, or null for a status line or a first line without one. Case is kept: the
     * overload guard counts and refuses a request line the parse may still take.
     */
    public String requestToken(int maxChars) {
        if (msg.length >= 4 && msg[0] == 'S' && msg[1] == 'I' && msg[2] == 'P' && msg[3] == '/') {
            return null;
        }
        int end = 0;
        while (end < msg.length && end < maxChars && msg[end] > ' ') {
            end++;
        }
        if (end == 0 || end >= msg.length || msg[end] != ' ') {
            return null;
        }
        String m = method();
        return m != null && m.length() == end ? m : new String(msg, 0, end, StandardCharsets.US_ASCII);
    }

    /**
     * The status code of a status line {@code SIP/2.0 DDD SP ...} with the code in 100-699
     * (RFC 3261 §7.2), or -1.
     */
    public int status() {
        if (!isResponse() || msg.length < 12 || msg[11] != ' ') {
            return -1;
        }
        int code = 0;
        for (int k = 8; k < 11; k++) {
            if (msg[k] < '0' || msg[k] > '9') {
                return -1;
            }
            code = code * 10 + (msg[k] - '0');
        }
        return code >= 100 && code <= 699 ? code : -1;
    }

    /**
     * The Request-URI of a request line {@code METHOD SP Request-URI SP SIP/2.0} with one space on
     * each side of the URI, as written, when it is a sip or sips URI with no empty parameter, or null.
     */
    public String requestUri() {
        String m = method();
        if (m == null) {
            return null;
        }
        int lineEnd = 0;
        while (lineEnd < msg.length && msg[lineEnd] != '\n') {
            lineEnd++;
        }
        if (lineEnd > 0 && msg[lineEnd - 1] == '\r') {
            lineEnd--;
        }
        int uriStart = m.length() + 1;
        int uriEnd = lineEnd - " SIP/2.0".length();
        if (uriEnd <= uriStart || !regionIs(uriEnd, " SIP/2.0")
                || !regionIs(uriStart, "sip:") && !regionIs(uriStart, "sips:")) {
            // a URI of another scheme the parse keeps as generic text, and may write otherwise; a
            // scheme not in lower case it writes in lower case
            return null;
        }
        int afterScheme = uriStart + (msg[uriStart + 3] == ':' ? 4 : 5);
        if (afterScheme >= uriEnd || !alphanumeric(msg[afterScheme]) && msg[afterScheme] != '[') {
            // "sip::x", "sip:@h": the parse reads an empty user or host and writes it as "null"
            return null;
        }
        for (int k = uriStart; k < uriEnd; k++) {
            // an empty parameter (";;", a ";" at the end) the parse drops when it writes the URI again
            if (msg[k] == ' ' || msg[k] == '\t' || msg[k] == ';' && (k + 1 == uriEnd || msg[k + 1] == ';')) {
                return null;
            }
        }
        return new String(msg, uriStart, uriEnd - uriStart, StandardCharsets.UTF_8);
    }

    private boolean regionIs(int at, String s) {
        if (at + s.length() > msg.length) {
            return false;
        }
        for (int k = 0; k < s.length(); k++) {
            if (msg[at + k] != s.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    // ---- typed fields

    /** The Call-ID value ({@code Call-ID} or {@code i}), or null. */
    public String callId() {
        if (!callIdRead) {
            callIdRead = true;
            callId = valueOf(CALL_ID);
        }
        return callId;
    }

    /** The top Via in the form {@link TopVia} reads, or null. */
    public TopVia topVia() {
        if (!topViaRead) {
            topViaRead = true;
            int l = firstOf(VIA);
            topVia = l < 0 ? null : TopVia.of(valueAt(l));
        }
        return topVia;
    }

    /** The From header's {@code tag} ({@link #tag}), or null. */
    public String fromTag() {
        readTags(FROM);
        return fromTag;
    }

    /** The To header's {@code tag} ({@link #tag}), or null. */
    public String toTag() {
        readTags(TO);
        return toTag;
    }

    /** {@link #tagCount} of the first From ({@code id} {@link #FROM}) or To line. */
    private int tagCountOf(int id) {
        readTags(id);
        return id == FROM ? fromTagCount : toTagCount;
    }

    /** Reads the tag and the tag count of the first From or To line, once. */
    private void readTags(int id) {
        if ((id == FROM ? fromTagCount : toTagCount) >= 0) {
            return;
        }
        String value = valueOf(id);
        String params = value == null ? null : headerParams(value);
        String tag = value == null ? null : tagIn(params);
        int count = value == null ? 0 : countTagsIn(params);
        if (id == FROM) {
            fromTag = tag;
            fromTagCount = count;
        } else {
            toTag = tag;
            toTagCount = count;
        }
    }

    /** The CSeq value, trimmed, or null; read once. */
    private String cseq() {
        if (!cseqRead) {
            cseqRead = true;
            cseq = valueOf(CSEQ);
        }
        return cseq;
    }

    /** The number of a CSeq value {@code 1*10DIGIT LWS method} below 2^31 (RFC 3261 §8.1.1.5), or -1. */
    public long cseqNumber() {
        String cseq = cseq();
        int digits = cseq == null ? 0 : digits(cseq);
        if (digits == 0 || digits > 10 || cseqMethod(cseq, digits) == null) {
            return -1;
        }
        long n = Long.parseLong(cseq, 0, digits, 10);
        return n < 1L << 31 ? n : -1;
    }

    /** The method of a CSeq value in the form {@link #cseqNumber} reads, or null. */
    public String cseqMethod() {
        String cseq = cseq();
        int digits = cseq == null ? 0 : digits(cseq);
        return digits == 0 || digits > 10 ? null : cseqMethod(cseq, digits);
    }

    private static String cseqMethod(String cseq, int digits) {
        if (digits == cseq.length() || cseq.charAt(digits) != ' ' && cseq.charAt(digits) != '\t') {
            return null;
        }
        String m = cseq.substring(digits).trim();
        return token(m) ? m : null;
    }

    private static int digits(String s) {
        int d = 0;
        while (d < s.length() && s.charAt(d) >= '0' && s.charAt(d) <= '9') {
            d++;
        }
        return d;
    }

    /** The Max-Forwards value, 1 to 3 digits and at most 255 (RFC 3261 §20.22), or -1 (none, or another form). */
    public int maxForwards() {
        return number(valueOf(MAX_FORWARDS), 3, 255);
    }

    /** The Content-Length value, 1 to 9 digits, or -1 (none, or another form). */
    public int contentLength() {
        return number(valueOf(CONTENT_LENGTH), 9, Integer.MAX_VALUE);
    }

    /** The values of the Route lines, in order (RFC 3261 §20.34). */
    public List<String> routes() {
        return counts[ROUTE] == 0 ? List.of() : values("route");
    }

    /**
     * A decimal number of 1 to {@code maxDigits} digits (at most 9) and at most {@code max}, or -1:
     * the one reader of a header's number on the byte paths.
     */
    public static int number(String s, int maxDigits, int max) {
        if (s == null || s.isEmpty() || s.length() > maxDigits) {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n <= max ? n : -1;
    }

    // ---- From and To parameters

    /**
     * The {@code tag} parameter of a From or To value (RFC 3261 §20.20, §20.39), or null when it
     * has none: the parameters after the {@code >} that closes the URI of a name-addr, or after
     * the first semicolon of an addr-spec (§20: a URI with parameters is in angle brackets).
     * Exact for a message {@link #irregularity()} passed, whose From and To have one tag at most.
     */
    public static String tag(String value) {
        return tagIn(headerParams(value));
    }

    /** {@link #tag} of a From or To value's header parameters ({@link #headerParams}), or null when they are. */
    private static String tagIn(String params) {
        if (params == null) {
            return null;
        }
        for (int start = 0; start <= params.length(); ) {
            int end = params.indexOf(';', start);
            end = end < 0 ? params.length() : end;
            int eq = params.indexOf('=', start);
            if (eq > start && eq < end && isTag(params, start, eq)) {
                int ts = trimStart(params, eq + 1, end);
                int te = trimEnd(params, ts, end);
                return te == ts ? null : params.substring(ts, te);
            }
            start = end + 1;
        }
        return null;
    }

    /**
     * How many {@code tag} parameters a From or To value has; 2 (as for a repeat) when its
     * parameters are not in the plain form {@link #tag} reads: a quote, an angle bracket, a
     * question mark or a comma, or a tag that is not one token.
     */
    static int tagCount(String value) {
        return countTagsIn(headerParams(value));
    }

    /** {@link #tagCount} of a From or To value's header parameters ({@link #headerParams}). */
    private static int countTagsIn(String params) {
        if (params == null) {
            return 2;
        }
        int tags = 0;
        for (int start = 0; start <= params.length(); ) {
            int end = start;
            while (end < params.length() && params.charAt(end) != ';') {
                char c = params.charAt(end);
                if (c == '"' || c == '<' || c == '>' || c == '?' || c == ',') {
                    return 2;
                }
                end++;
            }
            int eq = params.indexOf('=', start);
            eq = eq < 0 || eq > end ? -1 : eq;
            if (isTag(params, start, eq >= 0 ? eq : end)) {
                int ts = eq >= 0 ? trimStart(params, eq + 1, end) : end;
                int te = trimEnd(params, ts, end);
                if (te == ts || !token(params, ts, te)) {
                    return 2;
                }
                tags++;
            }
            start = end + 1;
        }
        return tags;
    }

    /** Whether {@code s} from {@code start} to {@code end}, trimmed, is {@code tag} in any case. */
    private static boolean isTag(String s, int start, int end) {
        int ns = trimStart(s, start, end);
        int ne = trimEnd(s, ns, end);
        return ne - ns == 3 && s.regionMatches(true, ns, "tag", 0, 3);
    }

    /** Where {@code s} from {@code from} to {@code to} starts once trimmed as String.trim trims (every char up to U+0020). */
    public static int trimStart(String s, int from, int to) {
        while (from < to && s.charAt(from) <= ' ') {
            from++;
        }
        return from;
    }

    /** Where {@code s} from {@code from} to {@code to} ends once trimmed as String.trim trims. */
    public static int trimEnd(String s, int from, int to) {
        while (to > from && s.charAt(to - 1) <= ' ') {
            to--;
        }
        return to;
    }

    /**
     * The header parameters of a From or To value, from the semicolon that starts them ("" when
     * there are none), or null when the value's address cannot be told apart: an unclosed quote
     * or angle bracket, or an addr-spec with a quote, a question mark or a comma, or a scheme other
     * than sip or sips.
     */
    private static String headerParams(String value) {
        boolean quoted = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (quoted) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    quoted = false;
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == '<') {
                int close = value.indexOf('>', i);
                // the parse refuses a name-addr whose URI holds other characters than a URI's
                // (RFC 3261 §25.1, RFC 3986 §2): such a From or To is not read here
                return close < 0 || !uriChars(value, i + 1, close) ? null : value.substring(close + 1);
            }
        }
        String uri = value.trim();
        if (quoted || value.indexOf('"') >= 0 || !uri.regionMatches(true, 0, "sip:", 0, 4)
                && !uri.regionMatches(true, 0, "sips:", 0, 5)) {
            // the parse reads the parameters of an addr-spec of another scheme as the URI's
            return null;
        }
        int semi = value.indexOf(';');
        String addr = semi >= 0 ? value.substring(0, semi) : value;
        if (addr.indexOf('?') >= 0 || addr.indexOf(',') >= 0) {
            // RFC 3261 §20: such a URI goes in angle brackets; the parse takes what follows '?' as its headers
            return null;
        }
        return semi >= 0 ? value.substring(semi) : "";
    }

    // ---- characters

    /** Whether {@code s} from {@code start} to {@code end} is non-empty and holds only a URI's characters (RFC 3986 §2). */
    private static boolean uriChars(String s, int start, int end) {
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || "-_.!~*'()%;/?:@&=+$,[]#".indexOf(c) >= 0)) {
                return false;
            }
        }
        return end > start;
    }

    /** Whether {@code s} from {@code from} to {@code to} is a non-empty RFC 3261 token. */
    private static boolean token(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c > 0x7e || !tokenChar((byte) c)) {
                return false;
            }
        }
        return to > from;
    }

    /** Whether {@code s} is a non-empty RFC 3261 token. */
    static boolean token(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0x7e || !tokenChar((byte) c)) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    /** RFC 3261 §25.1: token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~"). */
    private static boolean tokenChar(byte b) {
        return b >= 0 && TOKEN[b];
    }

    /** RFC 3261 §25.1 token characters, by ASCII code. */
    private static final boolean[] TOKEN = new boolean[128];

    static {
        for (char c = 0; c < 128; c++) {
            TOKEN[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-.!%*_+`'~".indexOf(c) >= 0;
        }
    }

    private static boolean control(byte b) {
        return b >= 0 && b < 0x20 || b == 0x7f;
    }

    private static boolean blanks(byte[] msg, int from, int to) {
        for (int i = from; i < to; i++) {
            if (msg[i] != ' ' && msg[i] != '\t') {
                return false;
            }
        }
        return true;
    }

    private static boolean alphanumeric(byte b) {
        return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9';
    }

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
    }

    /** Whether the bytes from {@code start} to {@code end} spell the lower-case {@code name}, in any case. */
    private static boolean nameIs(byte[] msg, int start, int end, String name) {
        if (end - start != name.length()) {
            return false;
        }
        for (int k = 0; k < name.length(); k++) {
            if (lower(msg[start + k]) != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }
}
