package org.sipcrypt.server.transport.fastpath;

import java.net.InetSocketAddress;
import java.util.Locale;
import javax.sip.ClientTransaction;
import javax.sip.message.Request;
import org.sipcrypt.server.transport.kept.CompletedTransactions;
import org.sipcrypt.server.transport.EarlyAnswers;
import org.sipcrypt.server.transport.EarlyRelays;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.TransportCounters;

/**
 * What a received message settles from its bytes, in this order (RFC 3261 §17.2, §16.11): over
 * UDP, a request the kept transactions know (by its top Via's branch and sent-by) is answered from
 * the kept bytes or absorbed; a request the {@link EarlyAnswers} answer (the first INVITE of a call
 * with digest authentication on) gets its final response, kept as one the stack sent would be;
 * over UDP, TCP and TLS, an ACK none of them absorbed (one for a 2xx) and a BYE, and a response
 * coming back for a request relayed so or settling a proxied INVITE, go on through the
 * {@link EarlyRelays}. Everything else goes to the parse. Asked only of a message
 * {@link SipHead#irregularity} passed (the readers here take nothing the parse would read
 * otherwise), and not at all with {@code sip.fastPath} off.
 * Threading: thread-safe (holds only its seams); {@link #handle} runs on the SIP worker lane of
 * the message and never blocks.
 */
public final class FastPath {

    /** What {@link #handle} did with a message. */
    public enum Outcome {
        /** Settled here: answered, absorbed or relayed; nothing more is done with it. */
        SETTLED,
        /**
         * Not settled, but a request whose key the kept transactions were asked for already: its
         * parse is not looked up there again.
         */
        KEPT_LOOKED_UP,
        /** Not settled: the parse decides. */
        NOT_SETTLED
    }

    /**
     * The parts of the transport the fast path uses, read when a message comes (the SIP layer plugs
     * its answers and relays in after the transport starts).
     * Threading: implementations are thread-safe.
     */
    public interface Seams {
        /** The kept transactions, or null over a transport that keeps none. */
        CompletedTransactions completedTransactions();

        /** The early answers, or null when none are plugged in. */
        EarlyAnswers earlyAnswers();

        /** The early relays, or null when none are plugged in. */
        EarlyRelays earlyRelays();

        /** The transport's counters. */
        TransportCounters counters();
    }

    /**
     * The channel a message came in on, as the fast path needs it: the only way it reaches the
     * transport and the transaction layer.
     * Threading: called on the SIP worker lane of the message being received.
     */
    public interface Channel {
        /** The transport the message came over. */
        Transport transport();

        /** Where the message came from. */
        InetSocketAddress source();

        /** The address of the socket it came in on. */
        InetSocketAddress local();

        /** Whether the transaction layer holds a server transaction of {@code branch} (lower case). */
        boolean holdsServerTransaction(String branch);

        /** The client transaction of {@code branch} (lower case), or null when there is none. */
        ClientTransaction clientTransaction(String branch);

        /** Sends bytes to an address from this channel's socket; counts them dropped when they cannot go. */
        void send(byte[] bytes, InetSocketAddress to);

        /**
         * Sends a relay's copy: on the upstream server transaction's channel when it names one (over
         * TCP and TLS, the connection its request came in on), else as {@link #send}.
         */
        void sendRelayed(EarlyRelays.Relay relay);

        /** Answers the message being received, back the way it came. */
        void answer(byte[] bytes);

        /** The TRACE dump of a message settled here, saying how. */
        void dumpReceived(byte[] bytes, String how);
    }

    private final Seams seams;

    /** The fast path over the transport's {@code seams}. */
    public FastPath(Seams seams) {
        this.seams = seams;
    }

    /** What the fast path does with the message {@code head} indexes, received on {@code channel}. */
    public Outcome handle(SipHead head, Channel channel) {
        if (channel.transport().reliable()) {
            return relayedOverConnection(head, channel) ? Outcome.SETTLED : Outcome.NOT_SETTLED;
        }
        CompletedTransactions completed = seams.completedTransactions();
        if (completed == null) {
            return Outcome.NOT_SETTLED;
        }
        String method = head.method();
        if (method == null) {
            return relayedResponse(head, channel) ? Outcome.SETTLED : Outcome.NOT_SETTLED;
        }
        boolean ack = Request.ACK.equals(method);
        TopVia via = head.topVia();
        String key = CompletedTransactions.key(via, ack ? Request.INVITE : method);
        if (key == null) {
            return Outcome.NOT_SETTLED;
        }
        if (absorbed(completed, ack, key, channel)) {
            channel.dumpReceived(head.bytes(), "absorbed by a kept transaction");
            return Outcome.SETTLED;
        }
        boolean settled = ack ? relayedRequest(head, method, via, channel)
                : answered(completed, head, method, via, key, channel) || relayedRequest(head, method, via, channel);
        return settled ? Outcome.SETTLED : Outcome.KEPT_LOOKED_UP;
    }

    /**
     * Over TCP and TLS, where nothing is retransmitted and no transaction is kept by the transport:
     * the ACK and BYE the {@link EarlyRelays} take, and the responses coming back, go on from their
     * bytes; every other request (an INVITE, a REGISTER) goes to the parse without a look here.
     */
    private boolean relayedOverConnection(SipHead head, Channel channel) {
        if (seams.earlyRelays() == null) {
            return false;
        }
        String method = head.method();
        if (method == null) {
            return relayedResponse(head, channel);
        }
        if (!Request.ACK.equals(method) && !Request.BYE.equals(method)) {
            return false;
        }
        TopVia via = head.topVia();
        return via != null && TopVia.rfc3261Branch(via.branch()) && relayedRequest(head, method, via, channel);
    }

    /**
     * RFC 3261 §17.2.2 and §17.2.1: a retransmission of a request whose transaction has completed
     * is answered with the final response kept for it, and the ACK of an INVITE the server rejected
     * is absorbed, by the request's key ({@link CompletedTransactions#key}); false when none is kept,
     * or when the request comes from another address than the kept answer went to. The one rule for
     * a request read from its bytes here and for one the parse had to read.
     */
    public boolean absorbed(CompletedTransactions completed, boolean ack, String key, Channel channel) {
        TransportCounters counters = seams.counters();
        if (ack) {
            if (!completed.acknowledged(key)) {
                return false;
            }
            counters.ackAbsorbed();
            return true;
        }
        CompletedTransactions.Answer answer = completed.retransmission(key);
        if (answer == null || !answer.absorb()
                && !answer.destination().getAddress().equals(channel.source().getAddress())) {
            // a kept answer goes again only to the address it went to, and only when asked from
            // there: a request naming another client's Via cannot aim it at that client
            return false;
        }
        counters.retransmissionAbsorbed();
        if (!answer.absorb()) {
            channel.send(answer.response(), answer.destination());
        }
        return true;
    }

    /**
     * Sends the early answer to a request, if there is one, and keeps it for the request's
     * retransmissions (and, for an INVITE, its ACK). Only for a request whose version and branch
     * pass the checks its parse would make here: another version, or a branch of a transaction the
     * stack holds, gets the parse's answer, not this one.
     */
    private boolean answered(CompletedTransactions completed, SipHead head, String method, TopVia via, String key,
                             Channel channel) {
        EarlyAnswers early = seams.earlyAnswers();
        // the SIP layer's cheap look first: a request it would not answer (every one with
        // credentials) pays for none of the parse's checks twice
        if (early == null || !early.answers(head, method, channel.source()) || !head.requestLineIsSip20()
                || channel.holdsServerTransaction(via.branch().toLowerCase(Locale.ROOT))) {
            return false;
        }
        byte[] response = early.answer(head, method, via, channel.source());
        if (response == null) {
            return false;
        }
        channel.dumpReceived(head.bytes(), "answered before the parse");
        seams.counters().answeredEarly();
        completed.completed(key, response, channel.source());
        channel.answer(response);
        return true;
    }

    /**
     * Sends on the relayed copy of a request, if there is one: an ACK no kept transaction absorbed
     * (one for a 2xx) or a BYE goes on from its bytes. Only for a request whose version passes the
     * check its parse would make, and whose branch no transaction of the stack holds (an ACK for a
     * non-2xx the stack sent is the stack's to absorb).
     */
    private boolean relayedRequest(SipHead head, String method, TopVia via, Channel channel) {
        EarlyRelays relays = seams.earlyRelays();
        if (relays == null || !head.requestLineIsSip20()
                || channel.holdsServerTransaction(via.branch().toLowerCase(Locale.ROOT))) {
            return false;
        }
        EarlyRelays.Relay relay = relays.relay(head, method, via, channel.source(), channel.local(),
                channel.transport());
        if (relay == null) {
            return false;
        }
        channel.dumpReceived(head.bytes(), "relayed before the parse");
        seams.counters().relayedEarly();
        channel.sendRelayed(relay);
        return true;
    }

    /**
     * Sends on the relayed copy of a response, if there is one: one that comes back through a
     * request the {@link EarlyRelays} relayed goes on from its bytes, and over UDP a final one is
     * kept for the request's retransmissions ({@link #keepFinal}); so does one the relays settle with
     * the client transaction its branch names (a 2xx or a provisional response to a proxied INVITE,
     * the latter kept for the INVITE's retransmissions, {@link #keepProvisional}). The relays' cheap
     * look comes first, so a response they would not take (a 180, say) pays for no more.
     */
    private boolean relayedResponse(SipHead head, Channel channel) {
        EarlyRelays relays = seams.earlyRelays();
        if (relays == null || !head.isResponse()) {
            return false;
        }
        TopVia via = head.topVia();
        if (via == null) {
            return false;
        }
        ClientTransaction transaction = channel.clientTransaction(via.branch().toLowerCase(Locale.ROOT));
        if (!relays.relaysResponse(head, via, transaction, channel.local(), channel.transport())) {
            return false;
        }
        EarlyRelays.Relay relay = relays.relayResponse(head, via, transaction, channel.local(), channel.transport());
        if (relay == null) {
            return false;
        }
        channel.dumpReceived(head.bytes(), "relayed before the parse");
        seams.counters().responseRelayedEarly();
        CompletedTransactions completed = seams.completedTransactions();
        if (!channel.transport().reliable() && completed != null) {
            keepFinal(completed, relay);
            if (transaction != null) {
                keepProvisional(completed, relay);
            }
        }
        channel.sendRelayed(relay);
        return true;
    }

    /**
     * RFC 3261 §17.2.1: a provisional response relayed upstream to an INVITE in progress (one the
     * SIP layer settled with the INVITE's client transaction) is kept under the upstream INVITE's
     * key, the Via now on top of the copy, so that a retransmission of that INVITE gets it again, as
     * the stack's server transaction would have sent it, until the final response goes.
     */
    private static void keepProvisional(CompletedTransactions completed, EarlyRelays.Relay relay) {
        byte[] response = relay.message();
        if (response.length > 8 && response[8] == '1' && relay.topVia() != null) {
            completed.provisional(CompletedTransactions.key(TopVia.of(relay.topVia()), Request.INVITE), response,
                    relay.to());
        }
    }

    /**
     * RFC 3261 §17.2.2, as a stateful relay would: the final response to a non-INVITE request that
     * went on statelessly is kept under that request's key (the Via now on top of the copy), so a
     * retransmission of the request is answered from it and never reaches the next hop again.
     */
    private static void keepFinal(CompletedTransactions completed, EarlyRelays.Relay relay) {
        byte[] response = relay.message();
        String method = relay.cseqMethod();
        if (response.length < 12 || response[8] < '2' || response[8] > '6' || method == null
                || relay.topVia() == null || Request.INVITE.equals(method) || Request.ACK.equals(method)) {
            return;
        }
        String key = CompletedTransactions.key(TopVia.of(relay.topVia()), method);
        if (key != null) {
            completed.completed(key, response, relay.to());
        }
    }
}
