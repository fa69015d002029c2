package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.StringMsgParserFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The fast path and the stack agree (the fast-path issue's invariant): the same in-dialog ACKs and
 * BYEs, in the forms the relays take from their bytes (a route set, none, no Max-Forwards, compact
 * names, two Via lines, a body), are sent through two real servers, one with {@code sip.fastPath}
 * on and one with it off, over UDP; what reaches the next hop from each, and the BYE's 200 that
 * comes back to the caller, are parsed by JAIN-SIP and compared header by header. They must be
 * the same message apart from the one field the two paths may write differently: the branch of the
 * proxy's own Via (stateless on the fast path, the stack's transaction branch otherwise). The
 * fast-path server's counters prove the fast path carried them.
 * Threading: JUnit's test thread.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FastPathAgreesWithTheStackIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void inDialogRequestsAndTheirAnswersLeaveBothPathsAlike() throws Exception {
        try (TestServer fast = TestServer.start(dir.resolve("fast"), "sip.fastPath", "on");
             TestServer stack = TestServer.start(dir.resolve("stack"), "sip.fastPath", "off");
             SipSink fastSink = SipSink.start();
             SipSink stackSink = SipSink.start();
             SipSocket fastCaller = SipSocket.udp(fast.address(Transport.UDP));
             SipSocket stackCaller = SipSocket.udp(stack.address(Transport.UDP))) {
            Side f = new Side(fast, fastSink, fastCaller);
            Side s = new Side(stack, stackSink, stackCaller);
            int n = 0;
            for (Form form : FORMS) {
                n++;
                String callId = "agree-" + n;
                f.caller.send(form.write(f, callId));
                s.caller.send(form.write(s, callId));
                int count = n;
                Await.until(() -> f.sink.requests().size() == count && s.sink.requests().size() == count, WAIT,
                        () -> form.name + ": fast " + f.sink.requestLines() + ", stack " + s.sink.requestLines());
                assertEquals(normalised(s, s.sink.requests().get(n - 1)), normalised(f, f.sink.requests().get(n - 1)),
                        form.name + ": what the next hop received");
                if (form.method.equals("BYE")) {
                    String fastOk = f.caller.awaitMessage("SIP/2.0 200", WAIT);
                    String stackOk = s.caller.awaitMessage("SIP/2.0 200", WAIT);
                    assertNotNull(fastOk, form.name + ": the 200 came back through the fast path");
                    assertNotNull(stackOk, form.name + ": the 200 came back through the stack");
                    assertEquals(normalised(s, stackOk), normalised(f, fastOk), form.name + ": the 200 the caller received");
                }
            }
            double relayed = fast.server().transportCounters().value("sip.requests.relayed_early");
            assertEquals(FORMS.size(), relayed, "the fast path relayed every request");
            assertEquals(0.0, stack.server().transportCounters().value("sip.requests.relayed_early"),
                    "the stack relayed every request");
            assertEquals(FORMS.stream().filter(x -> x.method.equals("BYE")).count(),
                    fast.server().transportCounters().value("sip.responses.relayed_early"),
                    "the fast path relayed every 200");
        }
    }

    /** One server with its caller and next hop. */
    private record Side(TestServer server, SipSink sink, SipSocket caller) {
        String proxy() {
            return server.hostPort(Transport.UDP);
        }
    }

    /** An in-dialog request in one form: its method and a writer of its text for a side. */
    private record Form(String name, String method, Writer writer) {
        String write(Side side, String callId) {
            return writer.write(side, callId);
        }
    }

    private interface Writer {
        String write(Side side, String callId);
    }

    private static final List<Form> FORMS = List.of(
            new Form("ACK along a route set, with a body", "ACK", (s, c) -> request("ACK", "sip:bob@127.0.0.3:5999", s, c,
                    "Max-Forwards: 70\r\nRoute: <sip:" + s.proxy() + ";transport=udp;lr>, <sip:" + s.sink.hostPort()
                            + ";lr>\r\n", "v=0\r\n", false)),
            new Form("ACK to the Request-URI without Max-Forwards", "ACK", (s, c) -> request("ACK",
                    "sip:bob@" + s.sink.hostPort(), s, c, "", "", false)),
            new Form("BYE with our own route", "BYE", (s, c) -> request("BYE", "sip:bob@" + s.sink.hostPort(), s, c,
                    "Max-Forwards: 70\r\nRoute: <sip:" + s.proxy() + ";lr>\r\n", "", false)),
            new Form("BYE in compact form with two Via lines", "BYE", (s, c) -> request("BYE",
                    "sip:bob@" + s.sink.hostPort(), s, c, "Max-Forwards: 9\r\n", "", true)),
            new Form("BYE with our route and the next hop's in two lines", "BYE", (s, c) -> request("BYE",
                    "sip:bob@127.0.0.3:5999", s, c, "Max-Forwards: 70\r\nRoute: <sip:" + s.proxy() + ";lr>\r\nRoute: <sip:"
                            + s.sink.hostPort() + ";lr>\r\nSubject: caf\u00e9\r\n", "", false)));

    private static String request(String method, String requestUri, Side s, String callId, String extra, String body,
                                  boolean compact) {
        String via = "SIP/2.0/UDP 127.0.0.1:" + s.caller.localPort() + ";branch=z9hG4bK-" + callId + ";rport";
        return method + " " + requestUri + " SIP/2.0\r\n"
                + (compact ? "v: " + via + "\r\nv: SIP/2.0/UDP 127.0.0.1:5998;branch=z9hG4bK-up-" + callId
                        + ";received=127.0.0.1\r\n" : "Via: " + via + "\r\n")
                + extra
                + (compact ? "f: " : "From: ") + "<sip:alice@example.org>;tag=f1\r\n"
                + (compact ? "t: " : "To: ") + "<sip:bob@example.org>;tag=t1\r\n"
                + (compact ? "i: " : "Call-ID: ") + callId + "\r\n"
                + "CSeq: 2 " + method + "\r\n"
                + (compact ? "l: " : "Content-Length: ") + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n"
                + body;
    }

    /**
     * A received message as JAIN-SIP parses it: its start line, then its headers grouped by name
     * (RFC 3261 §7.3.1: the order of headers of different names is not significant, that of one
     * name is), each as JAIN-SIP writes it, a Via's parameters in name order with the proxy's own
     * Via's branch blanked; this side's addresses named alike on both sides; then the body.
     */
    private static String normalised(Side side, String message) throws Exception {
        SIPMessage parsed = new StringMsgParserFactory().createMessageParser(null)
                .parseSIPMessage(message.getBytes(StandardCharsets.UTF_8), true, false, null);
        java.util.TreeMap<String, List<String>> byName = new java.util.TreeMap<>();
        for (Iterator<SIPHeader> it = parsed.getHeaders(); it.hasNext(); ) {
            SIPHeader h = it.next();
            String name = h.getName().toLowerCase(Locale.ROOT);
            List<String> values = byName.computeIfAbsent(name, k -> new ArrayList<>());
            if (h instanceof gov.nist.javax.sip.header.ViaList vias) {
                for (Object o : vias) {
                    Via v = (Via) o;
                    List<String> params = new ArrayList<>();
                    for (Iterator<?> names = v.getParameterNames(); names.hasNext(); ) {
                        String p = (String) names.next();
                        String value = v.getParameter(p);
                        if (p.equalsIgnoreCase("branch") && (v.getHost() + ":" + v.getPort()).equals(side.proxy())) {
                            value = "BRANCH";
                        }
                        params.add(p + (value == null || value.isEmpty() ? "" : "=" + value));
                    }
                    params.sort(null);
                    values.add(v.getSentProtocol().encode() + " " + v.getSentBy().encode() + ";" + String.join(";", params));
                }
            } else if (h instanceof gov.nist.javax.sip.header.SIPHeaderList<?> list) {
                for (Object o : list) {
                    values.add(body((SIPHeader) o));
                }
            } else if (!(name.equals("content-length") && parsed.getContentLength().getContentLength() == 0)) {
                // a copy from the bytes keeps the sender's Content-Length: 0; the stack may write it or not
                values.add(body(h));
            }
        }
        StringBuilder sb = new StringBuilder(parsed.getFirstLine().trim()).append('\n');
        byName.forEach((name, values) -> values.forEach(v -> sb.append(name).append(": ").append(v).append('\n')));
        String body = parsed.getRawContent() == null ? "" : new String(parsed.getRawContent(), StandardCharsets.UTF_8);
        return sb.toString().replace(side.proxy(), "PROXY").replace(side.sink.hostPort(), "NEXT")
                .replace(":" + side.caller.localPort(), ":CALLER").replace("=" + side.caller.localPort(), "=CALLER")
                .toLowerCase(Locale.ROOT) + "\n" + body;
    }

    /** A header's value as JAIN-SIP writes it. */
    private static String body(SIPHeader h) {
        String text = h.encode();
        return text.substring(text.indexOf(':') + 1).trim();
    }
}
