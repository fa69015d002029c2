package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.StringMsgParserFactory;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.sipcrypt.server.transport.BadRequestResponse;
import org.sipcrypt.server.transport.SipBytes;
import org.sipcrypt.server.transport.TopVia;

/**
 * A seeded mutation fuzzer for the bytes-to-message path of a stream connection: the
 * {@link SipStreamFramer} in an {@link EmbeddedChannel}, then the parse-and-validate steps of
 * {@link NettyMessageChannel#receive} (JAIN-SIP's {@code StringMsgParser} from the stack's default
 * parser factory, the same essential-header rule ({@link SipMessageChecks.ParseErrors}),
 * {@link SipMessageChecks#duplicatedHeader},
 * {@code checkHeaders}) and {@link BadRequestResponse#build}. Seeds are the SIP messages under
 * {@code src/test/resources/sip/} (RFC 4475 torture-test style cases among them); input {@code i} of
 * seed {@code s} is a pure function of {@code (s, i)}, so any input can be replayed alone and a long
 * run can be split into ranges.
 *
 * <p>Invariants checked on every input, fed whole and in random-sized chunks:
 * <ul>
 *   <li>no exception leaves the pipeline (none would reach an event loop);</li>
 *   <li>every framed message is at most {@code maxMessageBytes} and is the input's next bytes after
 *       skipped CR/LF, in order; nothing follows a framing error, of which there is at most one;</li>
 *   <li>bytes neither framed nor refused never exceed {@code maxMessageBytes} (nothing unbounded is
 *       buffered);</li>
 *   <li>every buffer allocated for the channel is released when it closes (checked by reference
 *       count after each input, which, unlike the leak detector, does not wait for a GC);</li>
 *   <li>framing is the same whole and chunked;</li>
 *   <li>parsing throws nothing but {@link ParseException}; a parsed message's accessors used by the
 *       server and its encoding do not throw; {@code BadRequestResponse.build} returns null or a
 *       4xx/5xx response with CRLF line ends only, ending in an empty line;</li>
 *   <li>where {@link SipBytes#irregularity} lets the byte readers act on a message the parse
 *       accepts, they read its Call-ID, From and To tags, CSeq and top Via as the parse does
 *       (the differential check, counted as {@code readers.agree} and {@code readers.declined}).</li>
 * </ul>
 * A violation is an {@link AssertionError} naming the seed, the input's index, the properties that
 * replay it and the input itself, escaped.
 *
 * <p>Short run: {@code SipInputFuzzTest} in {@code ./mvnw verify} (seed 4475, 20,000 inputs). Long
 * run (10 million inputs, the documented command):
 * <pre>
 * ./mvnw -q -pl server test -Dtest=SipInputFuzzTest -Dfuzz.seed=4475 -Dfuzz.inputs=10000000 -Dfuzz.threads=2
 * </pre>
 * {@code -Dfuzz.threads=N} spreads the inputs over N threads (the inputs are the same whatever N);
 * {@code -Dfuzz.start=N} starts at input N (replaying one input is {@code -Dfuzz.start=N -Dfuzz.inputs=1}).
 *
 * <p>Last long run, 2026-11-24, seed 4475, two threads on a 2-core machine: 10,000,000 inputs in 305 s
 * (5 min 8 s with Maven), no invariant violated; 4,551,727 messages framed, 5,124,882 framing errors,
 * 5,512,651 messages parsed (2,995,860 passing every check), 7,693,749 answerable with a 400.
 * The differential check's first runs, 2026-11-28, two threads on a shared 2-core machine:
 * {@code -Dfuzz.seed=4475 -Dfuzz.start=20000 -Dfuzz.inputs=500000 -Dfuzz.threads=2} (64 s, 71,503
 * messages the byte readers act on, all read as the parse reads them; 79,274 declined to the parse),
 * and seed 45 inputs 0 to 701,770 in ranges; no invariant violated.
 * Threading: one instance per thread (not thread-safe).
 */
final class SipInputFuzzer {

    /** Settings of {@code SipInputFuzzTest}, read from system properties. */
    static final String SEED = "fuzz.seed";
    static final String START = "fuzz.start";
    static final String INPUTS = "fuzz.inputs";
    static final String THREADS = "fuzz.threads";

    /** The limits inputs are framed with: small ones reach OVERSIZE cheaply; the last is the server's default. */
    private static final int[] MAX_MESSAGE_BYTES = {256, 2048, 65_535};
    /** The largest UDP payload over IPv4. */
    private static final int MAX_DATAGRAM_BYTES = 65_507;

    private static final byte[][] TOKENS = bytes("\r\n", "\r\n\r\n", "\n", "\r", " ", "\t", ":", ";", ",", "<", ">",
            "\"", "\\", "%", "%00", "@", "[", "]", "=", "sip:", "sips:", "SIP/2.0", "SIP/2.0/TCP ", "z9hG4bK",
            ";tag=", ";branch=", ";received=", ";rport", "Content-Length: ", "l: ", "Via: ", "v: ", "CSeq: ",
            "Call-ID: ", "i: ", "From: ", "To: ", "\r\n ", "\r\n\t", "\u0000", "\u00ff", "\u00c3\u00a9",
            "\u00ef\u00bb\u00bf", "INVITE", "ACK", "4294967296", "-1", "0");
    private static final byte[][] CONTENT_LENGTHS = bytes("0", "-1", "1", "+5", " 7", "99999999999", "2147483648",
            "65536", "4294967295", "abc", "", "12a", "0x10", "1e3", "007", "1, 2");

    /** A CSeq value in the form the byte readers take: a number below 2^31, blanks, a method. */
    private static final Pattern CSEQ = Pattern.compile("([0-9]{1,10})[ \t]+([A-Za-z]+)");
    private static final Pattern CONTENT_LENGTH_LINE = Pattern.compile("(?im)^(content-length|l)[ \t]*:[^\r\n]*");

    private final List<byte[]> seeds;
    private final MessageParser parser = new StringMsgParserFactory().createMessageParser(null);
    private final Map<String, Long> outcomes = new TreeMap<>();
    /** What is being checked now, for a failure raised from another thread (a timeout). */
    private volatile Current current;

    private record Current(long seed, long index, byte[] input) {
    }

    SipInputFuzzer(List<byte[]> seeds) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("seeds: none");
        }
        this.seeds = List.copyOf(seeds);
    }

    /** The seed corpus: every {@code *.sip} file under {@code sip/} on the test class path, by name. */
    static List<byte[]> corpus() {
        URL dir = SipInputFuzzer.class.getResource("/sip/");
        if (dir == null) {
            throw new IllegalStateException("no sip/ directory on the class path");
        }
        try (Stream<Path> files = Files.list(Paths.get(dir.toURI()))) {
            List<byte[]> out = new ArrayList<>();
            for (Path f : files.filter(p -> p.toString().endsWith(".sip")).sorted().toList()) {
                out.add(Files.readAllBytes(f));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the seed corpus at " + dir, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("seed corpus at " + dir, e);
        }
    }

    /** Counts of what the inputs checked so far came to, by outcome. */
    Map<String, Long> outcomes() {
        return outcomes;
    }

    /** The input being checked (for a timeout's message). */
    String current() {
        Current c = current;
        return c == null ? "no input yet" : describe(c.seed(), c.index(), c.input());
    }

    /** Checks inputs {@code start} to {@code start + count - 1} of {@code seed}. */
    void run(long seed, long start, long count) {
        for (long i = start; i < start + count; i++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted before input " + i + " of seed " + seed);
            }
            SplittableRandom random = random(seed, i);
            byte[] input = mutate(random);
            int maxMessageBytes = MAX_MESSAGE_BYTES[random.nextInt(MAX_MESSAGE_BYTES.length)];
            current = new Current(seed, i, input);
            try {
                check(input, maxMessageBytes, random);
            } catch (Throwable t) {
                throw new AssertionError("fuzz input violates an invariant (maxMessageBytes " + maxMessageBytes
                        + "): " + t + "\n" + describe(seed, i, input), t);
            }
            count("inputs");
        }
    }

    /** Input {@code index} of {@code seed}: independent of every other input. */
    static SplittableRandom random(long seed, long index) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    }

    /** Checks one input, whole and chunked, framing then parsing; throws on a violated invariant. */
    void check(byte[] input, int maxMessageBytes, SplittableRandom random) {
        List<SipFrame> whole = frame(input, maxMessageBytes, new int[] {input.length});
        List<SipFrame> chunked = frame(input, maxMessageBytes, chunks(input.length, random));
        if (!describe(whole).equals(describe(chunked))) {
            throw new AssertionError("framed differently whole " + describe(whole) + " and chunked " + describe(chunked));
        }
        boolean parsedInput = false;
        for (SipFrame f : whole) {
            count("framed." + describe(f).replaceAll(" .*", ""));
            if (f instanceof SipFrame.Message m) {
                parsedInput |= Arrays.equals(m.bytes(), input);
                parseAndValidate(m.bytes());
            }
        }
        if (!parsedInput && input.length <= MAX_DATAGRAM_BYTES) {
            // what a datagram would carry: the same bytes unframed
            parseAndValidate(input);
        }
    }

    /** The frames of one stream fed in the given chunks, with the framing invariants checked. */
    private List<SipFrame> frame(byte[] input, int maxMessageBytes, int[] chunks) {
        TrackingAllocator alloc = new TrackingAllocator();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new SipStreamFramer(maxMessageBytes));
        List<SipFrame> out = new ArrayList<>();
        int pos = 0;
        for (int size : chunks) {
            ByteBuf chunk = alloc.heapBuffer(size);
            chunk.writeBytes(input, pos, size);
            pos += size;
            // EmbeddedChannel rethrows anything that reached the end of the pipeline
            ch.writeInbound(chunk);
            drain(ch, out);
        }
        // closing runs the framer's last decode and releases its cumulation
        ch.finish();
        drain(ch, out);
        int unreleased = alloc.unreleased();
        if (unreleased > 0) {
            throw new AssertionError(unreleased + " buffers not released after the channel closed");
        }
        checkFrames(input, maxMessageBytes, out);
        return out;
    }

    private static void drain(EmbeddedChannel ch, List<SipFrame> out) {
        for (Object o; (o = ch.readInbound()) != null; ) {
            out.add((SipFrame) o);
        }
    }

    private static void checkFrames(byte[] input, int maxMessageBytes, List<SipFrame> frames) {
        int cursor = 0;
        boolean failed = false;
        for (SipFrame f : frames) {
            if (failed) {
                throw new AssertionError("a frame after the framing error: " + describe(frames));
            }
            if (f instanceof SipFrame.Error) {
                failed = true;
            } else if (f instanceof SipFrame.Message m) {
                byte[] bytes = m.bytes();
                if (bytes.length > maxMessageBytes) {
                    throw new AssertionError("framed " + bytes.length + " bytes beyond " + maxMessageBytes);
                }
                cursor = skipLineEnds(input, cursor);
                if (bytes.length == 0 || !Arrays.equals(bytes, 0, bytes.length, input, cursor,
                        Math.min(input.length, cursor + bytes.length))) {
                    throw new AssertionError("framed message is not the input's next " + bytes.length
                            + " bytes at offset " + cursor);
                }
                cursor += bytes.length;
            }
        }
        if (!failed) {
            int held = input.length - skipLineEnds(input, cursor);
            if (held > maxMessageBytes) {
                throw new AssertionError(held + " bytes neither framed nor refused, beyond " + maxMessageBytes);
            }
        }
    }

    /** Keep-alives and stray line ends are skipped between messages (RFC 5626 §3.5.1, RFC 3261 §7.5). */
    private static int skipLineEnds(byte[] input, int from) {
        int i = from;
        while (i < input.length && (input[i] == '\r' || input[i] == '\n')) {
            i++;
        }
        return i;
    }

    /**
     * The steps of {@code NettyMessageChannel.receive} up to the transaction layer, and the 400 and
     * 505 answers it would build.
     */
    private void parseAndValidate(byte[] bytes) {
        checkAnswer(bytes, 400, "Bad From header");
        checkAnswer(bytes, 505, "Version Not Supported");
        SipMessageChecks.duplicatedHeader(org.sipcrypt.server.transport.SipHead.of(bytes));
        SIPMessage message;
        try {
            message = parser.parseSIPMessage(bytes, true, false, new SipMessageChecks.ParseErrors());
        } catch (ParseException e) {
            count("parse.refused");
            return;
        }
        if (message == null) {
            count("parse.empty");
            return;
        }
        count("parse.parsed");
        if (message.getTopmostVia() == null || message.getFrom() == null || message.getTo() == null
                || message.getCallId() == null || message.getCSeq() == null) {
            return;
        }
        if (message instanceof SIPRequest request) {
            request.getMethod().equalsIgnoreCase(request.getCSeq().getMethod());
            try {
                request.checkHeaders();
            } catch (ParseException e) {
                return;
            }
            request.getTopmostVia().getHost();
            request.getTopmostVia().hasParameter(Via.RPORT);
            request.getTopmostVia().getBranch();
            request.getTransactionId();
        } else {
            ((SIPResponse) message).getStatusCode();
        }
        message.getFirstLine();
        message.encodeAsBytes("TCP");
        count("parse.valid");
        checkReadersAgree(bytes, message);
    }

    /**
     * The differential check: where {@link SipBytes#irregularity} lets the byte readers act on a
     * message without its parse, they read the Call-ID, the From and To tags, the CSeq and the top
     * Via's branch and sent-by the parse reads (the CSeq where it is in the form {@code number SP
     * method} the readers take, the Via where {@link TopVia} reads it).
     */
    private void checkReadersAgree(byte[] bytes, SIPMessage message) {
        if (SipBytes.irregularity(bytes) != null) {
            count("readers.declined");
            return;
        }
        agree("Call-ID", SipBytes.callId(bytes), message.getCallId().getCallId());
        agree("From tag", SipBytes.tag(SipBytes.headerValue(bytes, "from", "f")), ((From) message.getFrom()).getTag());
        agree("To tag", SipBytes.tag(SipBytes.headerValue(bytes, "to", "t")), ((To) message.getTo()).getTag());
        Matcher cseq = CSEQ.matcher(SipBytes.headerValue(bytes, "cseq", null));
        if (cseq.matches()) {
            CSeq parsed = (CSeq) message.getCSeq();
            agree("CSeq", Long.parseLong(cseq.group(1)) + " " + cseq.group(2),
                    parsed.getSeqNumber() + " " + parsed.getMethod());
        }
        TopVia top = TopVia.read(bytes);
        if (top != null) {
            Via via = message.getTopmostVia();
            agree("top Via", top.branch() + " " + top.host() + ":" + top.port(),
                    via.getBranch() + " " + via.getHost() + ":" + via.getPort());
        }
        count("readers.agree");
    }

    private static void agree(String what, String bytes, String parsed) {
        // an empty value and none are the same to the readers (each refuses both)
        if (!java.util.Objects.equals(bytes == null || bytes.isEmpty() ? null : bytes,
                parsed == null || parsed.isEmpty() ? null : parsed)) {
            throw new AssertionError(what + " read from the bytes as " + bytes + ", parsed as " + parsed
                    + ", in a message SipBytes.irregularity lets the byte readers act on");
        }
    }

    private void checkAnswer(byte[] request, int status, String reason) {
        byte[] answer = BadRequestResponse.build(request, status, reason);
        if (answer == null) {
            return;
        }
        count("answer." + status);
        String text = new String(answer, StandardCharsets.ISO_8859_1);
        if (!text.startsWith("SIP/2.0 " + status + " ") || !text.endsWith("\r\n\r\n")) {
            throw new AssertionError("answer " + status + " is not a SIP response: " + escape(answer, 2_000));
        }
        for (int i = 0; i < answer.length; i++) {
            boolean bareCr = answer[i] == '\r' && (i + 1 == answer.length || answer[i + 1] != '\n');
            boolean bareLf = answer[i] == '\n' && (i == 0 || answer[i - 1] != '\r');
            if (bareCr || bareLf) {
                throw new AssertionError("answer " + status + " has a bare " + (bareCr ? "CR" : "LF")
                        + " at " + i + ": " + escape(answer, 2_000));
            }
        }
        if (text.indexOf("\r\n\r\n") != text.length() - 4) {
            throw new AssertionError("answer " + status + " has an empty line before its end: " + escape(answer, 2_000));
        }
    }

    private void count(String outcome) {
        outcomes.merge(outcome, 1L, Long::sum);
    }

    // ---- inputs

    /** One to eight mutations of one seed (sometimes of two seeds in a row on one stream). */
    byte[] mutate(SplittableRandom r) {
        byte[] b = seeds.get(r.nextInt(seeds.size()));
        if (r.nextInt(8) == 0) {
            b = concat(b, seeds.get(r.nextInt(seeds.size())));
        }
        int n = 1 + Integer.numberOfTrailingZeros(r.nextInt() | 0x80);
        for (int k = 0; k < n; k++) {
            b = mutateOnce(b, r);
        }
        return b;
    }

    private byte[] mutateOnce(byte[] b, SplittableRandom r) {
        if (b.length == 0) {
            return seeds.get(r.nextInt(seeds.size()));
        }
        int at = r.nextInt(b.length + 1);
        return switch (r.nextInt(16)) {
            case 0 -> {
                byte[] c = b.clone();
                int i = r.nextInt(c.length);
                c[i] ^= (byte) (1 << r.nextInt(8));
                yield c;
            }
            case 1 -> replace(b, at, at, new byte[] {(byte) r.nextInt(256)});
            case 2 -> replace(b, at, Math.min(b.length, at + 1 + r.nextInt(8)), new byte[0]);
            case 3 -> {
                int end = Math.min(b.length, at + 1 + r.nextInt(64));
                yield replace(b, end, end, Arrays.copyOfRange(b, Math.min(at, end), end));
            }
            case 4 -> {
                byte[] other = seeds.get(r.nextInt(seeds.size()));
                int from = r.nextInt(other.length + 1);
                yield concat(Arrays.copyOf(b, at), Arrays.copyOfRange(other, from, other.length));
            }
            case 5 -> {
                int[] line = line(b, r);
                yield replace(b, line[1], line[1], Arrays.copyOfRange(b, line[0], line[1]));
            }
            case 6 -> {
                int[] line = line(b, r);
                yield replace(b, line[0], line[1], new byte[0]);
            }
            case 7 -> lineEnds(b, r);
            case 8 -> contentLength(b, r);
            case 9 -> {
                int[] sizes = {100, 1_000, 10_000, 70_000};
                byte[] token = new byte[sizes[r.nextInt(sizes.length)]];
                Arrays.fill(token, (byte) "a;%<\"0 ".charAt(r.nextInt(7)));
                yield replace(b, at, at, token);
            }
            case 10 -> {
                byte[] high = new byte[1 + r.nextInt(4)];
                for (int i = 0; i < high.length; i++) {
                    high[i] = (byte) (r.nextBoolean() ? 0x80 + r.nextInt(128) : r.nextInt(32));
                }
                yield replace(b, at, at, high);
            }
            case 11 -> Arrays.copyOf(b, r.nextInt(b.length));
            case 12, 13 -> replace(b, at, at, TOKENS[r.nextInt(TOKENS.length)]);
            case 14 -> {
                // a header name or value replaced by a token
                int[] line = line(b, r);
                int cut = line[0] + r.nextInt(Math.max(1, line[1] - line[0]));
                yield replace(b, r.nextBoolean() ? line[0] : cut, r.nextBoolean() ? cut : line[1],
                        TOKENS[r.nextInt(TOKENS.length)]);
            }
            default -> {
                // a header line of one seed placed in another
                byte[] other = seeds.get(r.nextInt(seeds.size()));
                int[] line = line(other, r);
                int[] here = line(b, r);
                yield replace(b, here[0], here[0], Arrays.copyOfRange(other, line[0], line[1]));
            }
        };
    }

    /** A random line of {@code b}: {start, end} with end just past its LF (or the end of b). */
    private static int[] line(byte[] b, SplittableRandom r) {
        int start = r.nextInt(b.length + 1);
        while (start > 0 && b[start - 1] != '\n') {
            start--;
        }
        int end = start;
        while (end < b.length && b[end++] != '\n') {
            // to the end of the line
        }
        return new int[] {start, end};
    }

    /** CRLF to LF or LF to CRLF, at one place or everywhere. */
    private static byte[] lineEnds(byte[] b, SplittableRandom r) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        boolean all = r.nextBoolean();
        String out;
        if (r.nextBoolean()) {
            out = all ? s.replace("\r\n", "\n") : replaceOne(s, "\r\n", "\n", r);
        } else {
            out = all ? s.replace("\r\n", "\n").replace("\n", "\r\n") : replaceOne(s, "\r\n", "\r", r);
        }
        return out.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A Content-Length value (long or compact form) changed, or a second one added. */
    private static byte[] contentLength(byte[] b, SplittableRandom r) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        String value = new String(CONTENT_LENGTHS[r.nextInt(CONTENT_LENGTHS.length)], StandardCharsets.ISO_8859_1);
        Matcher m = CONTENT_LENGTH_LINE.matcher(s);
        if (r.nextInt(4) == 0 || !m.find()) {
            int end = s.indexOf("\r\n");
            int at = end < 0 ? s.length() : end + 2;
            return (s.substring(0, at) + (r.nextBoolean() ? "l: " : "Content-Length: ") + value + "\r\n"
                    + s.substring(at)).getBytes(StandardCharsets.ISO_8859_1);
        }
        return (s.substring(0, m.start()) + m.group(1) + ": " + value + s.substring(m.end()))
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String replaceOne(String s, String what, String with, SplittableRandom r) {
        int from = r.nextInt(s.length() + 1);
        int i = s.indexOf(what, from);
        if (i < 0) {
            i = s.indexOf(what);
        }
        return i < 0 ? s : s.substring(0, i) + with + s.substring(i + what.length());
    }

    /** Random chunk sizes summing to {@code length}: sometimes one byte each, as STYLE.md asks. */
    private static int[] chunks(int length, SplittableRandom r) {
        if (length == 0) {
            return new int[0];
        }
        if (length <= 2_048 && r.nextInt(32) == 0) {
            int[] ones = new int[length];
            Arrays.fill(ones, 1);
            return ones;
        }
        List<Integer> sizes = new ArrayList<>();
        int bound = 1 + r.nextInt(Math.max(1, length / 2));
        for (int left = length; left > 0; ) {
            int size = Math.min(left, 1 + r.nextInt(bound));
            sizes.add(size);
            left -= size;
        }
        return sizes.stream().mapToInt(Integer::intValue).toArray();
    }

    private static byte[] replace(byte[] b, int from, int to, byte[] with) {
        byte[] out = new byte[b.length - (to - from) + with.length];
        System.arraycopy(b, 0, out, 0, from);
        System.arraycopy(with, 0, out, from, with.length);
        System.arraycopy(b, to, out, from + with.length, b.length - to);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return replace(a, a.length, a.length, b);
    }

    private static byte[][] bytes(String... texts) {
        byte[][] out = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            out[i] = texts[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return out;
    }

    // ---- reports

    private static String describe(List<SipFrame> frames) {
        StringBuilder sb = new StringBuilder("[");
        for (SipFrame f : frames) {
            sb.append(describe(f)).append(", ");
        }
        return sb.append(']').toString();
    }

    private static String describe(SipFrame f) {
        if (f instanceof SipFrame.Message m) {
            return "message " + m.bytes().length + " #" + Arrays.hashCode(m.bytes());
        }
        if (f instanceof SipFrame.KeepAlive k) {
            return k.ping() ? "ping" : "pong";
        }
        return "error_" + ((SipFrame.Error) f).reason().tag();
    }

    private static String describe(long seed, long index, byte[] input) {
        return "seed " + seed + ", input " + index + " (replay: -D" + SEED + "=" + seed + " -D" + START + "=" + index
                + " -D" + INPUTS + "=1), " + input.length + " bytes:\n" + escape(input, 20_000);
    }

    /** Java-string style: printable ASCII as is, \r \n \t, other bytes as \xNN; at most {@code max} bytes. */
    static String escape(byte[] b, int max) {
        StringBuilder sb = new StringBuilder(Math.min(b.length, max) + 16);
        for (int i = 0; i < b.length && i < max; i++) {
            int c = b[i] & 0xff;
            switch (c) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n\n");
                case '\t' -> sb.append("\\t");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        sb.append((char) c);
                    } else {
                        sb.append(String.format("\\x%02x", c));
                    }
                }
            }
        }
        if (b.length > max) {
            sb.append("... (").append(b.length - max).append(" more bytes)");
        }
        return sb.toString();
    }

    /** Unpooled heap buffers whose reference counts can be checked once the channel is closed. */
    private static final class TrackingAllocator extends AbstractByteBufAllocator {
        private final List<ByteBuf> allocated = new ArrayList<>();

        TrackingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
            allocated.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return newHeapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }

        int unreleased() {
            int n = 0;
            for (ByteBuf b : allocated) {
                if (b.refCnt() > 0) {
                    n++;
                }
            }
            return n;
        }
    }
}
