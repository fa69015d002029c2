package org.sipcrypt.jmh;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.MessageParserFactory;
import gov.nist.javax.sip.parser.StringMsgParserFactory;
import java.text.ParseException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.sipcrypt.server.transport.SipHead;

/**
 * JAIN-SIP's message parser and encoder on typical messages ({@link SipMessages}: REGISTER,
 * INVITE with SDP, 200 OK with SDP). {@code parse} is what the server's message channel does with
 * each framed message: the stack's parser factory (JAIN-SIP's default, {@link StringMsgParserFactory},
 * which the server keeps) and {@code parseSIPMessage(bytes, readBody=true, strict=false, ...)}.
 * {@code serialize} is how the server puts a message on the wire: {@code encodeAsBytes(transport)},
 * which encodes every header afresh each time. {@code index} is the transport's own reading of the
 * received bytes, which comes first ({@link SipHead}).
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
@State(Scope.Thread)
public class SipParseBenchmark extends BenchmarkDefaults {

    @Param({"register", "invite", "ok200"})
    public String message;

    private final MessageParserFactory parsers = new StringMsgParserFactory();
    private byte[] bytes;
    private SIPMessage parsed;
    private String transport;

    /** Parses the message once and checks that what is encoded parses back to the same message. */
    @Setup(Level.Trial)
    public void read() throws ParseException {
        bytes = SipMessages.bytes(message);
        parsed = parse();
        transport = parsed.getTopmostVia().getTransport();
        SIPMessage again = parsers.createMessageParser(null).parseSIPMessage(serialize(), true, false, null);
        if (!again.equals(parsed) || parsed.getContentLength().getContentLength() != (parsed.getRawContent() == null ? 0 : parsed.getRawContent().length)) {
            throw new IllegalStateException(message + ": encoding and parsing again changed the message");
        }
    }

    @Benchmark
    public SIPMessage parse() throws ParseException {
        return parsers.createMessageParser(null).parseSIPMessage(bytes, true, false, null);
    }

    /**
     * What the server's transport does with every received message before anything else: the one
     * index of its start line and header lines ({@link SipHead}), and the Call-ID that picks its lane.
     */
    @Benchmark
    public String index() {
        return SipHead.of(bytes).callId();
    }

    @Benchmark
    public byte[] serialize() {
        return parsed.encodeAsBytes(transport);
    }
}
