package org.sipcrypt.server.sip.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.sip.ListeningPoint;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.sip.AccessPolicy;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.EarlyRelays;
import org.sipcrypt.server.transport.SipBytes;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Transport;

/**
 * The ACK for a 2xx (RFC 3261 §13.2.2.4) relayed over UDP from its raw bytes, statelessly, as
 * {@link StatefulProxy#onAck} relays a parsed one (§16.11): the Route entries naming this server
 * are taken off the top (§16.4), Max-Forwards goes down by one (an ACK at 0 is not relayed), the
 * top Via gets {@code received}/{@code rport} as on receipt, and a Via of ours goes on top with a
 * branch that is the same for every retransmission of the ACK. The copy goes to the next Route
 * entry (loose routing) or, with none left, to the Request-URI. With digest authentication on, the
 * ACK must come from a trusted peer or carry back a signed Record-Route of ours, as {@link
 * AccessPolicy#mayRelayAck} asks of a parsed one.
 * <p>The stack, with its parse, its clone and its encode, still takes every ACK that is not in the
 * plain form read here: a next hop that is not UDP, a host name to resolve, {@code maddr}, an IPv6
 * address, a Route entry with a display name or a URI {@link SipUriText} does not read, folded or
 * bare-LF lines, no To tag, a CSeq that is not a number and ACK, and an ACK this would not relay
 * (Max-Forwards at 0, addressed to this server, without the dialog's signed route), which the stack
 * drops and counts. An ACK malformed in a way only the parse finds (a From without a valid URI,
 * say) is relayed here where the stack would drop it; the callee drops it instead.
 * Threading: thread-safe; never blocks; called on SIP worker lanes.
 */
public final class AckRelay implements EarlyRelays {

    private static final int DEFAULT_PORT = 5060;

    private final SipContext ctx;
    private final AccessPolicy policy;

    /**
     * @param policy which ACKs may be relayed with digest authentication on; null when it is off
     */
    public AckRelay(SipContext ctx, AccessPolicy policy) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.policy = policy;
    }

    @Override
    public Relay relay(byte[] request, String method, TopVia via, InetSocketAddress source, InetSocketAddress local) {
        ListeningPoint lp = ctx.listeningPoint(Transport.UDP);
        if (!Request.ACK.equals(method) || lp == null || lp.getPort() != local.getPort()
                || lp.getIPAddress().indexOf(':') >= 0 || !AddressText.sameHost(lp.getIPAddress(), local.getAddress())) {
            return null;
        }
        Ack ack = Ack.read(request, via);
        if (ack == null) {
            return null;
        }
        // §16.4: our own entries off the top of the route set
        int popped = 0;
        SipUriText next = null;
        for (String entry : ack.routeEntries()) {
            SipUriText uri = routeUri(entry);
            if (uri == null) {
                return null;
            }
            if (!ctx.local().isLocal(uri.host(), uri.port())) {
                next = uri;
                break;
            }
            popped++;
        }
        SipUriText requestUri = SipUriText.read(ack.requestUri());
        if (policy != null && !policy.mayRelayAck(source.getAddress(), ack.callId(), ack.fromTag(), ack.toTag(),
                signature(ack, popped, requestUri))) {
            return null;
        }
        SipUriText hop = next != null ? next : requestUri;
        if (hop == null || next != null && hop.param("lr") == null
                || next == null && ctx.local().isLocal(hop.host(), hop.port()) || ack.maxForwards() == 0) {
            return null;
        }
        InetSocketAddress to = udpAddress(hop);
        if (to == null) {
            return null;
        }
        String branch = LoopDetector.statelessBranch(ack.requestUri(), ack.fromTag(), ack.toTag(), ack.callId(),
                ack.cseqNumber(), ack.routeValues());
        byte[] copy = ack.relayed("SIP/2.0/UDP " + lp.getIPAddress() + ":" + lp.getPort() + ";branch=" + branch,
                via.tagged(source), popped);
        ctx.counters().requestReceived(Request.ACK);
        ctx.counters().forwarded(Request.ACK);
        return new Relay(copy, to);
    }

    /**
     * The signature {@link DialogRouteSigner#provesDialog} would read: that of the first Route
     * entry when it names this server, of the Request-URI when there is no Route and it names this
     * server, else none.
     */
    private String signature(Ack ack, int popped, SipUriText requestUri) {
        if (!ack.routeEntries().isEmpty()) {
            return popped > 0 ? routeUri(ack.routeEntries().get(0)).param(DialogRouteSigner.PARAM) : null;
        }
        return requestUri != null && ctx.local().isLocal(requestUri.host(), requestUri.port())
                ? requestUri.param(DialogRouteSigner.PARAM) : null;
    }

    /** The URI of a Route entry in the form {@code <uri>[;params]}, or null for any other. */
    private static SipUriText routeUri(String entry) {
        int close = entry.indexOf('>');
        return entry.startsWith("<") && close > 0 ? SipUriText.read(entry.substring(1, close)) : null;
    }

    /** Where a UDP next hop {@code uri} is, when it names an IPv4 address over UDP; else null. */
    private static InetSocketAddress udpAddress(SipUriText uri) {
        String transport = uri.param("transport");
        byte[] ip = uri.ipv4();
        if (uri.secure() || uri.param("maddr") != null || ip == null
                || transport != null && !transport.equalsIgnoreCase("udp")) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), uri.port() > 0 ? uri.port() : DEFAULT_PORT);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes are an IPv4 address", e);
        }
    }

    /**
     * An ACK's header section, line by line, with what relaying it needs.
     *
     * @param headerEnd   where the blank line after the headers starts in the request
     * @param maxForwards the Max-Forwards value, or -1 when there is none
     */
    private record Ack(byte[] request, String requestLine, String requestUri, List<String> lines, int viaLine,
                       int maxForwardsLine, int maxForwards, List<Integer> routeLines, List<String> routeValues,
                       List<String> routeEntries, String callId, String fromTag, String toTag, String cseqNumber,
                       int headerEnd) {

        /** The ACK {@code request} holds, or null when it is not in the form read here. */
        static Ack read(byte[] request, TopVia via) {
            int headerEnd = SipBytes.headerSectionEnd(request);
            if (headerEnd >= request.length) {
                return null;
            }
            // one char per byte: the copy written back is byte for byte what came, UTF-8 included
            String head = new String(request, 0, headerEnd, StandardCharsets.ISO_8859_1);
            int lineEnd = head.indexOf("\r\n");
            String requestLine = head.substring(0, lineEnd);
            int uriEnd = requestLine.length() - " SIP/2.0".length();
            if (!requestLine.startsWith("ACK ") || !requestLine.endsWith(" SIP/2.0") || uriEnd <= 4
                    || requestLine.indexOf(' ', 4) != uriEnd) {
                return null;
            }
            List<String> lines = new ArrayList<>(16);
            List<Integer> routeLines = new ArrayList<>(2);
            List<String> routeValues = new ArrayList<>(2);
            List<String> routeEntries = new ArrayList<>(2);
            int viaLine = -1;
            int maxForwardsLine = -1;
            int maxForwards = -1;
            String callId = null;
            String from = null;
            String to = null;
            String cseq = null;
            for (int pos = lineEnd + 2; pos < head.length(); ) {
                int eol = head.indexOf("\r\n", pos);
                String line = head.substring(pos, eol);
                pos = eol + 2;
                int colon = line.indexOf(':');
                if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t' || line.indexOf('\n') >= 0
                        || line.indexOf('\r') >= 0) {
                    return null;
                }
                String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                int index = lines.size();
                lines.add(line);
                switch (name) {
                    case "via", "v" -> viaLine = viaLine < 0 ? index : viaLine;
                    case "route" -> {
                        routeLines.add(index);
                        routeValues.add(value);
                        if (!entries(value, routeEntries)) {
                            return null;
                        }
                    }
                    case "max-forwards" -> {
                        maxForwardsLine = index;
                        maxForwards = number(value, 3);
                        if (maxForwards < 0 || maxForwards > 255) {
                            return null;
                        }
                    }
                    case "call-id", "i" -> callId = value;
                    case "from", "f" -> from = value;
                    case "to", "t" -> to = value;
                    case "cseq" -> cseq = value;
                    default -> {
                    }
                }
            }
            String toTag = to == null ? null : tag(to);
            String cseqNumber = cseq == null ? null : ackSequence(cseq);
            if (viaLine < 0 || !value(lines.get(viaLine)).startsWith(via.entry()) || callId == null
                    || callId.isEmpty() || from == null || toTag == null || cseqNumber == null) {
                return null;
            }
            return new Ack(request, requestLine, requestLine.substring(4, uriEnd), lines, viaLine, maxForwardsLine,
                    maxForwards, routeLines, routeValues, routeEntries, callId, tag(from), toTag, cseqNumber,
                    headerEnd);
        }

        /**
         * The bytes of the relayed copy: {@code ourVia} on top, the received top Via replaced by
         * {@code taggedVia}, the first {@code popped} Route entries taken off, Max-Forwards one less;
         * every other line and the body as they came.
         */
        byte[] relayed(String ourVia, String taggedVia, int popped) {
            StringBuilder sb = new StringBuilder(headerEnd + 128);
            sb.append(requestLine).append("\r\n").append("Via: ").append(ourVia).append("\r\n");
            int toPop = popped;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                int colon = line.indexOf(':');
                if (i == viaLine) {
                    String received = value(line);
                    sb.append(line, 0, colon + 1).append(' ').append(taggedVia)
                            .append(received, via(received).length(), received.length());
                } else if (i == maxForwardsLine) {
                    sb.append(line, 0, colon + 1).append(' ').append(maxForwards - 1);
                } else if (routeLines.contains(i)) {
                    List<String> kept = new ArrayList<>(2);
                    entries(value(line), kept);
                    int drop = Math.min(toPop, kept.size());
                    toPop -= drop;
                    if (drop == kept.size()) {
                        continue;
                    }
                    sb.append(line, 0, colon + 1).append(' ').append(String.join(", ", kept.subList(drop, kept.size())));
                } else {
                    sb.append(line);
                }
                sb.append("\r\n");
            }
            byte[] head = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
            byte[] copy = new byte[head.length + request.length - headerEnd];
            System.arraycopy(head, 0, copy, 0, head.length);
            System.arraycopy(request, headerEnd, copy, head.length, request.length - headerEnd);
            return copy;
        }

        /** The top entry of a Via value, as {@link TopVia#read} took it. */
        private String via(String value) {
            int comma = value.indexOf(',');
            return (comma >= 0 ? value.substring(0, comma) : value).trim();
        }

        private static String value(String line) {
            return line.substring(line.indexOf(':') + 1).trim();
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

    /** The tag parameter of a From or To value, or null when it has none. */
    private static String tag(String value) {
        String params;
        if (value.indexOf('<') >= 0) {
            int close = value.lastIndexOf('>');
            params = close >= 0 ? value.substring(close + 1) : "";
        } else {
            int semi = value.indexOf(';');
            params = semi >= 0 ? value.substring(semi) : "";
        }
        for (String param : params.split(";")) {
            int eq = param.indexOf('=');
            if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("tag")) {
                String tag = param.substring(eq + 1).trim();
                return tag.isEmpty() ? null : tag;
            }
        }
        return null;
    }

    /** The sequence number of a CSeq value {@code n ACK}, or null when it is not in that form. */
    private static String ackSequence(String cseq) {
        int digits = 0;
        while (digits < cseq.length() && cseq.charAt(digits) >= '0' && cseq.charAt(digits) <= '9') {
            digits++;
        }
        if (digits == 0 || digits > 10 || Long.parseLong(cseq, 0, digits, 10) >= 1L << 31
                || !cseq.substring(digits).trim().equals(Request.ACK) || digits == cseq.length()
                || cseq.charAt(digits) != ' ' && cseq.charAt(digits) != '\t') {
            return null;
        }
        return cseq.substring(0, digits);
    }

    /** A decimal number of 1 to {@code maxDigits} digits, or -1. */
    private static int number(String s, int maxDigits) {
        if (s.isEmpty() || s.length() > maxDigits) {
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
        return n;
    }
}
