package org.sipcrypt.lab.loadgen;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * One call of the UAC: its identifiers, the dialog learnt from the 200 (RFC 3261 §12.1.2: the route
 * set is the 200's Record-Route reversed, the remote target its Contact) and the requests it sends:
 * INVITE, ACK (for a 2xx a new transaction, §13.2.2.4; for an error the INVITE's, §17.1.1.3) and BYE.
 * Threading: state changes under the call's own lock ({@code synchronized} methods of {@link Uac}).
 */
final class UacCall {

    enum State { INVITING, PROCEEDING, CONFIRMED, BYEING, DONE }

    final long number;
    final long dueNanos;
    final boolean measured;
    final String callId;
    final String fromTag;
    final String inviteBranch;
    State state = State.INVITING;
    StreamConnection channel;
    String toHeader;
    List<String> routeSet = List.of();
    String remoteTarget;
    byte[] invite;
    byte[] ack;
    byte[] bye;
    InetSocketAddress nextHop;
    long retransmitMillis;
    ScheduledFuture<?> timer;
    ScheduledFuture<?> timeout;

    UacCall(long number, long dueNanos, boolean measured, String runTag) {
        this.number = number;
        this.dueNanos = dueNanos;
        this.measured = measured;
        this.callId = runTag + "-" + number + "@sipcrypt-lab";
        this.fromTag = runTag + "f" + number;
        this.inviteBranch = "z9hG4bK" + runTag + "i" + number;
    }

    /** The INVITE, with an SDP offer. */
    byte[] buildInvite(String requestUri, String via, String contact) {
        String sdp = "v=0\r\no=lab " + number + " 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                + "m=audio 49170 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
        invite = ("INVITE " + requestUri + " SIP/2.0\r\n"
                + "Via: " + via + ";branch=" + inviteBranch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:lab-uac@sipcrypt.lab>;tag=" + fromTag + "\r\n"
                + "To: <" + requestUri + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: " + contact + "\r\n"
                + "Content-Type: application/sdp\r\n"
                + "Content-Length: " + sdp.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + sdp)
                .getBytes(StandardCharsets.UTF_8);
        return invite;
    }

    /** Learns the dialog from the 200 to the INVITE. */
    void confirm(SipMessage ok) {
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

    /** The ACK for the 2xx (a new transaction). */
    byte[] buildAck(String via) {
        ack = inDialog("ACK", 1, via, "z9hG4bK" + fromTag + "a");
        return ack;
    }

    /** The BYE. */
    byte[] buildBye(String via) {
        bye = inDialog("BYE", 2, via, "z9hG4bK" + fromTag + "b");
        return bye;
    }

    /** The ACK for an error response: the INVITE's branch, Request-URI and route (RFC 3261 §17.1.1.3). */
    byte[] buildErrorAck(String requestUri, String via, SipMessage response) {
        return ("ACK " + requestUri + " SIP/2.0\r\n"
                + "Via: " + via + ";branch=" + inviteBranch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:lab-uac@sipcrypt.lab>;tag=" + fromTag + "\r\n"
                + "To: " + response.header("To") + "\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 ACK\r\n"
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
    }

    private byte[] inDialog(String method, int cseq, String via, String branch) {
        StringBuilder b = new StringBuilder();
        b.append(method).append(' ').append(remoteTarget).append(" SIP/2.0\r\n");
        b.append("Via: ").append(via).append(";branch=").append(branch).append(";rport\r\n");
        b.append("Max-Forwards: 70\r\n");
        for (String r : routeSet) {
            b.append("Route: ").append(r).append("\r\n");
        }
        b.append("From: <sip:lab-uac@sipcrypt.lab>;tag=").append(fromTag).append("\r\n");
        b.append("To: ").append(toHeader).append("\r\n");
        b.append("Call-ID: ").append(callId).append("\r\n");
        b.append("CSeq: ").append(cseq).append(' ').append(method).append("\r\n");
        b.append("Content-Length: 0\r\n\r\n");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }
}
