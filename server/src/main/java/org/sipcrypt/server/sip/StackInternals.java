package org.sipcrypt.server.sip;

import gov.nist.javax.sip.address.AddressFactoryImpl;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.message.MessageExt;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.stack.SIPClientTransaction;
import gov.nist.javax.sip.stack.SIPServerTransaction;
import gov.nist.javax.sip.stack.SIPTransaction;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import javax.sip.ClientTransaction;
import javax.sip.ListeningPoint;
import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.Transaction;
import javax.sip.TransactionState;
import javax.sip.address.AddressFactory;
import javax.sip.header.Header;
import javax.sip.message.Message;
import javax.sip.message.Request;
import org.sipcrypt.server.transport.Flow;

/**
 * Every use the SIP functions, the wiring and the HTTP API make of JAIN-SIP RI's own classes
 * ({@code gov.nist}) beyond the public {@code javax.sip} interfaces, in one place: what a message
 * or transaction knows of the transport it came over, the transaction state the proxy settles by
 * hand for a response relayed from its bytes, the timers it shortens, the removal of an ended
 * transaction, a header's value as it came and an address factory for use without a stack. Only
 * the stack's own plumbing ({@link SipStackBuilder}, {@link SipcryptSipStack}, the logging adapters,
 * {@link WheelSipTimer}) and the Netty transport, which implements the RI's message channels and
 * processors, touch the RI otherwise (checked by {@code StackInternalsTest}). An upgrade of the RI
 * is checked here.
 * Threading: stateless; each method is as thread-safe as the RI object it reads (a transaction's
 * state is changed on its call's lane only).
 */
public final class StackInternals {

    private StackInternals() {
    }

    // --- messages ---

    /**
     * The flow and TLS facts of the connection a request came over, when its transport records them
     * (the Netty transport does); else null.
     */
    public static Flow.Carrier carrierOf(Request request) {
        return ((SIPRequest) request).getMessageChannel() instanceof Flow.Carrier c ? c : null;
    }

    /** The address a request's packet came from (the peer of its connection), or null when unknown. */
    public static InetAddress sourceAddress(Request request) {
        var m = (SIPRequest) request;
        return m.getPeerPacketSourceAddress() != null ? m.getPeerPacketSourceAddress() : m.getRemoteAddress();
    }

    /** The port a request's packet came from (the peer's port of its connection), or 0 or less when unknown. */
    public static int sourcePort(Request request) {
        var m = (SIPRequest) request;
        return m.getPeerPacketSourcePort() > 0 ? m.getPeerPacketSourcePort() : m.getRemotePort();
    }

    /** The address and port of the peer of the channel a request came in on. */
    public static InetSocketAddress remote(Request request) {
        var m = (SIPRequest) request;
        return new InetSocketAddress(m.getRemoteAddress(), m.getRemotePort());
    }

    /** The local address and port a received message came in on, or null when the transport did not note it. */
    public static InetSocketAddress local(Message message) {
        return message instanceof SIPMessage m && m.getLocalAddress() != null
                ? new InetSocketAddress(m.getLocalAddress(), m.getLocalPort()) : null;
    }

    /**
     * Attaches {@code data} to a message the server sends, for the transport to read as it goes out
     * (a flow to send a request over, RFC 5626 §5.3; a mark on a response the transport keeps).
     */
    public static void attach(Message message, Object data) {
        ((MessageExt) message).setApplicationData(data);
    }

    /** A header's value as the RI holds it (one line's value, without the name), for any header. */
    public static String value(Header h) {
        if (h instanceof SIPHeader sip) {
            return sip.getHeaderValue();
        }
        String text = h.toString();
        return text.substring(text.indexOf(':') + 1).trim();
    }

    /** A URI and address factory of the RI's, for use off the SIP stack (no stack needs to run). */
    public static AddressFactory addressFactory() {
        return new AddressFactoryImpl();
    }

    // --- transactions, either kind ---

    /** A transaction's transport as its Via names it ({@code UDP}, {@code TCP}, {@code TLS}...), or null. */
    public static String transport(Transaction t) {
        return ((SIPTransaction) t).getTransport();
    }

    /** Whether a transaction runs over UDP. */
    public static boolean overUdp(Transaction t) {
        return "UDP".equalsIgnoreCase(transport(t));
    }

    /** Whether a transaction runs over a reliable transport (no retransmission timers). */
    public static boolean reliable(Transaction t) {
        return ((SIPTransaction) t).isReliable();
    }

    /** A transaction's method, or null when its request is not set yet. */
    public static String method(Transaction t) {
        return ((SIPTransaction) t).getMethod();
    }

    /** A transaction's key in the stack (its branch in lower case, for an RFC 3261 branch). */
    public static String id(Transaction t) {
        return ((SIPTransaction) t).getTransactionId();
    }

    /**
     * Shortens a transaction's T4, the wait of Timer I (server INVITE) and Timer K (client
     * non-INVITE) over UDP, to one timer tick.
     */
    public static void shortenT4(Transaction t) {
        var tx = (SIPTransaction) t;
        tx.setTimerT4(tx.getBaseTimerInterval());
    }

    /** The listening point a transaction's request came in on or left from, or null. */
    public static ListeningPoint listeningPointOf(Transaction t) {
        var tx = (SIPTransaction) t;
        return tx.getMessageProcessor() != null ? tx.getMessageProcessor().getListeningPoint() : null;
    }

    /**
     * Removes an ended transaction from its stack at once and frees its messages, instead of at the
     * stack timer's next tick.
     */
    public static void remove(Transaction t) {
        var tx = (SIPTransaction) t;
        tx.getSIPStack().removeTransaction(tx);
        tx.cleanUp();
    }

    /** Whether a server transaction is still the one its stack holds under its key. */
    public static boolean held(ServerTransaction st) {
        var tx = (SIPTransaction) st;
        return tx.getSIPStack().findTransaction(tx.getTransactionId(), true) == tx;
    }

    // --- server transactions ---

    /** The status of the last response a server transaction sent, or 0 when none has gone. */
    public static int lastResponseStatus(ServerTransaction st) {
        return ((SIPServerTransaction) st).getLastResponseStatusCode();
    }

    /** The request that made a server transaction. */
    public static Request originalRequest(ServerTransaction st) {
        return ((SIPServerTransaction) st).getOriginalRequest();
    }

    /** The INVITE server transaction a CANCEL's transaction {@code st} cancels, or null when none matches. */
    public static ServerTransaction canceledInvite(ServerTransaction st) {
        return st instanceof SIPServerTransaction sst ? sst.getCanceledInviteTransaction() : null;
    }

    /** Whether a server transaction's request came in on the socket at {@code local}. */
    public static boolean receivedOn(ServerTransaction st, InetSocketAddress local) {
        var tx = (SIPServerTransaction) st;
        return tx.getPort() == local.getPort() && local.getAddress().getHostAddress().equals(tx.getHost());
    }

    /** Whether a server transaction's peer (where its responses go over UDP) is {@code peer}. */
    public static boolean peerIs(ServerTransaction st, InetSocketAddress peer) {
        var tx = (SIPServerTransaction) st;
        return tx.getPeerPort() == peer.getPort() && peer.getAddress().getHostAddress().equals(tx.getPeerAddress());
    }

    // --- client transactions ---

    /** Whether {@code ct} is an INVITE client transaction. */
    public static boolean inviteClient(ClientTransaction ct) {
        return ct instanceof SIPClientTransaction tx && tx.isInviteTransaction();
    }

    /** The request a client transaction sent, or null once it is freed. */
    public static Request sentRequest(ClientTransaction ct) {
        return ((SIPClientTransaction) ct).getOriginalRequest();
    }

    /** The provider a client transaction's request went out through. */
    public static SipProvider providerOf(ClientTransaction ct) {
        return ((SIPClientTransaction) ct).getSipProvider();
    }

    /** The flow and TLS facts of the connection a client transaction's request went over, or null. */
    public static Flow.Carrier carrierOf(ClientTransaction ct) {
        return ct instanceof SIPClientTransaction tx && tx.getMessageChannel() instanceof Flow.Carrier c ? c : null;
    }

    /**
     * Moves an INVITE client transaction to "Proceeding" for a provisional response the proxy relayed
     * from its bytes, as the transaction would on the parsed response (RFC 3261 §17.1.1.2: Timers A
     * and B stop). Returns whether it is proceeding now: false when it was neither calling nor
     * proceeding.
     */
    public static boolean proceed(ClientTransaction ct) {
        var tx = (SIPClientTransaction) ct;
        TransactionState state = tx.getState();
        if (state == TransactionState.CALLING) {
            tx.disableRetransmissionTimer();
            tx.disableTimeoutTimer();
            tx.setState(TransactionState._PROCEEDING);
            return true;
        }
        return state == TransactionState.PROCEEDING;
    }
}
