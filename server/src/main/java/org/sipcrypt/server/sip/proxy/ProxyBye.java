package org.sipcrypt.server.sip.proxy;

import java.text.ParseException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.sip.ClientTransaction;
import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;
import org.sipcrypt.server.cdr.CallRecords;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.transport.ConnectionScope;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Established calls as the management API sees them: what is kept of each ({@link EstablishedCall},
 * noted by {@link StatefulProxy} from the INVITE and its 2xx), and the proxy ending one itself with a
 * BYE to each party, built as that party's peer would send it (RFC 3261 §12.2.1.1, §15.1.1):
 * Request-URI the party's Contact, Route the Record-Route entries between this proxy and that party
 * (for the callee those above this proxy's own, in reverse; for the caller those below it, in order),
 * From and To the peer's, the Call-ID, a CSeq above the highest seen from the peer, this proxy's own
 * Via, and {@code Reason: SIP;cause=200;text="ended by the operator"} (RFC 3326). Towards the caller
 * the BYE takes the flow the INVITE came over while its connection is open (TCP, TLS, WebSocket),
 * else it goes where its Route set or Request-URI says. Each BYE runs its own client transaction;
 * the answers end them and nothing is relayed. The dialog is forgotten at once and the call's detail
 * record ends with {@code endedBy=admin}.
 * Threading: thread-safe; {@link #end} hands the work to the call's SIP lane and completes its future there.
 */
public final class ProxyBye {

    private static final Logger log = LoggerFactory.getLogger(ProxyBye.class);
    private static final String REASON = "SIP;cause=200;text=\"ended by the operator\"";

    /**
     * What was done to end a call: the Call-ID and, per party, where its BYE went or why none was sent.
     * Threading: immutable.
     *
     * @param toCaller the caller's BYE: {@code sent to URI over TRANSPORT}, or why it was not sent
     * @param toCallee the callee's BYE, likewise
     */
    public record Ended(String callId, boolean callerBye, String toCaller, boolean calleeBye, String toCallee) {
    }

    /**
     * The application data of the client transactions of these BYEs: their answers end them; the
     * call's connections are released when both have.
     * Threading: thread-safe.
     */
    static final class Sent {
        final String callId;
        final AtomicInteger pending;

        Sent(String callId, int pending) {
            this.callId = callId;
            this.pending = new AtomicInteger(pending);
        }
    }

    private final SipContext ctx;
    private final EstablishedDialogs dialogs;
    private final CallRecords records;

    /**
     * @param dialogs the established calls (record-routing on)
     * @param records the calls' detail records, or null when none are kept
     */
    public ProxyBye(SipContext ctx, EstablishedDialogs dialogs, CallRecords records) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.dialogs = Objects.requireNonNull(dialogs, "dialogs");
        this.records = records;
    }

    /** The established calls kept with their details, as {@link EstablishedDialogs#calls}. */
    public EstablishedDialogs.Listing calls(Predicate<EstablishedCall> filter, int limit) {
        return dialogs.calls(filter, limit);
    }

    /**
     * Ends every established dialog of {@code callId} (forks may have made several): a BYE to each
     * party, sent on the call's lane. Completes with one {@link Ended} per dialog once its BYEs have
     * left (not when they are answered); with an empty list when none is established.
     */
    public CompletableFuture<List<Ended>> end(String callId) {
        Objects.requireNonNull(callId, "callId");
        CompletableFuture<List<Ended>> done = new CompletableFuture<>();
        try {
            ctx.lane(callId).execute(() -> {
                try {
                    List<Ended> out = new ArrayList<>();
                    for (EstablishedCall c : dialogs.calls(c -> c.callId().equals(callId), Integer.MAX_VALUE).calls()) {
                        if (dialogs.endedHere(c)) {
                            out.add(end(c));
                        }
                    }
                    done.complete(out);
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    /** Sends both BYEs of {@code c}, whose dialog is already forgotten. On the call's lane. */
    private Ended end(EstablishedCall c) {
        Sent sent = new Sent(c.callId(), 2);
        String toCallee = send(c, false, sent);
        String toCaller = send(c, true, sent);
        if (records != null) {
            records.endedByAdmin(c.callId());
        }
        log.debug("{}: ended by the operator: caller {}, callee {}", c.callId(), toCaller, toCallee);
        return new Ended(c.callId(), toCaller.startsWith("sent"), toCaller, toCallee.startsWith("sent"), toCallee);
    }

    /** Builds and sends one BYE; returns where it went, or why it was not sent (and settles its share of {@code sent}). */
    private String send(EstablishedCall c, boolean toCaller, Sent sent) {
        String contact = toCaller ? c.callerContact() : c.calleeContact();
        if (contact == null) {
            finished(sent);
            return "not sent: no Contact of the " + (toCaller ? "caller" : "callee");
        }
        Request bye;
        ListeningPoints.Entry from;
        Flow flow = toCaller && c.callerFlow() != null && c.callerFlow().transport().reliable()
                && ctx.calls().flowOpen(c.callerFlow()) ? c.callerFlow() : null;
        try {
            bye = request(c, toCaller, contact);
            Transport transport = flow != null ? flow.transport() : BranchRewriter.outgoingTransport(bye);
            from = flow != null ? ctx.listeningPoints().at(transport, flow.local()) : null;
            if (from == null) {
                // the flow's listener is gone: where the Route set or Request-URI says
                flow = null;
                transport = BranchRewriter.outgoingTransport(bye);
                from = ctx.listeningPoints().toward(transport, BranchRewriter.nextHopHost(bye));
            }
            if (from == null) {
                finished(sent);
                return "not sent: no " + transport.configName() + " listener to send on";
            }
            StackInternals.attach(bye, flow);
            bye.addFirst(ctx.via(from.listener(), "z9hG4bK-sc-bye-" + UUID.randomUUID()));
        } catch (ParseException | SipException | InvalidArgumentException | RuntimeException e) {
            ctx.counters().error("prepare_bye");
            finished(sent);
            return "not sent: " + e.getMessage();
        }
        try (ConnectionScope scope = flow != null ? ConnectionScope.flow(c.callId()) : ConnectionScope.call(c.callId())) {
            ClientTransaction ct = from.provider().getNewClientTransaction(bye);
            ct.setApplicationData(sent);
            ct.sendRequest();
            return "sent to " + bye.getRequestURI() + " over " + from.listener().transport().configName()
                    + (flow != null ? " (the caller's flow)" : "");
        } catch (SipException | RuntimeException e) {
            ctx.counters().error("next_hop_unreachable");
            finished(sent);
            return "not sent: " + e.getMessage();
        }
    }

    /**
     * The BYE to one party, as its peer would send it in the dialog. The kept header values are read
     * back through the stack's parser (a copy of the 2xx's dialog headers), so a Record-Route line
     * holding several entries is split as the stack splits it.
     */
    private Request request(EstablishedCall c, boolean toCaller, String contact) throws ParseException {
        StringBuilder text = new StringBuilder(512).append("BYE sip:invalid SIP/2.0\r\n")
                .append("Contact: ").append(contact).append("\r\n");
        for (String rr : c.recordRoute()) {
            text.append("Record-Route: ").append(rr).append("\r\n");
        }
        long cseq = (toCaller ? c.calleeCSeq() : c.callerCSeq()) + 1;
        text.append("From: ").append(toCaller ? c.to() : c.from()).append("\r\n")
                .append("To: ").append(toCaller ? c.from() : c.to()).append("\r\n")
                .append("Call-ID: ").append(c.callId()).append("\r\n")
                .append("CSeq: ").append(cseq).append(" BYE\r\n")
                .append("Max-Forwards: ").append(BranchRewriter.DEFAULT_MAX_FORWARDS).append("\r\n")
                .append("Reason: ").append(REASON).append("\r\n")
                .append("Content-Length: 0\r\n\r\n");
        Request bye = ctx.messages().createRequest(text.toString());
        ContactHeader target = (ContactHeader) bye.getHeader(ContactHeader.NAME);
        if (target == null || target.getAddress() == null) {
            throw new ParseException("the Contact " + contact + " names no URI", 0);
        }
        // RFC 3261 §12.2.1.1: the Request-URI is the remote target
        bye.setRequestURI(target.getAddress().getURI());
        bye.removeHeader(ContactHeader.NAME);
        List<Header> entries = new ArrayList<>();
        ListIterator<?> it = bye.getHeaders(RecordRouteHeader.NAME);
        while (it.hasNext()) {
            entries.add((Header) it.next());
        }
        bye.removeHeader(RecordRouteHeader.NAME);
        int firstOwn = -1;
        int lastOwn = -1;
        for (int i = 0; i < entries.size(); i++) {
            if (ctx.local().isLocal(((RecordRouteHeader) entries.get(i)).getAddress().getURI())) {
                firstOwn = firstOwn < 0 ? i : firstOwn;
                lastOwn = i;
            }
        }
        List<Header> route = new ArrayList<>();
        if (toCaller) {
            // the callee's route set is the Record-Route in order: past us come the entries below ours
            route.addAll(entries.subList(lastOwn + 1, entries.size()));
        } else {
            // the caller's is the Record-Route reversed: past us come the entries above ours, nearest first
            route.addAll(entries.subList(0, Math.max(firstOwn, 0)));
            Collections.reverse(route);
        }
        for (Header h : route) {
            bye.addHeader(ctx.headers().createRouteHeader(((RecordRouteHeader) h).getAddress()));
        }
        return bye;
    }

    /** A BYE of ours was answered finally, timed out, or never left. */
    void answered(Sent sent, int status) {
        log.debug("{}: the operator's BYE answered {}", sent.callId, status);
        finished(sent);
    }

    private void finished(Sent sent) {
        if (sent.pending.decrementAndGet() == 0) {
            ctx.calls().releaseCall(sent.callId);
        }
    }

    /**
     * What to keep of a call a 2xx to its INVITE established.
     *
     * @param invite        the INVITE as received
     * @param start         when the proxy took it
     * @param to            the 2xx's To value (with the callee's tag)
     * @param calleeContact the 2xx's Contact value, or null
     * @param recordRoute   the 2xx's Record-Route values, top first
     * @param outTransport  the callee's leg, or null
     * @return null when the dialog's tags cannot be read
     */
    static EstablishedCall describe(Request invite, Instant start, Instant answer, String to, String calleeContact,
                                    List<String> recordRoute, String outTransport) {
        FromHeader from = (FromHeader) invite.getHeader(FromHeader.NAME);
        String calleeTag = to == null ? null : SipHead.tag(to);
        if (from == null || from.getTag() == null || calleeTag == null) {
            return null;
        }
        ContactHeader contact = (ContactHeader) invite.getHeader(ContactHeader.NAME);
        CSeqHeader cseq = (CSeqHeader) invite.getHeader(CSeqHeader.NAME);
        Flow in = SipContext.flowOf(invite);
        ViaHeader via = (ViaHeader) invite.getHeader(ViaHeader.NAME);
        String inTransport = in != null ? in.transport().sipName().toLowerCase(Locale.ROOT)
                : via == null ? null : via.getTransport().toLowerCase(Locale.ROOT);
        String callId = ((CallIdHeader) invite.getHeader(CallIdHeader.NAME)).getCallId();
        ToHeader calledTo = (ToHeader) invite.getHeader(ToHeader.NAME);
        return new EstablishedCall(callId, StackInternals.value(from), to, from.getTag(), calleeTag,
                from.getAddress().getURI().toString(), calledTo == null ? null : calledTo.getAddress().getURI().toString(),
                contact == null ? null : StackInternals.value(contact), calleeContact, recordRoute, cseq == null ? 0 : cseq.getSeqNumber(), 0, start, answer,
                inTransport, outTransport, in);
    }

    /** The values of the Record-Route headers of a parsed message, top first. */
    static List<String> recordRoute(Message m) {
        List<String> out = new ArrayList<>();
        ListIterator<?> it = m.getHeaders(RecordRouteHeader.NAME);
        while (it.hasNext()) {
            out.add(StackInternals.value((Header) it.next()));
        }
        return out;
    }

    /** The Contact value of a parsed message, or null. */
    static String contact(Message m) {
        Header h = m.getHeader(ContactHeader.NAME);
        return h == null ? null : StackInternals.value(h);
    }

    /** The To value of a parsed message, or null. */
    static String to(Message m) {
        Header h = m.getHeader(ToHeader.NAME);
        return h == null ? null : StackInternals.value(h);
    }
}
