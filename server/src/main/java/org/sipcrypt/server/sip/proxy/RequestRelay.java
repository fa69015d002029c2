package org.sipcrypt.server.sip.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.auth.FlowTokens;
import org.sipcrypt.server.cdr.CallRecords;
import org.sipcrypt.server.sip.AccessPolicy;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.EarlyRelays.Relay;
import org.sipcrypt.server.transport.HeadCopy;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Transport;

/**
 * Requests inside a dialog this proxy record-routed, relayed over UDP, TCP or TLS from their raw
 * bytes and statelessly (RFC 3261 §16.11): the ACK for a 2xx (§13.2.2.4), as {@link
 * StatefulProxy#onAck} relays a parsed one, and BYE. The Route entries naming this server are taken
 * off the top (§16.4), Max-Forwards goes down by one (a request at 0 is left to the stack, which
 * drops an ACK and answers a BYE with 483), the top Via gets {@code received}/{@code rport} as on
 * receipt, and a Via of ours goes on top with a branch that is the same for every retransmission of
 * the request (for BYE, the caller's branch is hashed in too). The copy goes to the next Route entry
 * (loose routing) or, with none left, to the Request-URI. With digest authentication on, the
 * request must come from a trusted peer or carry back the dialog's signed Record-Route, as {@link
 * AccessPolicy#mayRelayAck} asks of a parsed ACK and {@link AccessPolicy#mustAuthenticate} of a
 * parsed BYE; a relayed BYE ends the dialog in {@link EstablishedDialogs} and releases the call's
 * per-call connections. Its responses come back through {@link ResponseRelay}.
 * <p>Over TCP and TLS the request goes on in the same transport only (a request received over TCP
 * to a TCP next hop, named by {@code transport=tcp}; over TLS to a {@code sips:} URI or one with
 * {@code transport=tls}), on the processor's connection to the next hop, which must not be a
 * per-call one (the {@code per-call} pattern keys connections by the call the SIP
 * layer names; such a request takes the stack's path). The caller's Via is tagged with
 * {@code received} and {@code rport} whether or not it asked (RFC 3581 §4's tags, as a proxy forcing
 * rport writes them), so that the response, which has no transaction here, finds the connection the
 * request came in on (RFC 3261 §18.2.2) by its address.
 * <p>A BYE relayed this way has no transaction here: its retransmissions are relayed again (with the
 * same branch) and the callee's transaction answers them; should the callee never answer, the
 * caller's own transaction times out, where a stateful proxy would have answered 408 for it.
 * <p>The stack, with its parse, its clone and its encode, still takes every request not in the
 * plain form read here: a next hop over another transport than the request's, a host name to
 * resolve, {@code maddr}, an IPv6
 * address, a Route entry with a display name or a URI {@link SipUriText} does not read, a
 * Request-URI it does not read or one naming this server (a strict router before us put our
 * Record-Route URI there, RFC 3261 §16.4, which {@link org.sipcrypt.server.sip.StrictRouting} undoes),
 * a next Route entry without {@code lr} (a strict router after us, §16.6 step 6), folded or
 * bare-LF lines, no To tag, a CSeq that is not a number and the method, a BYE without Max-Forwards,
 * with Proxy-Require or with a Via of ours (a loop, or a spiral, for §16.3 to judge), and a request
 * this would not relay (Max-Forwards at 0, addressed to this server, without the dialog's signed
 * route), which the stack drops, answers or challenges, and a request whose Route of ours carries a
 * flow token (RFC 5626 §5.3), which the stack's path checks and sends over its flow. A request
 * malformed in a way only the parse finds (a From without a valid URI, say) is relayed here where
 * the stack would refuse it; the next hop refuses it instead.
 * Threading: thread-safe; never blocks; called on SIP worker lanes.
 */
final class RequestRelay {

    /** The Max-Forwards a relayed request without one gets (RFC 3261 §16.6 step 3). */
    private static final int DEFAULT_MAX_FORWARDS = 70;

    private final SipContext ctx;
    private final AccessPolicy policy;
    private final EstablishedDialogs dialogs;
    private final ConnectionPolicy connections;
    private final LoopDetector loops;
    private final CallRecords records;

    /**
     * @param policy      which requests may be relayed with digest authentication on; null when it is off
     * @param dialogs     the dialogs a shutdown drain waits for, which a relayed BYE ends; may be null
     * @param connections the pattern of outgoing connections per target: a request to a TCP or TLS
     *                    next hop under the {@code per-call} pattern takes the stack's path
     * @param loops       writes the branch of our Via, as the proxy's own
     * @param records     the calls in progress whose records a relayed BYE ends; null when none are kept
     */
    RequestRelay(SipContext ctx, AccessPolicy policy, EstablishedDialogs dialogs, ConnectionPolicy connections,
                 LoopDetector loops, CallRecords records) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.policy = policy;
        this.dialogs = dialogs;
        this.connections = Objects.requireNonNull(connections, "connections");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.records = records;
    }

    /**
     * The relayed copy of an in-dialog request, or null to leave it to the stack, as {@link
     * org.sipcrypt.server.transport.EarlyRelays#relay} asks.
     */
    Relay relay(SipHead request, String method, TopVia via, InetSocketAddress source, InetSocketAddress local,
                Transport over) {
        boolean bye = Request.BYE.equals(method);
        Listener lp = StatelessRelay.receivedOn(ctx, local, over);
        if (!bye && !Request.ACK.equals(method) || lp == null) {
            return null;
        }
        InDialog req = InDialog.read(request, method, via);
        // §16.3 step 4: a request with a Via of ours (a loop, or a spiral) is the stack's to judge,
        // an ACK's as a BYE's: an ACK that comes back to this server must not go round again
        if (req == null || req.viaNamesUs(ctx.listeningPoints()) || bye && (req.maxForwards() < 0 || req.proxyRequire())) {
            return null;
        }
        // §16.4: our own entries off the top of the route set
        int popped = 0;
        SipUriText firstOurs = null;
        SipUriText next = null;
        for (String entry : req.routeEntries()) {
            SipUriText uri = routeUri(entry);
            if (uri == null) {
                return null;
            }
            if (!ctx.local().isLocal(uri.host(), uri.port())) {
                next = uri;
                break;
            }
            if (uri.param(FlowTokens.PARAM) != null) {
                // RFC 5626 §5.3: a dialog with flows is the stack path's to route (StatefulProxy), which
                // checks the token and picks the flow
                return null;
            }
            if (popped++ == 0) {
                firstOurs = uri;
            }
        }
        SipUriText requestUri = SipUriText.read(req.requestUri());
        // §16.4: a Request-URI naming this server is our Record-Route URI, put there by a strict router
        // before us (the target is then the last Route entry), or the request is addressed to us;
        // either is the stack's (SipDispatcher, StrictRouting), and so is one not read here, which might
        // name us in a form this does not read
        if (requestUri == null || ctx.local().isLocal(requestUri.host(), requestUri.port())) {
            return null;
        }
        String signature = firstOurs != null ? firstOurs.param(DialogRouteSigner.PARAM) : null;
        if (policy != null && !(bye
                ? policy.mayRelayInDialog(source.getAddress(), req.callId(), req.fromTag(), req.toTag(), signature,
                        via.branch() + ' ' + req.cseqNumber() + ' ' + req.requestUri())
                : policy.mayRelayAck(source.getAddress(), req.callId(), req.fromTag(), req.toTag(), signature))) {
            return null;
        }
        SipUriText hop = next != null ? next : requestUri;
        // §16.6 step 6: a next hop that is a strict router (no lr) gets the Request-URI as its last
        // Route and its own URI as the Request-URI, which the stack's router writes
        if (next != null && hop.param("lr") == null || req.maxForwards() == 0) {
            return null;
        }
        InetSocketAddress to = address(hop, over);
        if (to == null || over.reliable() && connections.patternFor(to) == ConnectionPattern.PER_CALL) {
            return null;
        }
        // §16.11: the same branch for every retransmission; a BYE's own branch tells two BYEs apart;
        // its check binds it to where the response must go back, the caller's Via as tagged here
        String tagged = over.reliable() ? via.taggedWithSource(source) : via.tagged(source);
        String back = ViaEntry.returnPath(tagged);
        if (back == null) {
            return null;
        }
        String branch = loops.statelessBranch(req.requestUri(), req.fromTag(), req.toTag(), req.callId(),
                bye ? req.cseqNumber() + " BYE " + via.branch() : req.cseqNumber(), req.routeValues(), back);
        // RFC 3261 §18.2.1: the Via carries the address peers reach this listener at
        byte[] copy = req.relayed("SIP/2.0/" + over.sipName() + " " + lp.sentBy() + ";branch=" + branch, tagged, popped);
        ctx.counters().requestReceived(method);
        ctx.counters().forwarded(method);
        if (bye) {
            // RFC 3261 §15.1.2: the dialog ends with the BYE, whatever the answer
            if (dialogs != null) {
                dialogs.ended(req.callId(), req.fromTag(), req.toTag());
            }
            if (records != null) {
                // its call's record ends; the tags were read for the dialog already, nothing more is read
                records.byeRelayed(req.callId(), req.fromTag());
            }
            ctx.calls().releaseCall(req.callId());
        }
        return new Relay(copy, to);
    }

    /** The URI of a Route entry in the form {@code <uri>[;params]}, or null for any other. */
    private static SipUriText routeUri(String entry) {
        int close = entry.indexOf('>');
        return entry.startsWith("<") && close > 0 ? SipUriText.read(entry.substring(1, close)) : null;
    }

    /**
     * Where the next hop {@code uri} is, when it names an IPv4 address over {@code over}: over UDP,
     * a {@code sip:} URI with no transport parameter or {@code transport=udp}; over TCP, a {@code sip:}
     * URI with {@code transport=tcp}; over TLS, a {@code sips:} URI with no transport parameter or
     * {@code transport=tcp} or {@code tls}, or a {@code sip:} URI with {@code transport=tls}; never over
     * WS or WSS; else null.
     */
    private static InetSocketAddress address(SipUriText uri, Transport over) {
        String transport = uri.param("transport");
        byte[] ip = uri.ipv4();
        boolean reached = switch (over) {
            case UDP -> !uri.secure() && (transport == null || transport.equalsIgnoreCase("udp"));
            case TCP -> !uri.secure() && transport != null && transport.equalsIgnoreCase("tcp");
            case TLS -> uri.secure() ? transport == null || transport.equalsIgnoreCase("tcp")
                    || transport.equalsIgnoreCase("tls") : transport != null && transport.equalsIgnoreCase("tls");
            // RFC 7118 §5: a WebSocket client is reached over its own connection, never at an address
            case WS, WSS -> false;
        };
        if (!reached || uri.param("maddr") != null || ip == null) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), uri.port() > 0 ? uri.port() : over.defaultPort());
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes are an IPv4 address", e);
        }
    }

    /**
     * An in-dialog request's header section, with what relaying it needs.
     *
     * @param maxForwards the Max-Forwards value, or -1 when there is none
     * @param viaValues   the values of its Via lines, in order
     */
    private record InDialog(SipHead sip, String requestUri, int viaLine, List<String> viaValues,
                            int maxForwardsLine, int maxForwards, boolean proxyRequire, List<Integer> routeLines,
                            List<String> routeValues, List<String> routeEntries, String callId, String fromTag,
                            String toTag, String cseqNumber) {

        /**
         * The {@code method} request {@code sip} indexes, or null when it is not in the form read
         * here. The transport hands the relays only messages {@link SipHead#irregularity} passed (a
         * blank line after the headers, no folded line, no header name that is not a token, no
         * repeated Call-ID, From, To, CSeq, Max-Forwards or Content-Length, no From or To with two
         * tags, a Content-Length, if any, equal to the body's length), so none of that is looked for
         * again here; a message with a line ending in a bare
         * LF is not read (the copy keeps every other line as it came, so they must all end in CRLF).
         */
        static InDialog read(SipHead sip, String method, TopVia via) {
            if (!sip.crlfOnly()) {
                return null;
            }
            String requestLine = sip.startLineText();
            int uriStart = method.length() + 1;
            int uriEnd = requestLine.length() - " SIP/2.0".length();
            if (!requestLine.startsWith(method + " ") || !requestLine.endsWith(" SIP/2.0") || uriEnd <= uriStart
                    || requestLine.indexOf(' ', uriStart) != uriEnd) {
                return null;
            }
            List<Integer> routeLines = new ArrayList<>(2);
            List<String> routeValues = new ArrayList<>(2);
            List<String> routeEntries = new ArrayList<>(2);
            List<String> viaValues = new ArrayList<>(2);
            int viaLine = -1;
            int maxForwardsLine = -1;
            int maxForwards = -1;
            boolean proxyRequire = false;
            for (int index = 0; index < sip.lineCount(); index++) {
                if (sip.lineIs(index, "via")) {
                    viaLine = viaLine < 0 ? index : viaLine;
                    viaValues.add(sip.lineValueText(index));
                } else if (sip.lineIs(index, "route")) {
                    String value = sip.lineValueText(index);
                    routeLines.add(index);
                    routeValues.add(value);
                    if (!entries(value, routeEntries)) {
                        return null;
                    }
                } else if (sip.lineIs(index, "max-forwards")) {
                    maxForwardsLine = index;
                    maxForwards = number(sip.lineValueText(index), 3);
                    if (maxForwards < 0 || maxForwards > 255) {
                        return null;
                    }
                } else if (sip.lineIs(index, "proxy-require")) {
                    proxyRequire = true;
                }
            }
            String callId = sip.callId();
            String toTag = sip.toTag();
            String cseq = sip.value("cseq");
            String cseqNumber = cseq == null ? null : CSeqText.sequence(cseq, method);
            if (viaLine < 0 || !viaValues.get(0).startsWith(via.entry()) || callId == null
                    || callId.isEmpty() || sip.count("from") == 0 || toTag == null || cseqNumber == null) {
                return null;
            }
            return new InDialog(sip, requestLine.substring(uriStart, uriEnd), viaLine, viaValues, maxForwardsLine,
                    maxForwards, proxyRequire, routeLines, routeValues, routeEntries, callId, sip.fromTag(), toTag,
                    cseqNumber);
        }

        /**
         * Whether a Via entry names the advertised address and port of one of our listeners: the
         * request has been here before (a loop or a spiral, §16.3 step 4), or a Via this does not
         * read is in the way.
         */
        boolean viaNamesUs(ListeningPoints ours) {
            for (String value : viaValues) {
                if (value.indexOf('"') >= 0 || value.indexOf('[') >= 0) {
                    return true;
                }
                // each entry's sent-by, read by index (this runs for every relayed request)
                for (int start = 0; start <= value.length(); ) {
                    int end = value.indexOf(',', start);
                    end = end < 0 ? value.length() : end;
                    int semi = value.indexOf(';', start);
                    semi = semi < 0 || semi > end ? end : semi;
                    int sent = SipHead.trimStart(value, start, semi);
                    int sentEnd = SipHead.trimEnd(value, sent, semi);
                    int blank = value.indexOf(' ', sent);
                    if (blank < 0 || blank >= sentEnd) {
                        blank = value.indexOf('\t', sent);
                        blank = blank < 0 || blank >= sentEnd ? -1 : blank;
                    }
                    String host = "";
                    int port = (value.regionMatches(true, sent, "SIP/2.0/TLS", 0, 11) ? Transport.TLS : Transport.UDP)
                            .defaultPort();
                    if (blank >= 0) {
                        int by = SipHead.trimStart(value, blank + 1, sentEnd);
                        int colon = value.indexOf(':', by);
                        if (colon >= 0 && colon < sentEnd) {
                            host = value.substring(by, colon);
                            port = number(value.substring(colon + 1, sentEnd), 5);
                        } else {
                            host = value.substring(by, sentEnd);
                        }
                    }
                    if (ours.isSentBy(host, port)) {
                        return true;
                    }
                    start = end + 1;
                }
            }
            return false;
        }

        /**
         * The bytes of the relayed copy: {@code ourVia} on top, the received top Via replaced by
         * {@code taggedVia}, the first {@code popped} Route entries taken off, Max-Forwards one less;
         * every other line and the body as they came.
         */
        byte[] relayed(String ourVia, String taggedVia, int popped) {
            HeadCopy copy = new HeadCopy(sip).putFirst("Via: " + ourVia);
            if (maxForwardsLine < 0) {
                // §16.6 step 3: a copy of a request without Max-Forwards gets one, so no loop runs for ever
                copy.putFirst("Max-Forwards: " + DEFAULT_MAX_FORWARDS);
            } else {
                copy.replace(maxForwardsLine, sip.lineNameText(maxForwardsLine) + ' ' + (maxForwards - 1));
            }
            String received = viaValues.get(0);
            copy.replace(viaLine, sip.lineNameText(viaLine) + ' ' + taggedVia
                    + received.substring(ViaEntry.topEntry(received).length()));
            int toPop = popped;
            for (int r = 0; r < routeLines.size() && toPop > 0; r++) {
                int line = routeLines.get(r);
                List<String> kept = new ArrayList<>(2);
                entries(routeValues.get(r), kept);
                int drop = Math.min(toPop, kept.size());
                toPop -= drop;
                if (drop == kept.size()) {
                    copy.remove(line);
                } else {
                    copy.replace(line, sip.lineNameText(line) + ' ' + String.join(", ", kept.subList(drop, kept.size())));
                }
            }
            return copy.bytes();
        }
    }

    /**
     * Adds the entries of a Route value (name-addrs joined by commas) to {@code entries}, trimmed;
     * false when a quote makes the commas ambiguous or an entry is empty.
     */
    private static boolean entries(String value, List<String> entries) {
        if (value.indexOf('"') >= 0) {
            return false;
        }
        int start = 0;
        boolean inUri = false;
        for (int i = 0; i <= value.length(); i++) {
            char c = i < value.length() ? value.charAt(i) : ',';
            if (c == '<') {
                inUri = true;
            } else if (c == '>') {
                inUri = false;
            } else if (c == ',' && !inUri) {
                String entry = value.substring(start, i).trim();
                if (entry.isEmpty()) {
                    return false;
                }
                entries.add(entry);
                start = i + 1;
            }
        }
        return !inUri;
    }

    /** A decimal number of 1 to {@code maxDigits} digits, or -1. */
    private static int number(String s, int maxDigits) {
        return SipHead.number(s, maxDigits, Integer.MAX_VALUE);
    }
}
