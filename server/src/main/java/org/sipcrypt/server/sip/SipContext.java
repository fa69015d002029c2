package org.sipcrypt.server.sip;

import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sip.ListeningPoint;
import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.transport.CallConnections;
import org.sipcrypt.server.transport.kept.CompletedTransactions;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.SipWorkers;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the SIP functions (registrar, proxy, redirect) share: the JAIN-SIP provider and factories,
 * the listening points, which URIs are ours, the worker lanes, the clock and the counters; and the
 * one way to answer a request.
 * Threading: thread-safe; never blocks.
 */
public final class SipContext {

    private static final Logger log = LoggerFactory.getLogger(SipContext.class);

    private final SipProvider provider;
    private final MessageFactory messages;
    private final HeaderFactory headers;
    private final AddressFactory addresses;
    private final ListeningPoints listeningPoints;
    private final LocalDomains local;
    private final SipWorkers workers;
    private final CallConnections calls;
    private final SipCounters counters;
    private final Clock clock;
    private final CompletedTransactions completed;
    private final AtomicBoolean draining = new AtomicBoolean();
    private final java.util.Set<ServerTransaction> unanswered = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @param completed final responses the transport keeps for retransmissions of completed UDP
     *                  transactions, so that the stack can end them once answered; null when the
     *                  transport does not (JAIN-SIP's own transports), and the stack keeps them
     */
    public SipContext(MessageFactory messages, HeaderFactory headers, AddressFactory addresses,
                      ListeningPoints listeningPoints, LocalDomains local, SipWorkers workers,
                      CallConnections calls, SipCounters counters, Clock clock, CompletedTransactions completed) {

        this.messages = Objects.requireNonNull(messages, "messages");
        this.headers = Objects.requireNonNull(headers, "headers");
        this.addresses = Objects.requireNonNull(addresses, "addresses");
        this.listeningPoints = Objects.requireNonNull(listeningPoints, "listeningPoints");
        this.provider = listeningPoints.defaultProvider();
        this.local = Objects.requireNonNull(local, "local");
        this.workers = Objects.requireNonNull(workers, "workers");
        this.calls = Objects.requireNonNull(calls, "calls");
        this.counters = Objects.requireNonNull(counters, "counters");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.completed = completed;
    }

    /** The first provider, holding the first listening point of each transport (see {@link ListeningPoints}). */
    public SipProvider provider() {
        return provider;
    }

    public MessageFactory messages() {
        return messages;
    }

    public HeaderFactory headers() {
        return headers;
    }

    public AddressFactory addresses() {
        return addresses;
    }

    public LocalDomains local() {
        return local;
    }

    public CallConnections calls() {
        return calls;
    }

    public SipCounters counters() {
        return counters;
    }

    public Clock clock() {
        return clock;
    }

    /** Whether the server is shutting down and refuses new calls. */
    public boolean draining() {
        return draining.get();
    }

    /** Starts refusing new out-of-dialog requests with 503. */
    public void startDraining() {
        draining.set(true);
    }

    /** Notes a request that awaits its final response (for draining at shutdown). */
    public void opened(ServerTransaction st) {
        counters.transactionTimes().start(st);
        unanswered.add(st);
    }

    /** Forgets a server transaction (final response sent, or the transaction ended). */
    public void answered(ServerTransaction st) {
        counters.transactionTimes().end(st);
        unanswered.remove(st);
    }

    /** Requests still waiting for a final response. */
    public int unansweredRequests() {
        return unanswered.size();
    }

    /** {@code Retry-After: 5}, sent with 503 when the location service fails (the pool recovers by itself). */
    public Header retryAfter() {
        try {
            return headers.createRetryAfterHeader(5);
        } catch (javax.sip.InvalidArgumentException e) {
            throw new IllegalStateException("Retry-After 5 refused", e);
        }
    }

    /** The first listening point of a transport, or {@code null} when the server does not listen on it. */
    public ListeningPoint listeningPoint(Transport transport) {
        ListeningPoints.Entry e = listeningPoints.first(transport);
        return e == null ? null : e.point();
    }

    /** Every listener with its listening point and provider, and which one a message uses. */
    public ListeningPoints listeningPoints() {
        return listeningPoints;
    }

    /**
     * An executor running on the lane of a Call-ID, so continuations of asynchronous work stay in
     * order with the call's messages. When the lane is full the task runs on the calling thread
     * rather than being lost.
     */
    public Executor lane(String callId) {
        return task -> {
            if (!workers.execute(callId, task)) {
                task.run();
            }
        };
    }

    /** Whether the calling thread runs a task of the lane of {@code callId} (see {@link SipWorkers#onLaneOf}). */
    public boolean onLane(String callId) {
        return workers.onLaneOf(callId);
    }

    /** A Via header for a request leaving from {@code listener}: its advertised host and port (RFC 3261 §18.2.1). */
    public ViaHeader via(Listener listener, String branch) throws java.text.ParseException,
            javax.sip.InvalidArgumentException {
        return headers.createViaHeader(listener.sentByHost(), listener.sentByPort(), listener.transport().sipName(),
                branch);
    }

    /**
     * This server's URI on a listener, {@code sip:host:port;transport=x;lr} with its advertised host
     * and port, for Record-Route (RFC 3261 §16.6 step 4).
     */
    public SipURI selfUri(Listener listener) throws java.text.ParseException {
        SipURI uri = addresses.createSipURI(null, listener.sentByHost());
        uri.setPort(listener.sentByPort());
        uri.setTransportParam(listener.transport().configName());
        uri.setLrParam();
        return uri;
    }

    /**
     * Answers a CANCEL (RFC 3261 §9.2): 481 when it matches no INVITE server transaction, else 200.
     *
     * @return the server transaction of the INVITE it cancels, or null when there is none
     */
    public ServerTransaction answerCancel(Request cancel, ServerTransaction st) {
        ServerTransaction invite = StackInternals.canceledInvite(st);
        respond(st, cancel, invite == null ? Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST : Response.OK);
        return invite;
    }

    /**
     * Answers a request on its server transaction. Failures to send (the peer went away) are
     * counted and logged, never thrown: there is nobody left to tell.
     */
    public void respond(ServerTransaction st, Request request, int status, Header... extra) {
        respond(st, request, status, null, extra);
    }

    /** As {@link #respond(ServerTransaction, Request, int, Header...)} with a reason phrase. */
    public void respond(ServerTransaction st, Request request, int status, String reason, Header... extra) {
        try {
            Response response = createResponse(status, request);
            if (reason != null) {
                response.setReasonPhrase(reason);
            }
            for (Header h : extra) {
                response.addHeader(h);
            }
            answer(st, response);
        } catch (java.text.ParseException e) {
            counters.error("build_response");
            log.warn("cannot build {} response: {}", status, e.toString());
        }
    }

    /**
     * A response this server answers itself (not one it forwards): with a To tag when the request
     * had none and the status is above 100 (RFC 3261 §8.2.6.2).
     */
    public Response createResponse(int status, Request request) throws java.text.ParseException {
        Response response = messages.createResponse(status, request);
        ToHeader to = (ToHeader) response.getHeader(ToHeader.NAME);
        if (status > Response.TRYING && to != null && to.getTag() == null) {
            to.setTag(Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()));
        }
        return response;
    }

    /**
     * The flow a request came over (RFC 5626 §3.3), when its transport records flows (the Netty
     * transport does); else null.
     */
    public static org.sipcrypt.server.transport.Flow flowOf(Request request) {
        var c = StackInternals.carrierOf(request);
        return c == null ? null : c.flow();
    }

    /**
     * The TLS cipher suite negotiated on the connection a message came over, or null when it did not
     * come over TLS, its transport does not tell, or the handshake had not finished.
     */
    public static String cipherSuiteOf(Request request) {
        var c = StackInternals.carrierOf(request);
        return c == null ? null : c.cipherSuite();
    }

    /** The address a request's packet came from (the peer of its connection), or null when unknown. */
    public static java.net.InetAddress sourceAddress(Request request) {
        return StackInternals.sourceAddress(request);
    }

    /**
     * Whether a final response completes its transaction over UDP without the stack's transaction,
     * which then ends, while the transport keeps the response's bytes and answers retransmissions
     * of the request with them: the final response of a non-INVITE transaction, for Timer J
     * (RFC 3261 §17.2.2), and a 300–699 the server itself gives an INVITE ({@code own}), until its
     * ACK, which the transport absorbs (§17.2.1; with digest authentication every call has such a
     * 407). The latter only while no provisional response has gone: the client is then still
     * "Calling" and retransmits the INVITE until a response reaches it (§17.1.1.2, Timer A), so the
     * kept bytes stand in for Timer G; after a 100 the client stops retransmitting, and only the
     * stack's transaction would send the response again. A response relayed to an INVITE stays
     * with its transaction (§16.7).
     */
    private static boolean completesOverUdp(ServerTransaction st, Response response, boolean own) {
        if (response.getStatusCode() < 200
                || !StackInternals.overUdp(st)) {
            return false;
        }
        CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
        if (cseq == null) {
            return false;
        }
        if (!Request.INVITE.equals(cseq.getMethod())) {
            return true;
        }
        if (own && response.getStatusCode() >= 300 && StackInternals.lastResponseStatus(st) == 0) {
            StackInternals.attach(response, CompletedTransactions.Mark.REJECTED_INVITE);
            return true;
        }
        return false;
    }

    /**
     * An INVITE answered with 2xx: RFC 3261 §17.2.1 destroys its transaction (the UAS retransmits
     * the 2xx end to end, and its ACK is a transaction of its own). The stack would keep it for
     * 32 s; over UDP the transport absorbs retransmissions of the INVITE instead, as RFC 6026
     * §7.1's "Accepted" state does.
     */
    private void endAccepted(ServerTransaction st, Response response) {
        CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
        if (cseq == null || !Request.INVITE.equals(cseq.getMethod())) {
            return;
        }
        endAcceptedInvite(st, (ViaHeader) response.getHeader(ViaHeader.NAME));
    }

    /** Ends the answered INVITE transaction {@code st}; over UDP its key {@code via} absorbs retransmitted INVITEs. */
    private void endAcceptedInvite(ServerTransaction st, ViaHeader via) {
        if (completed != null && StackInternals.overUdp(st)) {
            completed.absorbed(CompletedTransactions.key(via, Request.INVITE));
        }
        endTransaction(st);
    }

    /**
     * RFC 3261 §17.2.1: an INVITE transaction answered with 300–699 over UDP waits Timer I (T4,
     * 5 s) after the ACK only to absorb retransmissions of the ACK. Once the ACK has arrived the
     * response is not sent again, so the only ACK still to come is one answering a copy already in
     * flight, within a round trip; one timer tick (500 ms) covers that and releases the transaction
     * ten times sooner. This is for the rejections the server relays; its own go without the
     * stack's transaction ({@link #completesOverUdp}).
     */
    private static void shortTimerI(ServerTransaction st, Response response) {
        CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
        if (cseq != null && Request.INVITE.equals(cseq.getMethod()) && StackInternals.overUdp(st)) {
            StackInternals.shortenT4(st);
        }
    }

    /**
     * Ends a server or client transaction now and removes it from the stack, which would otherwise
     * keep it, with its parsed messages, for its timers; counted as {@code sip.app.errors{reason=end_transaction}}
     * when the stack refuses. The stack's periodic transaction timer still holds the transaction
     * until its next tick (up to 500 ms), when it would release the messages itself; releasing them,
     * and the proxy's call (the transaction's application data), here keeps them out of the heap
     * for that half second (at 3,000 calls/s, about 6,000 transactions with their messages, which
     * every young collection copied and every ZGC cycle marked).
     */
    public void endTransaction(javax.sip.Transaction t) {
        try {
            t.terminate();
        } catch (javax.sip.ObjectInUseException e) {
            counters.error("end_transaction");
            log.debug("cannot end {} transaction {}: {}", t instanceof ServerTransaction ? "server" : "client",
                    StackInternals.id(t), e.toString());
            return;
        }
        StackInternals.remove(t);
        // the stack leaves the application's data to the application: the proxy's call and branch
        t.setApplicationData(null);
    }

    /**
     * A 2xx to the INVITE of {@code st} went upstream from its bytes over UDP, without the stack:
     * counted as sent, the transaction answered and ended at once as {@link #endAccepted} ends it
     * (the transport absorbs retransmissions of the INVITE, RFC 6026 §7.1).
     *
     * @param invite the INVITE of {@code st}, whose top Via keys its retransmissions
     */
    public void relayedUpstream(ServerTransaction st, int status, Request invite) {
        counters.responseSent(status);
        try {
            endAcceptedInvite(st, (ViaHeader) invite.getHeader(ViaHeader.NAME));
        } finally {
            answered(st);
        }
    }

    /**
     * A final response to an INVITE over UDP goes through the stack's transaction, which answers the
     * INVITE's retransmissions from now on: the provisional response the transport kept for them, one
     * relayed from its bytes ({@link CompletedTransactions#provisional}), goes.
     */
    private void dropKeptProvisional(ServerTransaction st, Response response) {
        CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
        if (cseq != null && Request.INVITE.equals(cseq.getMethod())
                && StackInternals.overUdp(st)) {
            completed.finalResponse(CompletedTransactions.key((ViaHeader) response.getHeader(ViaHeader.NAME),
                    Request.INVITE));
        }
    }

    /**
     * Sends a response this server relays (RFC 3261 §16.7) on a server transaction, or statelessly
     * when there is none.
     */
    public void send(ServerTransaction st, Response response) {
        send(st, response, false);
    }

    /** Sends a response this server built itself, as {@link #send} does. */
    public void answer(ServerTransaction st, Response response) {
        send(st, response, true);
    }

    private void send(ServerTransaction st, Response response, boolean own) {
        boolean finalResponse = response.getStatusCode() >= 200;
        String undelivered = "send_failed";
        try {
            if (st != null && finalResponse && noListenerFor(st, response)) {
                undelivered = "no_listener";
                log.debug("cannot send {} response: no listener for its Via's transport {}", response.getStatusCode(),
                        ((ViaHeader) response.getHeader(ViaHeader.NAME)).getTransport());
                return;
            }
            if (st != null && completed != null && finalResponse) {
                dropKeptProvisional(st, response);
            }
            if (st != null && completed != null && completesOverUdp(st, response, own)) {
                // RFC 3261 §17.2.1, §17.2.2: the transport keeps the bytes for Timer J (H); the
                // stack's transaction would keep itself, both parsed messages and timers
                providerOf(st).sendResponse(response);
                endTransaction(st);
            } else if (st != null) {
                if (completed != null && response.getStatusCode() >= 300) {
                    shortTimerI(st, response);
                }
                st.sendResponse(response);
                if (completed != null && response.getStatusCode() / 100 == 2) {
                    endAccepted(st, response);
                }
            } else {
                providerToward(response).sendResponse(response);
            }
            counters.responseSent(response.getStatusCode());
            undelivered = null;
        } catch (javax.sip.SipException | javax.sip.InvalidArgumentException | RuntimeException e) {
            counters.error("send_response");
            log.debug("cannot send {} response: {}", response.getStatusCode(), e.toString());
        } finally {
            // answered, or unanswerable: either way nothing is left to wait for at shutdown
            if (st != null && finalResponse) {
                if (undelivered != null) {
                    endUndelivered(st, undelivered);
                }
                answered(st);
            }
        }
    }

    /** The provider of the listening point a server transaction's request came in on: its response leaves there. */
    private SipProvider providerOf(ServerTransaction st) {
        ListeningPoints.Entry e = listeningPoints.of(st);
        return e == null ? provider : e.provider();
    }

    /**
     * The provider a response without a transaction leaves through: that of the first listener of its
     * top Via's transport and of the address family of where it goes ({@code received}, else the
     * sent-by host; RFC 3261 §18.2.2).
     */
    private SipProvider providerToward(Response response) {
        ViaHeader via = (ViaHeader) response.getHeader(ViaHeader.NAME);
        if (via == null || via.getTransport() == null) {
            return provider;
        }
        Transport t;
        try {
            t = Transport.parse(via.getTransport());
        } catch (IllegalArgumentException e) {
            return provider;
        }
        ListeningPoints.Entry e = listeningPoints.toward(t, via.getReceived() != null ? via.getReceived() : via.getHost());
        return e == null ? provider : e.provider();
    }

    /**
     * RFC 3261 §18.2.2: a response to a request that came over UDP goes by its top Via's transport.
     * When the server has no listener for that transport (a Via naming TLS on a server without TLS)
     * it cannot go at all; the stack would fail on the missing listening point and leave the
     * transaction without a final response, and without a timer, for good.
     */
    private boolean noListenerFor(ServerTransaction st, Response response) {
        ViaHeader via = (ViaHeader) response.getHeader(ViaHeader.NAME);
        if (via == null || via.getTransport() == null || StackInternals.reliable(st)) {
            return false;
        }
        // the stack answers from the provider of the transaction's listening point
        return providerOf(st).getListeningPoint(via.getTransport()) == null;
    }

    /**
     * RFC 3261 §17.2.4: a final response that could not be sent (no connection could be opened, no
     * listener for the transport its Via names, the send failed) ends its server transaction, which
     * would otherwise stay in the stack, keeping its messages and its branch, with nothing left to
     * end it. Counted as {@code sip.transactions.aborted{reason}}.
     */
    private void endUndelivered(ServerTransaction st, String reason) {
        counters.transactionAborted(reason);
        if (StackInternals.held(st)) {
            endTransaction(st);
        }
    }
}
