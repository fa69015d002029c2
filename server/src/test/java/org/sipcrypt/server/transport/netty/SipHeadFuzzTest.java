package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.ContentLength;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.MaxForwards;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.StringMsgParser;
import gov.nist.javax.sip.parser.StringMsgParserFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.sip.header.RouteHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;

/**
 * Differential fuzzing of the header index: real INVITE, 180, 200, ACK and BYE messages (loopback
 * addresses only, under {@code src/test/resources/sip-head/}) are mutated with
 * {@link SipInputFuzzer}'s mutations, and wherever {@link SipHead} answers a field of a message
 * its {@link SipHead#irregularity} passes, the answer must equal JAIN-SIP's parse of the same bytes
 * (the parser and parse-error listener the transport uses); everywhere else the index declines.
 * Every build runs the default inputs (seed and count fixed, so each build checks the same ones);
 * {@code -Dsipcrypt.fuzz.inputs}, {@code -Dsipcrypt.fuzz.seed} and {@code -Dsipcrypt.fuzz.start}
 * change them for a long run or a replay.
 * Threading: test code; one thread.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SipHeadFuzzTest {

    private static final long SEED = Long.getLong("sipcrypt.fuzz.seed", 3261);
    private static final long START = Long.getLong("sipcrypt.fuzz.start", 0);
    private static final long INPUTS = Long.getLong("sipcrypt.fuzz.inputs", 20_000);
    private static final String[] SEEDS = {"invite.sip", "ringing180.sip", "ok200.sip", "ack.sip", "bye.sip",
        "bye-ok.sip", "bye-lf.sip"};

    private final MessageParser parser = new StringMsgParserFactory().createMessageParser(null);
    private final StringMsgParser uris = new StringMsgParser();
    private final Map<String, Long> outcomes = new TreeMap<>();

    static List<byte[]> seeds() throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (String name : SEEDS) {
            try (InputStream in = SipHeadFuzzTest.class.getResourceAsStream("/sip-head/" + name)) {
                out.add(Objects.requireNonNull(in, name).readAllBytes());
            }
        }
        return out;
    }

    @Test
    void theIndexAnswersWhatTheParseReadsOrDeclines() throws IOException {
        SipInputFuzzer mutator = new SipInputFuzzer(seeds());
        long started = System.nanoTime();
        for (long i = START; i < START + INPUTS; i++) {
            byte[] input = mutator.mutate(SipInputFuzzer.random(SEED, i));
            try {
                check(input);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("input " + i + " of seed " + SEED + " (replay: -Dsipcrypt.fuzz.seed=" + SEED
                        + " -Dsipcrypt.fuzz.start=" + i + " -Dsipcrypt.fuzz.inputs=1): " + e.getMessage() + "\n"
                        + escape(input), e);
            }
        }
        System.out.printf("sip-head fuzz: seed %d, inputs %d to %d: %s in %.1f s%n", SEED, START, START + INPUTS - 1,
                outcomes, (System.nanoTime() - started) / 1e9);
        if (INPUTS >= 10_000) {
            // the mutations reach both sides of the rule, or the test has stopped exploring
            assertTrue(outcomes.getOrDefault("compared", 0L) > INPUTS / 20, outcomes.toString());
            assertTrue(outcomes.getOrDefault("declined.irregular", 0L) > INPUTS / 20, outcomes.toString());
        }
    }

    @Test
    void everySeedIsRegularAndAgreesUnmutated() throws IOException {
        for (byte[] seed : seeds()) {
            SipHead head = SipHead.of(seed);
            assertEquals(null, head.irregularity(), new String(seed, StandardCharsets.UTF_8));
            check(seed);
        }
        assertEquals((long) SEEDS.length, outcomes.get("compared"), outcomes.toString());
    }

    /** Checks one input: every field the index answers equals the parse's, or the index declines. */
    private void check(byte[] input) {
        SipHead head = SipHead.of(input);
        if (!head.regular()) {
            count("declined.irregular");
            return;
        }
        SipMessageChecks.ParseErrors errors = new SipMessageChecks.ParseErrors();
        List<String> dropped = new ArrayList<>(1);
        // the transport's listener; what it lets the parse drop is recorded
        ParseExceptionListener listener = (ex, msg, headerClass, header, text) -> {
            errors.handleException(ex, msg, headerClass, header, text);
            dropped.add(header);
        };
        SIPMessage message;
        try {
            message = parser.parseSIPMessage(input, true, false, listener);
        } catch (ParseException | RuntimeException e) {
            // the transport answers 400 or drops such a message: what the index reads of it is never acted on alone
            count("parse.refused");
            return;
        }
        if (message == null) {
            count("parse.empty");
            return;
        }
        if (head.count("from") > 0 && message.getFrom() == null || head.count("to") > 0 && message.getTo() == null
                || head.count("call-id") > 0 && message.getCallId() == null
                || head.count("cseq") > 0 && message.getCSeq() == null
                || head.count("via") > 0 && message.getTopmostVia() == null || droppedARead(dropped)) {
            // the parse dropped a header the index reads as malformed (a From whose URI is not a
            // URI's, say): the index does not check URIs, so it reads what the parse refuses. The
            // transport drops such a message after its parse (missing header); a byte path that
            // acts on it acts where the stack would not. Counted, and reported by every run.
            count("parse.dropped_header");
            return;
        }
        count("compared");
        if (head.method() != null) {
            SIPRequest request = message instanceof SIPRequest r ? r : null;
            agree("request", true, request != null);
            agree("method", head.method(), request.getMethod());
            if (head.requestUri() != null) {
                // the same text read as the parse reads a URI: the parse writes a URI again in its own
                // form (a port's leading zeros dropped, say), so both sides are written by it
                String written;
                try {
                    written = uris.parseUrl(head.requestUri()).toString();
                } catch (ParseException e) {
                    written = "unparsable: " + e.getMessage();
                }
                agree("Request-URI", written, request.getRequestURI().toString());
            }
        }
        if (head.status() > 0) {
            agree("response", true, message instanceof SIPResponse);
            agree("status", head.status(), ((SIPResponse) message).getStatusCode());
        }
        if (head.callId() != null && !head.callId().isEmpty()) {
            agree("Call-ID", head.callId(), message.getCallId() == null ? null : message.getCallId().getCallId());
        }
        TopVia via = head.topVia();
        if (via != null) {
            Via parsed = message.getTopmostVia();
            agree("top Via", via.branch() + " " + via.host().toLowerCase() + ":" + via.port() + " rport " + via.rport(),
                    parsed == null ? null : parsed.getBranch() + " " + parsed.getHost().toLowerCase() + ":"
                            + parsed.getPort() + " rport " + parsed.hasParameter(Via.RPORT));
        }
        if (head.fromTag() != null) {
            agree("From tag", head.fromTag(), message.getFrom() == null ? null : ((From) message.getFrom()).getTag());
        }
        if (head.toTag() != null) {
            agree("To tag", head.toTag(), message.getTo() == null ? null : ((To) message.getTo()).getTag());
        }
        CSeq cseq = (CSeq) message.getCSeq();
        if (head.cseqNumber() >= 0) {
            agree("CSeq number", head.cseqNumber(), cseq == null ? null : cseq.getSeqNumber());
        }
        if (head.cseqMethod() != null) {
            agree("CSeq method", head.cseqMethod(), cseq == null ? null : cseq.getMethod());
        }
        if (head.maxForwards() >= 0) {
            MaxForwards mf = (MaxForwards) message.getHeader(MaxForwards.NAME);
            agree("Max-Forwards", head.maxForwards(), mf == null ? null : mf.getMaxForwards());
        }
        if (head.contentLength() >= 0 && head.bodyStart() + head.contentLength() == input.length) {
            // compared where the body is as long as the header says: the parse sets Content-Length to
            // the length of the body it kept, which the transport has checked before (SipMessageChecks)
            ContentLength cl = (ContentLength) message.getContentLength();
            agree("Content-Length", head.contentLength(), cl == null ? null : cl.getContentLength());
        }
        List<String> routes = head.routes();
        int parsedRoutes = 0;
        for (Iterator<?> it = message.getHeaders(RouteHeader.NAME); it.hasNext(); it.next()) {
            parsedRoutes++;
        }
        int entries = routeEntries(routes);
        if (entries >= 0) {
            agree("Route entries", entries, parsedRoutes);
        }
        agree("Route lines", head.count("route") > 0, parsedRoutes > 0);
    }

    private static final java.util.Set<String> READ = java.util.Set.of("via", "v", "from", "f", "to", "t", "call-id", "i",
            "cseq", "max-forwards", "content-length", "l", "route");

    /** Whether the parse kept a line of a header the index reads as unparsed text (a Via line one entry of which is malformed, say). */
    private static boolean droppedARead(List<String> dropped) {
        for (String line : dropped) {
            int colon = line.indexOf(':');
            if (colon > 0 && READ.contains(line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /**
     * How many name-addrs the Route values hold, split at commas outside angle brackets; -1 (not
     * compared) with a quote in them or an entry that is not {@code <uri>[;params]}, which the
     * relay's reading declines too.
     */
    private static int routeEntries(List<String> routes) {
        int n = 0;
        for (String value : routes) {
            if (value.indexOf('"') >= 0) {
                return -1;
            }
            boolean inUri = false;
            int start = 0;
            for (int i = 0; i <= value.length(); i++) {
                char c = i < value.length() ? value.charAt(i) : ',';
                inUri = c == '<' || (c != '>' && inUri);
                if (c == ',' && !inUri) {
                    if (!value.substring(start, i).trim().startsWith("<")) {
                        // empty, or not a name-addr: the relay reads only "<uri>[;params]" entries
                        return -1;
                    }
                    n++;
                    start = i + 1;
                }
            }
        }
        return n;
    }

    private static void agree(String what, Object index, Object parsed) {
        if (!Objects.equals(index, parsed)) {
            throw new AssertionError(what + ": the index reads " + index + ", the parse " + parsed);
        }
    }

    private void count(String outcome) {
        outcomes.merge(outcome, 1L, Long::sum);
    }

    private static String escape(byte[] input) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(input.length, 4_000); i++) {
            int b = input[i] & 0xff;
            if (b == '\n') {
                sb.append("\\n\n");
            } else if (b == '\r') {
                sb.append("\\r");
            } else if (b < 0x20 || b >= 0x7f) {
                sb.append(String.format("\\x%02x", b));
            } else {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }
}
