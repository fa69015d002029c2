package org.sipcrypt.lab.loadgen;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The message flows of the UAC's workloads, one operation at a time: which request starts it, what
 * each response leads to, when it ends, and the UDP retransmissions of its client transactions.
 * <ul>
 * <li>INVITE (RFC 3261 §17.1.1): retransmitted by Timer A, doubling, until a provisional response;
 * given up by Timer B (64 × T1). A final non-2xx is ACKed in the INVITE's transaction on every
 * transport (§17.1.1.3); the expected one (404 for {@code invite-not-found}, 302 for
 * {@code redirect}) completes the operation. A 2xx is ACKed in a new transaction (§13.2.2.4), and for
 * calls the BYE follows after the hold.</li>
 * <li>REGISTER, OPTIONS and BYE (§17.1.2.2): retransmitted by Timer E, doubling up to T2 (at T2 once a
 * provisional response came), given up by Timer F (64 × T1). A 2xx to the OPTIONS of the
 * {@code options} workload, sent to the target itself (§11), completes the operation.</li>
 * <li>A 401 or 407 is answered once per request when the operation has a credential (§22.2,
 * §22.3): the same request again with a new branch, CSeq + 1 and Authorization or
 * Proxy-Authorization; a second challenge for it fails the operation as {@code auth_rejected}.</li>
 * </ul>
 * The response time runs from when the operation was due to its first final success response, so it
 * includes the challenge round trip. On TCP and TLS nothing is retransmitted (§17.1.1.2).
 * Threading: every method runs under the operation's lock (the caller's {@code synchronized (call)},
 * or its own for timer tasks).
 */
final class UacFlow {

    static final long T1_MILLIS = 500;
    static final long T2_MILLIS = 4000;
    /** The registration lifetime asked for (RFC 3261 §10.2.1.1). */
    static final int REGISTER_EXPIRES_SECONDS = 3600;
    /** Registrations without users act as lab-uac-0 to lab-uac-99. */
    private static final int ANONYMOUS_REGISTRANTS = 100;
    /** The user {@code invite-not-found} calls: never registered. */
    static final String UNKNOWN_USER = "lab-unknown";

    private final Uac uac;
    private final UacOptions o;
    private final Timer timer;

    UacFlow(Uac uac, UacOptions options, Timer timer) {
        this.uac = uac;
        this.o = options;
        this.timer = timer;
    }

    /** Operation {@code number}: as user number mod N, with the identities of its workload. */
    UacCall newCall(long number, long dueNanos, boolean measured, String runTag) {
        Credential cred = o.users().isEmpty() ? null : o.users().get((int) (number % o.users().size()));
        String domain = o.domain();
        if (o.workload().registers()) {
            String user = cred != null ? cred.user() : "lab-uac-" + number % ANONYMOUS_REGISTRANTS;
            return new UacCall(number, dueNanos, measured, runTag, UacCall.State.REGISTERING, user,
                    "sip:" + user + "@" + domain, "sip:" + domain, cred);
        }
        // the server takes the digest user to be the From user (RFC 3261 §22.4 leaves that to policy)
        String user = cred != null ? cred.user() : "lab-uac";
        String from = cred != null ? "sip:" + user + "@" + domain : "sip:lab-uac@sipcrypt.lab";
        String requestUri = switch (o.workload()) {
            case INVITE_NOT_FOUND -> "sip:" + UNKNOWN_USER + "@" + domain;
            case REDIRECT -> cred != null ? "sip:" + cred.user() + "@" + domain : o.requestUri();
            // RFC 3261 §11: the server itself, no user part; the port, since without one it means 5060
            case OPTIONS -> "sip:" + UacOptions.hostOf(o.target()) + ":" + o.target().getPort() + ";transport="
                    + o.transport().configName();
            default -> o.requestUri();
        };
        UacCall.State first = o.workload() == Workload.OPTIONS ? UacCall.State.QUERYING : UacCall.State.INVITING;
        return new UacCall(number, dueNanos, measured, runTag, first, user, from, requestUri, cred);
    }

    /** Sends the operation's first request and starts its timeout. */
    void begin(UacCall call) {
        call.nextRequest();
        restartTimeout(call);
        if (call.state == UacCall.State.REGISTERING) {
            call.registerPhase = 1;
            sendRegister(call);
        } else if (call.state == UacCall.State.QUERYING) {
            sendOptions(call);
        } else {
            sendInvite(call);
        }
    }

    /** A response for the operation (it is not done). */
    void onResponse(UacCall call, SipMessage m) {
        int status = m.status();
        long cseq = m.cseqNumber();
        switch (m.cseqMethod()) {
            case "INVITE" -> onInviteResponse(call, m, status, cseq);
            case "REGISTER" -> {
                // an answer to an earlier REGISTER of the Call-ID is a retransmission: nothing to do
                if (call.state == UacCall.State.REGISTERING && cseq == call.cseq) {
                    onRegisterResponse(call, m, status);
                }
            }
            case "BYE" -> {
                if (call.state == UacCall.State.BYEING && cseq == call.cseq) {
                    onLastResponse(call, m, status, "BYE");
                }
            }
            case "OPTIONS" -> {
                if (call.state == UacCall.State.QUERYING && cseq == call.cseq) {
                    onLastResponse(call, m, status, "OPTIONS");
                }
            }
            default -> uac.fail(call, "unexpected");
        }
    }

    private void onInviteResponse(UacCall call, SipMessage m, int status, long cseq) {
        boolean inviting = call.state == UacCall.State.INVITING || call.state == UacCall.State.PROCEEDING;
        if (!inviting || cseq != call.cseq) {
            retransmittedFinal(call, status, cseq);
            return;
        }
        if (status < 200) {
            call.state = UacCall.State.PROCEEDING;
            call.provisional = true;
            return;
        }
        if (status >= 300) {
            // RFC 3261 §17.1.1.3: the client transaction ACKs a final non-2xx itself, on every transport
            if (!uac.send(call, call.buildErrorAck(uac.via(call), m), o.target())) {
                return;
            }
            if ((status == 401 || status == 407) && call.credential != null) {
                answerChallenge(call, m, status, "INVITE");
            } else if (status == o.workload().expectedInviteStatus()) {
                uac.responseTime(call);
                uac.complete(call);
            } else {
                uac.fail(call, "status_" + status);
            }
            return;
        }
        call.confirm(m);
        if (o.workload() != Workload.CALL) {
            // a 2xx where a refusal or redirection was expected: end the INVITE properly, then fail
            if (call.remoteTarget != null) {
                call.nextHop = call.dialogNextHop();
                uac.send(call, call.buildAck(uac.via(call)), call.nextHop);
            }
            uac.fail(call, "status_" + status);
            return;
        }
        uac.responseTime(call);
        if (call.remoteTarget == null) {
            uac.fail(call, "unexpected");
            return;
        }
        call.nextHop = call.dialogNextHop();
        call.state = UacCall.State.CONFIRMED;
        cancelTimer(call);
        uac.send(call, call.buildAck(uac.via(call)), call.nextHop);
        if (o.hold().isZero()) {
            sendBye(call);
        } else {
            call.timer = later(() -> {
                synchronized (call) {
                    if (call.state == UacCall.State.CONFIRMED) {
                        sendBye(call);
                    }
                }
            }, o.hold().toMillis());
        }
    }

    /** A final answer to an INVITE already answered came again on UDP: its ACK was lost, so it goes again. */
    private void retransmittedFinal(UacCall call, int status, long cseq) {
        if (!uac.unreliable()) {
            return;
        }
        if (status >= 200 && status < 300 && call.ack != null && cseq == call.inviteCseq) {
            // RFC 3261 §13.2.2.4: every retransmitted 2xx gets the ACK again
            uac.retransmitted();
            uac.send(call, call.ack, call.nextHop);
        } else if (status >= 300 && call.errorAck != null && cseq == call.errorAckCseq) {
            // §17.1.1.2, Completed state: a retransmitted final response gets the ACK again
            uac.retransmitted();
            uac.send(call, call.errorAck, o.target());
        }
    }

    private void onRegisterResponse(UacCall call, SipMessage m, int status) {
        if (status < 200) {
            call.provisional = true;
            return;
        }
        if (status >= 300) {
            if ((status == 401 || status == 407) && call.credential != null) {
                answerChallenge(call, m, status, "REGISTER");
            } else {
                uac.fail(call, "status_" + status);
            }
            return;
        }
        if (call.registerPhase == 1) {
            uac.responseTime(call);
            if (o.workload() == Workload.REGISTER) {
                uac.complete(call);
                return;
            }
            // RFC 3261 §10.2.4 refresh and §10.2.2 removal: the same Call-ID, CSeq + 1
            call.registerPhase = 2;
            newLogicalRequest(call);
            restartTimeout(call);
            sendRegister(call);
        } else {
            uac.complete(call);
        }
    }

    /**
     * A response to the operation's last request, a BYE or an OPTIONS: a 2xx completes the operation
     * and ends the response time of an OPTIONS (a call's ended at the INVITE's 200, recorded once).
     */
    private void onLastResponse(UacCall call, SipMessage m, int status, String method) {
        if (status < 200) {
            call.provisional = true;
        } else if (status < 300) {
            uac.responseTime(call);
            uac.complete(call);
        } else if ((status == 401 || status == 407) && call.credential != null) {
            answerChallenge(call, m, status, method);
        } else {
            uac.fail(call, "status_" + status);
        }
    }

    /**
     * RFC 3261 §22.2 (401, WWW-Authenticate → Authorization) and §22.3 (407, Proxy-Authenticate →
     * Proxy-Authorization): the request again, with a new branch, CSeq + 1 and the credentials.
     */
    private void answerChallenge(UacCall call, SipMessage m, int status, String method) {
        if (call.challengeAnswered) {
            uac.fail(call, "auth_rejected");
            return;
        }
        boolean www = status == 401;
        DigestCredentials.Challenge c = DigestCredentials.choose(
                m.headerLines(www ? "WWW-Authenticate" : "Proxy-Authenticate"));
        if (c == null) {
            uac.fail(call, "auth_unsupported");
            return;
        }
        String digestUri = method.equals("BYE") ? call.remoteTarget : call.requestUri;
        call.nextRequest();
        call.authorization = (www ? "Authorization: " : "Proxy-Authorization: ")
                + DigestCredentials.authorization(c, call.credential, method, digestUri, DigestCredentials.newCnonce());
        call.challengeAnswered = true;
        uac.challengeAnswered(call);
        switch (method) {
            case "INVITE" -> {
                call.state = UacCall.State.INVITING;
                sendInvite(call);
            }
            case "REGISTER" -> sendRegister(call);
            case "OPTIONS" -> sendOptions(call);
            default -> startTransaction(call, call.buildBye(uac.via(call)), call.nextHop);
        }
    }

    /** A request that is no answer to a challenge: the next CSeq, no credentials yet. */
    private static void newLogicalRequest(UacCall call) {
        call.nextRequest();
        call.authorization = null;
        call.challengeAnswered = false;
    }

    private void sendInvite(UacCall call) {
        startTransaction(call, call.buildInvite(uac.via(call), contact(call, null)), o.target());
    }

    private void sendRegister(UacCall call) {
        int expires = call.registerPhase == 2 && o.workload() == Workload.UNREGISTER ? 0 : REGISTER_EXPIRES_SECONDS;
        startTransaction(call, call.buildRegister(uac.via(call), call.fromUri, contact(call, o.registerContact()),
                expires), o.target());
    }

    private void sendOptions(UacCall call) {
        startTransaction(call, call.buildOptions(uac.via(call)), o.target());
    }

    private void sendBye(UacCall call) {
        call.state = UacCall.State.BYEING;
        newLogicalRequest(call);
        restartTimeout(call);
        startTransaction(call, call.buildBye(uac.via(call)), call.nextHop);
    }

    /** The Contact: the user at the generator's address of the operation, or at {@code at}. */
    private String contact(UacCall call, InetSocketAddress at) {
        InetSocketAddress a = at != null ? at : uac.localAddress(call);
        String t = at != null ? o.transport().configName() : transportName(call);
        return "<sip:" + call.user + "@" + UacOptions.hostOf(a) + ":" + a.getPort() + ";transport=" + t + ">";
    }

    private static String transportName(UacCall call) {
        return call.channel != null ? call.channel.uriTransport() : "udp";
    }

    private void restartTimeout(UacCall call) {
        if (call.timeout != null) {
            call.timeout.cancel();
        }
        call.timeout = later(() -> uac.fail(call, "timeout"), o.callTimeout().toMillis());
    }

    /** Sends a new request of the operation; on UDP starts Timer A or E. */
    private void startTransaction(UacCall call, byte[] request, InetSocketAddress to) {
        cancelTimer(call);
        call.request = request;
        call.requestTo = to;
        call.provisional = false;
        call.transactionStartNanos = System.nanoTime();
        if (uac.send(call, request, to) && uac.unreliable()) {
            call.retransmitMillis = T1_MILLIS;
            call.timer = later(() -> retransmit(call), T1_MILLIS);
        }
    }

    /**
     * Schedules on the run's timer. A response read after the run ended (its timer stopped, its
     * calls failed by the run's end) schedules nothing: null, which the cancels skip.
     */
    private Timeout later(Runnable task, long millis) {
        try {
            return timer.newTimeout(t -> task.run(), millis, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException e) {
            return null;
        }
    }

    /**
     * Timer A (INVITE, doubling, RFC 3261 §17.1.1.2) and Timer E (REGISTER, OPTIONS and BYE, doubling up to T2,
     * T2 once a provisional response came, §17.1.2.2), until Timer B or F (64 × T1) gives up.
     */
    private void retransmit(UacCall call) {
        synchronized (call) {
            boolean invite = call.state == UacCall.State.INVITING;
            if (!invite && call.state != UacCall.State.BYEING && call.state != UacCall.State.REGISTERING
                    && call.state != UacCall.State.QUERYING) {
                return;
            }
            long elapsedMillis = (System.nanoTime() - call.transactionStartNanos) / 1_000_000;
            if (elapsedMillis >= 64 * T1_MILLIS) {
                uac.fail(call, "timeout");
                return;
            }
            uac.retransmitted();
            if (!uac.send(call, call.request, call.requestTo)) {
                return;
            }
            call.retransmitMillis = invite ? call.retransmitMillis * 2
                    : call.provisional ? T2_MILLIS : Math.min(call.retransmitMillis * 2, T2_MILLIS);
            long next = Math.min(call.retransmitMillis, Math.max(1, 64 * T1_MILLIS - elapsedMillis));
            call.timer = later(() -> retransmit(call), next);
        }
    }

    static void cancelTimer(UacCall call) {
        if (call.timer != null) {
            call.timer.cancel();
            call.timer = null;
        }
    }
}
