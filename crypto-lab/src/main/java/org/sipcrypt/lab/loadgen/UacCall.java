package org.sipcrypt.lab.loadgen;

import io.netty.util.Timeout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One operation of the UAC (a call, a registration, an INVITE expected to be refused or
 * redirected, an OPTIONS to the target): its identifiers, the client transaction it has open, the
 * dialog a call learns from the 200 (RFC 3261 §12.1.2: the route set is the 200's Record-Route
 * reversed, the remote target its Contact), and the requests it sends: INVITE, ACK (for a 2xx a new
 * transaction, §13.2.2.4; for a final non-2xx the INVITE's own, §17.1.1.3), BYE, REGISTER (§10.2)
 * and OPTIONS (§11). Every new request, a digest answer included, gets a new branch and the next
 * CSeq of the Call-ID (§8.1.3.4, §22.2).
 * Threading: state changes under the call's own lock ({@code synchronized} blocks of {@link Uac} and
 * {@link UacFlow}).
 */
final class UacCall {

    /** Where the operation stands; {@code QUERYING}: its OPTIONS (RFC 3261 §11) is unanswered. */
    enum State { INVITING, PROCEEDING, CONFIRMED, BYEING, REGISTERING, QUERYING, DONE }

    final long number;
    final long dueNanos;
    final boolean measured;
    final String callId;
    final String fromTag;
    /** The user part of From (and of To and Contact in a REGISTER). */
    final String user;
    /** The From URI: {@code sip:USER@DOMAIN}, or {@code sip:lab-uac@sipcrypt.lab} for calls without users. */
    final String fromUri;
    /** The Request-URI of the INVITE, of the REGISTER ({@code sip:DOMAIN}), or of the OPTIONS (the target itself). */
    final String requestUri;
    /** Whose password answers challenges; null when the run has no users. */
    final Credential credential;
    State state;
    StreamConnection channel;

    /** The CSeq number of the request in progress. */
    long cseq = 1;
    /** The CSeq number of the INVITE whose 2xx made the dialog. */
    long inviteCseq;
    /** The branch of the request in progress. */
    String branch;
    private int branches;
    /** The request in progress, for retransmission, and where it goes. */
    byte[] request;
    InetSocketAddress requestTo;
    /** The Authorization or Proxy-Authorization line of the request in progress, or null. */
    String authorization;
    /** Whether the request in progress already answers a challenge (a second one ends the operation). */
    boolean challengeAnswered;
    /** For REGISTER workloads: 1 for the first REGISTER, 2 for the refresh or the removal. */
    int registerPhase;
    /** Whether the response time was recorded. */
    boolean timed;
    /** The ACK of the last final non-2xx answer to an INVITE and its CSeq, for its retransmissions. */
    byte[] errorAck;
    long errorAckCseq = -1;
    /** When the request in progress was first sent (Timers B and F), and whether a 1xx came for it. */
    long transactionStartNanos;
    boolean provisional;

    String toHeader;
    List<String> routeSet = List.of();
    String remoteTarget;
    byte[] ack;
    InetSocketAddress nextHop;
    long retransmitMillis;
    Timeout timer;
    Timeout timeout;

    UacCall(long number, long dueNanos, boolean measured, String runTag, State first, String user, String fromUri,
            String requestUri, Credential credential) {
        this.number = number;
        this.dueNanos = dueNanos;
        this.measured = measured;
        this.callId = runTag + "-" + number + "@sipcrypt-lab";
        this.fromTag = runTag + "f" + number;
        this.state = first;
        this.user = user;
        this.fromUri = fromUri;
        this.requestUri = requestUri;
        this.credential = credential;
    }

    /** Starts the next request of the Call-ID: a new branch and the next CSeq (none for the first). */
    void nextRequest() {
        if (branch != null) {
            cseq++;
        }
        branch = "z9hG4bK" + fromTag + "-" + (++branches);
    }

    /** The INVITE in progress, with an SDP offer. */
    byte[] buildInvite(String via, String contact) {
        String sdp = "v=0\r\no=lab " + number + " 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                + "m=audio 49170 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
        return (head("INVITE", via, fromUri, "<" + requestUri + ">")
                + "Contact: " + contact + "\r\n"
                + authorizationLine()
                + "Content-Type: application/sdp\r\n"
                // the offer is ASCII: its length in chars is its length in bytes
                + "Content-Length: " + sdp.length() + "\r\n\r\n" + sdp)
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The REGISTER in progress (RFC 3261 §10.2): To and From the address-of-record, the Request-URI
     * the registrar's domain.
     */
    byte[] buildRegister(String via, String aor, String contact, int expiresSeconds) {
        return (head("REGISTER", via, aor, "<" + aor + ">")
                + "Contact: " + contact + "\r\n"
                + "Expires: " + expiresSeconds + "\r\n"
                + authorizationLine()
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The OPTIONS in progress (RFC 3261 §11): To the Request-URI, accepting SDP as §11.1 shows;
     * answered by the server itself when the Request-URI is its address.
     */
    byte[] buildOptions(String via) {
        return (head("OPTIONS", via, fromUri, "<" + requestUri + ">")
                + "Accept: application/sdp\r\n"
                + authorizationLine()
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Start line to CSeq of a request of the transaction in progress (outside a dialog): the
     * Request-URI, branch, Call-ID and CSeq number it shares with its retransmissions.
     */
    private String head(String method, String via, String from, String to) {
        return method + " " + requestUri + " SIP/2.0\r\n"
                + "Via: " + via + ";branch=" + branch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + from + ">;tag=" + fromTag + "\r\n"
                + "To: " + to + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n";
    }

    private String authorizationLine() {
        return authorization == null ? "" : authorization + "\r\n";
    }

    /** Learns the dialog from the 200 to the INVITE. */
    void confirm(SipMessage ok) {
        inviteCseq = cseq;
        toHeader = ok.header("To");
        List<String> rr = new ArrayList<>(ok.headers("Record-Route"));
        Collections.reverse(rr);
        routeSet = List.copyOf(rr);
        String contact = ok.header("Contact");
        remoteTarget = contact == null ? null : SipMessage.uri(contact);
    }

    /** Where in-dialog requests go: the first route (loose routing), else the remote target. */
    InetSocketAddress dialogNextHop() {
        return SipUri.address(routeSet.isEmpty() ? remoteTarget : SipMessage.uri(routeSet.get(0)));
    }

    /** The ACK for the 2xx: a new transaction with the INVITE's CSeq number (RFC 3261 §13.2.2.4). */
    byte[] buildAck(String via) {
        ack = inDialog("ACK", inviteCseq, via, "z9hG4bK" + fromTag + "-" + (++branches), null);
        return ack;
    }

    /** The BYE in progress. */
    byte[] buildBye(String via) {
        return inDialog("BYE", cseq, via, branch, authorization);
    }

    /**
     * The ACK for a final non-2xx response to the INVITE in progress: its branch, Request-URI, From
     * and CSeq number, the response's To (RFC 3261 §17.1.1.3); kept for the response's retransmissions.
     */
    byte[] buildErrorAck(String via, SipMessage response) {
        errorAck = (head("ACK", via, fromUri, response.header("To"))
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        errorAckCseq = cseq;
        return errorAck;
    }

    private byte[] inDialog(String method, long number, String via, String viaBranch, String auth) {
        StringBuilder b = new StringBuilder();
        b.append(method).append(' ').append(remoteTarget).append(" SIP/2.0\r\n");
        b.append("Via: ").append(via).append(";branch=").append(viaBranch).append(";rport\r\n");
        b.append("Max-Forwards: 70\r\n");
        for (String r : routeSet) {
            b.append("Route: ").append(r).append("\r\n");
        }
        b.append("From: <").append(fromUri).append(">;tag=").append(fromTag).append("\r\n");
        b.append("To: ").append(toHeader).append("\r\n");
        b.append("Call-ID: ").append(callId).append("\r\n");
        b.append("CSeq: ").append(number).append(' ').append(method).append("\r\n");
        if (auth != null) {
            b.append(auth).append("\r\n");
        }
        b.append("Content-Length: 0\r\n\r\n");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
