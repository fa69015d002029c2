package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.CallID;
import gov.nist.javax.sip.header.Contact;
import gov.nist.javax.sip.header.ContentLength;
import gov.nist.javax.sip.header.Expires;
import gov.nist.javax.sip.header.From;
import gov.nist.javax.sip.header.MaxForwards;
import gov.nist.javax.sip.header.RequestLine;
import gov.nist.javax.sip.header.Route;
import gov.nist.javax.sip.header.StatusLine;
import gov.nist.javax.sip.header.To;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.Set;
import javax.sip.InvalidArgumentException;
import org.sipcrypt.server.transport.SipBytes;
import org.sipcrypt.server.transport.SipHead;

/**
 * The checks a received message passes before the transaction layer sees it, on its raw bytes
 * and as JAIN-SIP parses it: which header parse errors fail the message, a datagram shorter than
 * its Content-Length (RFC 3261 §18.3), single-instance headers given twice (§7.3.1, RFC 4475),
 * the SIP version of the request line, and the headers every message needs.
 * Threading: immutable (static methods only); {@link ParseErrors} is one per parse.
 */
final class SipMessageChecks {

    /** Header classes without which a message cannot be handled: a parse error in one fails the message. */
    private static final Set<Class<?>> ESSENTIAL = Set.of(From.class, To.class, CSeq.class, Via.class,
            CallID.class, ContentLength.class, RequestLine.class, StatusLine.class, MaxForwards.class,
            Contact.class, Expires.class, Route.class);

    private SipMessageChecks() {
    }

    /**
     * The Max-Forwards a parsed request that came without one is given (the stack's checks require
     * the header): 71, so that the copy the proxy forwards, decremented by one, carries the 70 RFC 3261
     * §16.6 step 3 asks for a request that had none, as the early relay's copy does. Nothing else reads
     * the value but the test for 0.
     */
    static MaxForwards defaultMaxForwards() {
        try {
            return new MaxForwards(71);
        } catch (InvalidArgumentException e) {
            throw new IllegalStateException("Max-Forwards 71 refused", e);
        }
    }

    /** RFC 3261 §18.3: a datagram holding fewer body bytes than its Content-Length says. */
    static boolean contentLengthExceedsDatagram(SipHead head) {
        byte[] bytes = head.bytes();
        String cl = head.value("content-length");
        if (cl == null || cl.isEmpty() || cl.equals("0")) {
            return false;
        }
        try {
            // RFC 3261 §7.5: the headers may end in a bare LF, as the parse reads them
            return Long.parseLong(cl) > bytes.length - head.bodyStart();
        } catch (NumberFormatException e) {
            // not a number: the parser rejects it next, naming the Content-Length header
            return false;
        }
    }

    /**
     * Headers a message may carry once (RFC 3261 §7.3.1, §20): long and compact names, and whether
     * repeats with the same value are tolerated (only Content-Length's are).
     */
    private static final String[][] SINGLE_INSTANCE = {
        {"call-id", "i", "Call-ID"}, {"cseq", null, "CSeq"}, {"from", "f", "From"}, {"to", "t", "To"},
        {"max-forwards", null, "Max-Forwards"}, {"content-length", "l", "Content-Length"},
    };

    /**
     * The name of a single-instance header the message carries twice (Content-Length: with different
     * values), or null. One pass over the header section; the values are read only for a repeated
     * Content-Length.
     */
    static String duplicatedHeader(SipHead head) {
        int[] counts = SipBytes.headerCounts(head, SINGLE_INSTANCE);
        for (int i = 0; i < SINGLE_INSTANCE.length; i++) {
            if (counts[i] < 2) {
                continue;
            }
            String[] h = SINGLE_INSTANCE[i];
            if (!h[0].equals("content-length") || head.values(h[0]).stream()
                    .map(String::trim).distinct().count() > 1) {
                return h[2];
            }
        }
        return null;
    }

    /** The first of Via, From, To, Call-ID and CSeq the message lacks. */
    static String missingHeader(SIPMessage m) {
        if (m.getTopmostVia() == null) {
            return "Via";
        }
        if (m.getFrom() == null) {
            return "From";
        }
        if (m.getTo() == null) {
            return "To";
        }
        return m.getCallId() == null ? "Call-ID" : "CSeq";
    }

    /**
     * Decides which header parse errors fail the message (the essential headers) and which leave
     * the header unparsed; remembers the first failing header for the 400 reason phrase.
     * Threading: one per parse.
     */
    static final class ParseErrors implements ParseExceptionListener {
        String failedHeader;

        @Override
        @SuppressWarnings("rawtypes")
        public void handleException(ParseException ex, SIPMessage message, Class headerClass, String header,
                                    String text) throws ParseException {
            if (headerClass == null || ESSENTIAL.contains(headerClass)) {
                if (failedHeader == null) {
                    failedHeader = headerClass == null ? headerName(header) : headerClass.getSimpleName();
                }
                throw ex;
            }
            message.addUnparsed(header);
        }

        private static String headerName(String header) {
            if (header == null) {
                return null;
            }
            int colon = header.indexOf(':');
            String name = colon > 0 ? header.substring(0, colon).trim() : header;
            return name.length() > 32 ? name.substring(0, 32) : name;
        }
    }
}
